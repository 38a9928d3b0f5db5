package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_35073", Subtype: commChan, Body: cockroach35073})

// cockroach35073: a row channel's Push sends into its buffer unless the
// consumer has said it is closed. The outbox consuming it returns without
// saying so, and without draining: a pusher finding the buffer full
// blocks forever, and so does the test's own last Push. The fix has the
// outbox mark the consumer closed and take a row out of the buffer when
// its loop ends, which frees the blocked pusher and makes later pushes
// drop their rows.
func cockroach35073(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const bufRows = 4
		dataChan := sched.NewChan[int](t.Scheduler(), "data_chan", bufRows)
		consumerClosed := false
		push := func(t *sched.Task) error {
			if consumerClosed {
				return nil
			}
			return dataChan.Send(t, 0)
		}
		wg := newWaitGroup(t, "outbox")
		return scope(t, func(n *sched.Nursery) error {
			for i := 0; i < bufRows; i++ {
				if err := push(t); err != nil {
					return err
				}
			}
			if err := n.Go("blocked_pusher", push); err != nil {
				return err
			}
			if err := wg.add(t, 1); err != nil {
				return err
			}
			if err := n.Go("outbox_run", func(t *sched.Task) error {
				if fixed { // ConsumerClosed
					consumerClosed = true
					dataChan.TryRecv(t)
				}
				return wg.done(t)
			}); err != nil {
				return err
			}
			if err := wg.wait(t); err != nil {
				return err
			}
			return push(t)
		})
	}
}
