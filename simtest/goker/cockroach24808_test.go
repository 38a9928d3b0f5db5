package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_24808", Subtype: commChan, Body: cockroach24808})

// cockroach24808: the compactor's Start signals its capacity-1 channel
// that there is work, with a blocking send, before starting the worker
// that drains it. When the channel already holds a signal (the test sends
// one first), Start blocks forever: the only receiver is the worker it
// has not started. The fix signals without blocking: a signal already
// pending is as good as a second one.
func cockroach24808(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		ch := sched.NewChan[struct{}](s, "compactor_ch", 1)
		stopper := sched.NewChan[struct{}](s, "stopper", 0)
		worker := func(t *sched.Task) error {
			for {
				i, err := sched.Select(t, stopper.RecvCase(nil, nil), ch.RecvCase(nil, nil))
				if err != nil || i == 0 {
					return err
				}
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := ch.Send(t, struct{}{}); err != nil {
				return err
			}
			// compactor.Start
			if fixed {
				if _, err := ch.TrySend(t, struct{}{}); err != nil {
					return err
				}
			} else if err := ch.Send(t, struct{}{}); err != nil {
				return err
			}
			if err := n.Go("compactor_worker", worker); err != nil {
				return err
			}
			return stopper.Close(t) // defer stopper.Stop()
		})
	}
}
