package explore

import (
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// shrinkRunsMax bounds the runs one shrink makes.
const shrinkRunsMax = 5000

// candidate is a schedule that fails the way being shrunk, with its run
// and its decision points.
type candidate struct {
	s      Schedule
	run    *sim.Run
	points []point
}

// better orders candidates: fewer preemptions, then fewer steps.
func (c *candidate) better(than *candidate) bool {
	return c.s.Preemptions < than.s.Preemptions || (c.s.Preemptions == than.s.Preemptions && c.s.Steps < than.s.Steps)
}

// shrink minimises f.Found into f.Shrunk: fewest preemptions first, then
// fewest steps, keeping f.Signature. Fewer preemptions come from a
// bounded search below the found count (which, for a schedule the
// explorer found, is already the least: iterative bounding met it
// first); fewer steps from a greedy pass over the choices: at each, every
// option is tried with the choices after it dropped (defaults) or kept,
// and a candidate is kept when it fails the same way and is better. The
// pass repeats until nothing improves or the runs run out.
func shrink(exec Exec, sc *scenario.Scenario, cfg sim.Config, f *Failure, failing func(*sim.Run) []string) error {
	runs := 0
	try := func(prefix []uint8) (*candidate, error) {
		runs++
		run, ch, err := execute(exec, sc, cfg, prefix, nil)
		// The prefix steers; a choice that does not apply falls back to the
		// default, and the candidate is the run as it went (its choices).
		if err != nil || signature(failing(run)) != f.Signature {
			return nil, err
		}
		return &candidate{s: Schedule{Choices: trimDefaults(ch), Preemptions: ch.pre, Steps: run.Steps}, run: run, points: ch.points}, nil
	}
	best, err := try(f.Found.Choices)
	if err != nil {
		return err
	}
	if best == nil {
		// Not reproducible through the explorer's chooser: keep it as found.
		f.Shrunk, f.Runs = f.Found, runs
		return nil
	}
	if best.s.Preemptions > 0 {
		// Iterative bounding below the found count, for this failure only.
		o := Options{Workers: cfg.Workers, Preemptions: best.s.Preemptions - 1, MaxSchedules: shrinkRunsMax / 2, NoShrink: true, Exec: exec,
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
			c, err := try(rep.Failure.Found.Choices)
			if err != nil {
				return err
			}
			if c != nil && c.better(best) {
				best = c
			}
		}
	}
	for improved := true; improved && runs < shrinkRunsMax; {
		improved = false
		for i := 0; i < len(best.s.Choices) && i < len(best.points) && runs < shrinkRunsMax; i++ {
			p := best.points[i]
			choices := best.s.Choices
			for _, opt := range p.options {
				for _, keepTail := range []bool{false, true} {
					if opt == p.chosen && keepTail {
						continue // best itself
					}
					prefix := append(append([]uint8(nil), choices[:i]...), opt)
					if keepTail {
						prefix = append(prefix, choices[i+1:]...)
					}
					c, err := try(prefix)
					if err != nil {
						return err
					}
					if c != nil && c.better(best) {
						best, improved = c, true
					}
				}
			}
		}
	}
	f.Shrunk, f.Run, f.Runs = best.s, best.run, runs
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
