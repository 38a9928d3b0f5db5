package sim

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/trace"
)

// drive is the seeded driver's loop, whatever the root task runs (a
// scenario's program in Execute, a Go body in RunBody): fire the timers
// that are due, let the chooser pick one of the workers that can act and
// step it, until main is done, the step bound is passed (livelock), no worker can act and
// no timer is pending (deadlock), or the scheduler panics (crash). It
// returns the steps taken; an error is a recorded decision that did not
// apply (ScheduleError).
//
// MaxSteps bounds the busy steps, those that ran or took a task, as in
// real mode: an idle worker's look for work that ends in parking is not
// progress of the program, and counting it made a correct program
// livelock on 256 workers. Idle steps stay bounded: a parked worker wakes
// only when work is pushed or a timer fires, so there are at most Workers
// of them per busy step or timer.
func drive(run *Run, s *driver.Scheduler, sk *sink, ch chooser) (int64, error) {
	step, crash, err := driveSteps(run, s, sk, ch)
	if crash != "" {
		run.Outcome, run.Crash = OutcomeCrash, crash
		sk.Emit(-1, trace.KindNote, []trace.Field{trace.S(trace.KeyCrash, crash)})
	}
	return step, err
}

// driveSteps is drive's loop. A worker's step that panics (the scheduler
// itself, not a task: those are results) ends it with crash set to the
// panic's text, at the step that panicked, so that a scheduler bug found
// by a seed is reported like a broken invariant; a panic anywhere else in
// the loop is a bug of the simulator and goes on up. The
// recover is here, once a run, rather than in a function deferred around
// every step: that deferred recover was 5% of a seeded step
// (docs/performance.md).
func driveSteps(run *Run, s *driver.Scheduler, sk *sink, ch chooser) (step int64, crash string, err error) {
	stepping := false // inside w.Step: a panic is the scheduler's crash
	defer func() {
		if stepping {
			if r := recover(); r != nil {
				crash = fmt.Sprint(r)
			}
		}
	}()
	workers := s.Workers()
	ready := make([]driver.Worker, 0, len(workers))
	epoch, built := uint64(0), false // the park epoch ready was built at
	c := run.Config
	var busy int64
	for ; !s.Done(); step++ {
		sk.step = uint64(step)
		s.FireTimers(sk.tick)
		if busy >= c.MaxSteps {
			run.Outcome = OutcomeLivelock
			sk.Emit(-1, trace.KindLivelock, []trace.Field{trace.I(trace.KeyMaxSteps, c.MaxSteps)})
			break
		}
		if name, max := sk.limit(); name != "" {
			run.Outcome, run.Limit = OutcomeLivelock, limitText(name, max)
			sk.Emit(-1, trace.KindLivelock, []trace.Field{trace.S("limit", name), trace.I("max", int64(max))})
			break
		}
		// The ready list is rebuilt only when a worker parked or woke
		// since it was built, which the scheduler's park epoch tells: most
		// steps change neither, and asking every worker's Parked through
		// its interface at every step was 8% of a seeded step
		// (docs/performance.md).
		if e := s.ParkEpoch(); !built || e != epoch {
			epoch, built = e, true
			ready = ready[:0]
			for _, w := range workers {
				if !w.Parked() {
					ready = append(ready, w)
				}
			}
		}
		if len(ready) == 0 {
			// No worker can act: jump to the next timer, or it is a
			// deadlock.
			if next, ok := s.NextTimer(); ok {
				sk.Emit(-1, trace.KindClock, []trace.Field{trace.I(trace.KeyTo, int64(next))})
				sk.tick = next
				step--
				continue
			}
			run.Outcome = OutcomeDeadlock
			sk.Emit(-1, trace.KindDeadlock, []trace.Field{trace.I(trace.KeyLive, s.Live())})
			break
		}
		w, err := ch.pick(step, ready)
		if err == nil {
			stepping = true
			did := w.Step()
			stepping = false
			if did {
				busy++
			}
			err = ch.done(step)
		}
		if err != nil {
			s.Abort()
			return step, "", &ScheduleError{Err: err}
		}
		sk.tick++
	}
	return step, "", nil
}

// finish records how the run ended: its outcome, main's result, the
// outcome event, the flushed trace and the tables.
func finish(run *Run, s *driver.Scheduler, sk *sink, tw *trace.Writer, step int64) error {
	run.Steps = step
	if run.Outcome == "" {
		run.Outcome = outcomeOf(driver.Result(s.Root()))
		// Release the idle fibers (parked coroutines): without it every
		// run of a check or a simtest leaks a goroutine per fiber.
		defer s.Abort()
	} else {
		run.Stuck = stuck(s)
		if sk.tab != nil { // no task kept: the tasks without a result, from the events
			run.Stuck = sk.tab.stuck()
		}
		s.Abort()
	}
	run.Result = driver.Result(s.Root())
	sk.step = uint64(step)
	sk.Emit(-1, trace.KindOutcome, []trace.Field{trace.S(trace.KeyOutcome, string(run.Outcome)), trace.S(trace.KeyResult, run.Result.String())})
	if tw != nil {
		if sk.err == nil {
			sk.err = tw.Flush()
		}
		if sk.err != nil {
			return fmt.Errorf("writing trace: %w", sk.err)
		}
	}
	collect(run, s)
	if sk.tab != nil { // a driver mode that keeps no task: the tables come from the events
		sk.tab.fill(run)
	}
	return nil
}
