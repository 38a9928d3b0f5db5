package explore

import (
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// shrinkRunsMax bounds the runs one shrink makes.
const shrinkRunsMax = 5000

// shrink minimises f.Found into f.Shrunk: fewest preemptions first, then
// fewest steps, keeping f.Signature. Fewer preemptions come from a
// bounded search below the found count (which, for a schedule the
// explorer found, is already the least: iterative bounding met it
// first); fewer steps from a greedy pass over the choices: each choice
// is replaced by every other option, and the choices after it are
// dropped (defaults), and a candidate is kept when it fails the same way
// with no more preemptions and fewer steps.
func shrink(exec Exec, sc *scenario.Scenario, cfg sim.Config, f *Failure, failing func(*sim.Run) []string) error {
	best := f.Found
	runs := 0
	try := func(prefix []uint8) (Schedule, *sim.Run, bool, error) {
		runs++
		run, ch, err := execute(exec, sc, cfg, prefix, nil)
		if err != nil || ch.bad {
			return Schedule{}, nil, false, err
		}
		if signature(failing(run)) != f.Signature {
			return Schedule{}, nil, false, nil
		}
		return Schedule{Choices: trimDefaults(ch), Preemptions: ch.pre, Steps: run.Steps}, run, true, nil
	}
	better := func(s Schedule) bool {
		return s.Preemptions < best.Preemptions || (s.Preemptions == best.Preemptions && s.Steps < best.Steps)
	}
	if best.Preemptions > 0 {
		// Iterative bounding below the found count, for this failure only.
		o := Options{Workers: cfg.Workers, Preemptions: best.Preemptions - 1, MaxSchedules: shrinkRunsMax / 2, NoShrink: true, Exec: exec,
			Failing: func(r *sim.Run) []string {
				if signature(failing(r)) == f.Signature {
					return []string{f.Signature}
				}
				return nil
			}}
		rep, err := Run(sc, o)
		if err != nil {
			return err
		}
		runs += int(rep.Schedules)
		if rep.Failure != nil {
			if s, _, ok, err := try(rep.Failure.Found.Choices); err != nil {
				return err
			} else if ok && better(s) {
				best = s
			}
		}
	}
	if s, _, ok, err := try(best.Choices); err != nil {
		return err
	} else if ok {
		best = s
	}
	for improved := true; improved && runs < shrinkRunsMax; {
		improved = false
		for i := 0; i < len(best.Choices) && runs < shrinkRunsMax; i++ {
			// The options at point i are those of best's run; try each,
			// with the choices after i left to the defaults, then kept.
			run, ch, err := execute(exec, sc, cfg, best.Choices, nil)
			if err != nil {
				return err
			}
			_ = run
			if i >= len(ch.points) {
				break
			}
			p := ch.points[i]
			for _, opt := range p.options {
				for _, keepTail := range []bool{false, true} {
					cand := append([]uint8(nil), best.Choices[:i]...)
					cand = append(cand, opt)
					if keepTail {
						cand = append(cand, best.Choices[i+1:]...)
					}
					s, _, ok, err := try(cand)
					if err != nil {
						return err
					}
					if ok && better(s) {
						best, improved = s, true
					}
				}
			}
		}
	}
	run, _, err := execute(exec, sc, cfg, best.Choices, nil)
	if err != nil {
		return err
	}
	f.Shrunk, f.Run, f.Runs = best, run, runs
	return nil
}

// trimDefaults is the run's choices without the trailing ones that equal
// the default, which the chooser would take anyway.
func trimDefaults(ch *chooser) []uint8 {
	n := len(ch.points)
	for n > 0 {
		p := ch.points[n-1]
		def := p.options[0]
		if p.last >= 0 {
			def = uint8(p.last)
		}
		if p.chosen != def {
			break
		}
		n--
	}
	return ch.choices()[:n]
}
