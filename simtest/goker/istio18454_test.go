package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "istio_18454", Subtype: commChanCtx, Body: istio18454})

// istio18454: a processor hands each config event to a debounce
// strategy, whose event loop restarts a timer on every reset. Restarting
// follows the old time.Timer idiom: if Stop reports that the timer has
// already fired, receive its value first. When the loop has already
// received that value, the receive waits forever, and so does the
// processor, first on the reset channel and then, once stopped, for the
// strategy's loop to end. The fix drains the timer's channel without
// blocking. (GoKer queues 1024 events; here 8.)
func istio18454(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		const events, frequency = 8, time.Nanosecond
		stateLock := newMutex(t, "state_lock")
		resetChan := sched.NewChan[struct{}](s, "reset_chan", 1)
		eventCh := sched.NewChan[int](s, "event_ch", events)
		strategyCtx, processorCtx := newCtx(t, "strategy_worker"), newCtx(t, "processor_worker")
		var timer *sched.Timer
		eventLoop := func(t *sched.Task) error {
			for {
				i, err := sched.Select(t, timer.C.RecvCase(nil, nil), resetChan.RecvCase(nil, nil), strategyCtx.done.RecvCase(nil, nil))
				switch {
				case err != nil:
					return err
				case i == 2:
					timer.Stop()
					return nil
				case i == 1 && !timer.Stop():
					if fixed {
						timer.C.TryRecv(t)
					} else if _, _, err := timer.C.Recv(t); err != nil {
						return err
					}
				}
				if i == 1 {
					timer.Reset(frequency)
				}
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			onChange := func(t *sched.Task) error {
				if err := stateLock.lock(t); err != nil {
					return err
				}
				if timer != nil {
					if err := stateLock.unlock(t); err != nil {
						return err
					}
					return resetChan.Send(t, struct{}{})
				}
				timer = sched.NewTimer(t, frequency) // startTimer
				if err := n.GoFrom(t, "strategy_event_loop", eventLoop); err != nil {
					return err
				}
				return stateLock.unlock(t)
			}
			for i := 0; i < events; i++ { // setupFn
				if err := eventCh.Send(t, i); err != nil {
					return err
				}
			}
			if err := n.Go("processor_run", func(t *sched.Task) error {
				defer strategyCtx.cancel(t) // stateStrategy.Close
				for {
					i, err := sched.Select(t, processorCtx.done.RecvCase(nil, nil), eventCh.RecvCase(nil, nil))
					if err != nil || i == 0 {
						return err
					}
					if err := onChange(t); err != nil {
						return err
					}
				}
			}); err != nil {
				return err
			}
			return processorCtx.cancel(t) // defer p.Stop()
		})
	}
}
