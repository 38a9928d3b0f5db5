package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_18101", Subtype: commChanCtx, Body: cockroach18101})

// cockroach18101: a restore starts a splitter that sends spans on a
// buffered channel, and consumes them until its context is cancelled;
// cancelled, it returns. The splitter has more spans than the buffer
// holds and sends without looking at the context, so once the consumer
// has returned it blocks on a full channel forever. The fix has the
// splitter stop sending when the context is cancelled.
func cockroach18101(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const chanSize = 6
		ctx := newCtx(t, "restore_ctx")
		restore := func(t *sched.Task) error {
			ready := sched.NewChan[bool](t.Scheduler(), "ready_for_import", chanSize)
			return scope(t, func(n *sched.Nursery) error {
				if err := n.Go("split_and_scatter", func(t *sched.Task) error {
					for i := 0; i < chanSize+2; i++ {
						if !fixed {
							if err := ready.Send(t, i != 0); err != nil {
								return err
							}
							continue
						}
						j, err := sched.Select(t, ready.SendCase(i != 0), ctx.done.RecvCase(nil, nil))
						if err != nil {
							return err
						}
						if j == 1 {
							break
						}
					}
					return ready.Close(t)
				}); err != nil {
					return err
				}
				for {
					_, ok, err := ready.Recv(t)
					if err != nil || !ok {
						return err
					}
					//lint:ignore SA4004 GoBench's import loop, whose first round returns: kept as the original reads
					return ctx.wait(t) // the span's import waits for the context
				}
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"restore", restore}, task{"cancel", ctx.cancel})
		})
	}
}
