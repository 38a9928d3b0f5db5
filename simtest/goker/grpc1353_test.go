package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "grpc_1353", Subtype: mixedLock, Body: grpc1353})

// grpc1353: the round-robin balancer's watcher sends address updates on
// an unbuffered channel while holding the balancer's lock. The client's
// balancer watcher receives an update and tears down its connections,
// and tearing down calls the balancer's down, which takes the balancer's
// lock: held by the watcher, blocked on its next send to the task that
// waits for the lock. The fix sends after releasing the lock.
func grpc1353(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rrMu := newMutex(t, "round_robin_mu")
		addrCh := sched.NewChan[bool](t.Scheduler(), "addr_ch", 0)
		helpCh := sched.NewChan[struct{}](t.Scheduler(), "help_ch", 0)
		conns := []*mutex{newMutex(t, "addr_conn_mu"), newMutex(t, "addr_conn_mu")}
		watchAddrUpdates := func(t *sched.Task) error {
			if err := rrMu.lock(t); err != nil {
				return err
			}
			if fixed {
				if err := rrMu.unlock(t); err != nil {
					return err
				}
				return addrCh.Send(t, true)
			}
			if err := addrCh.Send(t, true); err != nil {
				return err
			}
			return rrMu.unlock(t)
		}
		tearDown := func(t *sched.Task, ac *mutex) error {
			if err := ac.lock(t); err != nil {
				return err
			}
			if err := rrMu.lock(t); err != nil { // down
				return err
			}
			if err := rrMu.unlock(t); err != nil {
				return err
			}
			return ac.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n,
				task{"balancer_start", func(t *sched.Task) error {
					for i := 0; i < 3; i++ {
						if err := watchAddrUpdates(t); err != nil {
							return err
						}
					}
					return helpCh.Close(t)
				}},
				task{"lb_watcher", func(t *sched.Task) error {
					for {
						_, ok, err := addrCh.Recv(t)
						if err != nil || !ok {
							return err
						}
						for _, ac := range conns {
							if err := tearDown(t, ac); err != nil {
								return err
							}
						}
					}
				}},
				task{"closer", func(t *sched.Task) error {
					if _, _, err := helpCh.Recv(t); err != nil {
						return err
					}
					if err := rrMu.lock(t); err != nil { // balancer.Close
						return err
					}
					if err := addrCh.Close(t); err != nil {
						return err
					}
					return rrMu.unlock(t)
				}})
		})
	}
}
