package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "grpc_1424", Subtype: commChan, Body: grpc1424})

// grpc1424: dialing starts a task that starts the balancer watcher and
// waits on a done channel for it to finish. The watcher ranges over the
// balancer's address notifications and returns when the dialer closes
// them, but never closes the done channel, so the waiting task waits
// forever. The fix closes the done channel when the watcher returns.
func grpc1424(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		addrCh := sched.NewChan[bool](t.Scheduler(), "addr_ch", 0)
		lbWatcher := func(done *sched.Chan[bool]) sched.Func {
			return func(t *sched.Task) error {
				for {
					_, ok, err := addrCh.Recv(t)
					if err != nil {
						return err
					}
					if !ok {
						break
					}
				}
				if fixed {
					return done.Close(t)
				}
				return nil
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("dial", func(t *sched.Task) error {
				done := sched.NewChan[bool](t.Scheduler(), "done_chan", 0)
				return scope(t, func(n *sched.Nursery) error {
					if err := n.Go("lb_watcher", lbWatcher(done)); err != nil {
						return err
					}
					_, _, err := done.Recv(t)
					return err
				})
			}); err != nil {
				return err
			}
			return addrCh.Close(t)
		})
	}
}
