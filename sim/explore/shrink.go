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
// bounded search below the found count, unless least says the count is
// already the least: for a schedule the explorer found, iterative
// bounding ran every schedule with fewer preemptions first, and none
// failed. Fewer steps come from a greedy pass over the choices: at each,
// every option is tried with the choices after it dropped (defaults) or
// kept, and a candidate is kept when it fails the same way and is better.
// The pass repeats until nothing improves or the runs run out. The
// bounded search runs on o.Jobs goroutines; the result does not depend
// on it.
func shrink(o Options, sc *scenario.Scenario, cfg sim.Config, f *Failure, least bool) error {
	sh := &shrinker{exec: o.Exec, sc: sc, cfg: cfg, sig: f.Signature, failing: o.Failing, jobs: o.Jobs}
	best, err := sh.try(f.Found.Choices)
	if err != nil {
		return err
	}
	if best == nil {
		// Not reproducible through the explorer's chooser: a random or
		// pct walk takes choices the explorer does not offer (its
		// fairness and symmetry rules leave them out), and past the first
		// such choice the run leaves the found one. Look for the same
		// failure by iterative bounding instead.
		if best, err = sh.search(min(f.Found.Preemptions, searchBoundMax)); err != nil {
			return err
		}
		if best == nil {
			f.Shrunk, f.Runs = f.Found, sh.runs
			return nil
		}
	}
	if !least {
		if best, err = sh.fewerPreemptions(best); err != nil {
			return err
		}
	}
	for improved := true; improved && sh.runs < shrinkRunsMax; {
		if best, improved, err = sh.pass(best); err != nil {
			return err
		}
	}
	f.Shrunk, f.Run, f.Runs = best.s, best.run, sh.runs
	return nil
}

// shrinker runs the candidates of one failure's shrink and counts them.
type shrinker struct {
	exec    Exec
	sc      *scenario.Scenario
	cfg     sim.Config
	sig     string // the failure's signature, which a candidate must keep
	failing func(*sim.Run) []string
	jobs    int // the bounded search's goroutines
	runs    int
}

// try runs the schedule steered by prefix; nil when it does not fail the
// same way.
func (sh *shrinker) try(prefix []uint8) (*candidate, error) {
	sh.runs++
	run, ch, err := execute(sh.exec, sh.sc, sh.cfg, prefix, nil)
	// The prefix steers; a choice that does not apply falls back to the
	// default, and the candidate is the run as it went (its choices).
	if err != nil || sim.Signature(sh.failing(run)) != sh.sig {
		return nil, err
	}
	return &candidate{s: Schedule{Choices: trimDefaults(ch), Preemptions: ch.pre, Steps: run.Steps}, run: run, points: ch.points}, nil
}

// searchBoundMax is the highest preemption bound the shrinker searches
// for a failure the explorer's chooser cannot reproduce as found: the
// explorer's own default bound.
const searchBoundMax = 2

// fewerPreemptions searches, by iterative bounding below best's count,
// for the same failure with fewer preemptions.
func (sh *shrinker) fewerPreemptions(best *candidate) (*candidate, error) {
	if best.s.Preemptions == 0 {
		return best, nil
	}
	c, err := sh.search(best.s.Preemptions - 1)
	if err != nil {
		return nil, err
	}
	if c != nil && c.better(best) {
		best = c
	}
	return best, nil
}

// search looks for the same failure by iterative bounding up to k
// preemptions, in at most half the shrink's runs; nil if none is found.
func (sh *shrinker) search(k int) (*candidate, error) {
	o := Options{Workers: sh.cfg.Workers, Preemptions: k, MaxSchedules: shrinkRunsMax / 2, NoShrink: true, Exec: sh.exec, Jobs: sh.jobs,
		Failing: func(r *sim.Run) []string {
			if sim.Signature(sh.failing(r)) == sh.sig {
				return []string{sh.sig}
			}
			return nil
		}}
	var rep *Report
	var err error
	if sh.sc != nil {
		rep, err = Run(sh.sc, o)
	} else if err = o.normalize(); err == nil {
		rep, err = runResolved(nil, o, sh.cfg) // a Go body's (RunExec)
	}
	if err != nil {
		return nil, err
	}
	sh.runs += int(rep.Schedules)
	if rep.Failure == nil {
		return nil, nil
	}
	return sh.try(rep.Failure.Found.Choices)
}

// pass is one greedy pass over best's choices: at each, every option,
// with the choices after it dropped (defaults) or kept. It returns the
// best candidate and whether it improved on best.
func (sh *shrinker) pass(best *candidate) (*candidate, bool, error) {
	improved := false
	for i := 0; i < len(best.s.Choices) && i < len(best.points) && sh.runs < shrinkRunsMax; i++ {
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
				c, err := sh.try(prefix)
				if err != nil {
					return nil, false, err
				}
				if c != nil && c.better(best) {
					best, improved = c, true
				}
			}
		}
	}
	return best, improved, nil
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
