package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_10790", Subtype: commChanCtx, Body: cockroach10790})

// cockroach10790: a replica's beginCmds waits on each of its command
// channels in turn, or for its context to be cancelled; cancelled, it
// starts a task that receives from every channel, to let the senders go.
// But the sender gives up too when the context is cancelled, so the
// draining task waits for sends that never come. The fix does not start
// the draining task: beginCmds returns when cancelled.
func cockroach10790(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		ctx := newCtx(t, "cmd_ctx")
		chans := []*sched.Chan[bool]{sched.NewChan[bool](s, "cmd_0", 0), sched.NewChan[bool](s, "cmd_1", 0)}
		quiescer := sched.NewChan[struct{}](s, "quiescer", 0)
		return scope(t, func(n *sched.Nursery) error {
			sendChans := func(t *sched.Task) error {
				for _, ch := range chans {
					i, err := sched.Select(t, ch.SendCase(true), ctx.done.RecvCase(nil, nil))
					if err != nil || i == 1 {
						return err
					}
				}
				return nil
			}
			beginCmds := func(t *sched.Task) error {
				for _, ch := range chans {
					i, err := sched.Select(t, ch.RecvCase(nil, nil), ctx.done.RecvCase(nil, nil))
					if err != nil || i == 0 {
						continue
					}
					if fixed {
						return nil
					}
					if err := n.GoFrom(t, "drain_cmds", func(t *sched.Task) error {
						for _, ch := range chans {
							if _, _, err := ch.Recv(t); err != nil {
								return err
							}
						}
						return nil
					}); err != nil {
						return err
					}
				}
				return nil
			}
			if err := goAll(n, task{"send_chans", sendChans}, task{"begin_cmds", beginCmds}, task{"cancel", ctx.cancel}); err != nil {
				return err
			}
			return quiescer.Close(t) // r.stopper.Stop
		})
	}
}
