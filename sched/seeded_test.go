package sched

import (
	"testing"

	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// seededRun runs fn as the root of a run stepped by a small seeded driver
// of the package's own (the simulator's loop in miniature, without its
// checks): it carries its loop on the scheduler's fibers (Carry), picks
// the acting worker among the unparked ones with a xoshiro seeded from
// seed, jumps a virtual clock of one tick a step to the next timer when no
// worker can act, and stops at maxSteps or when nothing can ever run
// again (a deadlock: the second result is false). The paths real mode
// takes by timing (the next slot's grace, the yield's hand-off, ...) are
// decisions of each worker's generator here: the same seed, the same run.
// sink receives the events, if not nil. No wall clock, no goroutine of
// the test's: the tests of the fast paths run here deterministically.
func seededRun(t *testing.T, cfg Config, sink link.Sink, seed uint64, maxSteps int, fn Func) (*Scheduler, Result, bool) {
	t.Helper()
	return seededRunWith(t, cfg, link.Options{Sink: sink}, seed, maxSteps, fn)
}

// seededRunWith is seededRun with the driver's options (a DecisionSource,
// say); Mode and Clock are seededRun's.
func seededRunWith(t *testing.T, cfg Config, o link.Options, seed uint64, maxSteps int, fn Func) (*Scheduler, Result, bool) {
	t.Helper()
	d := &testDriver{}
	if cfg.Budget == (Budget{}) {
		cfg.Budget = Unlimited
	}
	cfg.Seed = seed
	o.Mode, o.Clock = link.Seeded, d
	s, err := newWith(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	d.s, d.maxSteps = s, maxSteps
	d.rng.Seed(seed)
	root := s.drv().Start("main", fn)
	s.drv().Carry(d.next, d.host)
	if d.steps >= maxSteps {
		t.Fatalf("the seeded run did not end within %d steps", maxSteps)
	}
	ended := s.Done()
	if !ended {
		s.drv().Abort()
	}
	return s, root.result, ended
}

// testDriver is seededRun's driver: its loop (next) and its loop while a
// task hosts it (host), as sim's stepLoop, without a Stepper (every
// checkpoint suspends the task and ends the step).
type testDriver struct {
	s        *Scheduler
	rng      xoshiro
	tick     uint64
	steps    int
	maxSteps int
	next_    *worker // a worker the host handed the loop back with
	over     bool
}

// Now implements link.Clock: one tick a step, and the jumps to timers.
func (d *testDriver) Now() uint64 { return d.tick }

// pick returns the worker to step next, firing due timers and jumping the
// clock when every worker is parked; nil when the run is over.
func (d *testDriver) pick() *worker {
	if w := d.next_; w != nil {
		d.next_ = nil
		return w
	}
	for !d.over && !d.s.Done() && d.steps < d.maxSteps {
		d.s.drv().FireTimers(d.tick)
		var ready []*worker
		for _, w := range d.s.workers {
			if !w.parked {
				ready = append(ready, w)
			}
		}
		if len(ready) > 0 {
			d.steps++
			d.tick++
			return ready[d.rng.Intn(len(ready))]
		}
		next, ok := d.s.drv().NextTimer()
		if !ok {
			break // a deadlock
		}
		d.tick = next
	}
	d.over = true
	return nil
}

func (d *testDriver) next() bool {
	for w := d.pick(); w != nil; w = d.pick() {
		if _, inline := w.StepInline(); inline {
			return true
		}
	}
	return false
}

func (d *testDriver) host(t *Task) bool {
	for w := d.pick(); w != nil; w = d.pick() {
		_, resumes, handBack := w.StepHosted(t)
		if resumes {
			return true
		}
		if handBack {
			d.next_ = w
			return false
		}
	}
	return false
}

// realAnswers is a DecisionSource that answers every policy decision as
// real mode does: yes.
type realAnswers struct{}

func (realAnswers) Decide(int, link.Decision) bool { return true }
