package sim

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/trace"
)

// driven is how a seeded run ended.
type driven struct {
	steps   int64
	outcome string // "" when the root finished; else livelock, deadlock or crash
	crash   string // the scheduler's own panic, with outcome crash
}

// drive is the seeded driver loop, whatever the root task runs (a
// scenario's program, or a Go body: RunBody). It steps s one worker at a
// time, the worker of each step chosen by ch among those not parked, until
// the root has finished, maxSteps steps have run (livelock), no worker can
// act and no timer is pending (deadlock), or the scheduler itself panicked
// (crash). When no worker can act but a timer is pending, virtual time
// jumps to it. Events go to sk, which also keeps the step and tick. A
// recorded decision that does not apply (schedule replay) aborts s and
// comes back as a *ScheduleError.
func drive(s *sched.Scheduler, sk *sink, ch chooser, maxSteps int64) (driven, error) {
	workers := s.Workers()
	ready := make([]*sched.Worker, 0, len(workers))
	var d driven
	var step int64
	for ; !s.Done(); step++ {
		sk.step = uint64(step)
		s.FireTimers(sk.tick)
		if step >= maxSteps {
			d.outcome = OutcomeLivelock
			sk.Emit(-1, trace.KindLivelock, []trace.Field{trace.I("max_steps", maxSteps)})
			break
		}
		ready = ready[:0]
		for _, w := range workers {
			if !w.Parked() {
				ready = append(ready, w)
			}
		}
		if len(ready) == 0 {
			// No worker can act: jump to the next timer, or it is a
			// deadlock.
			if next, ok := s.NextTimer(); ok {
				sk.Emit(-1, trace.KindClock, []trace.Field{trace.I("to", int64(next))})
				sk.tick = next
				step--
				continue
			}
			d.outcome = OutcomeDeadlock
			sk.Emit(-1, trace.KindDeadlock, []trace.Field{trace.I("live", s.Live())})
			break
		}
		w, err := ch.pick(step, ready)
		if err == nil {
			if msg := safeStep(w); msg != "" {
				d.outcome, d.crash = OutcomeCrash, msg
				sk.Emit(-1, trace.KindNote, []trace.Field{trace.S("crash", msg)})
				break
			}
			err = ch.done(step)
		}
		if err != nil {
			s.Abort()
			return d, &ScheduleError{Err: err}
		}
		sk.tick++
	}
	d.steps = step
	return d, nil
}
