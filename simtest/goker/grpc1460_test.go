package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "grpc_1460", Subtype: mixedLock, Body: grpc1460})

// grpc1460: the HTTP/2 client's keepalive, finding no active stream,
// waits to be awakened while holding the client's lock; NewStream, which
// would awaken it, first takes that lock. The fix has keepalive wait on a
// condition variable of the lock, which releases it while waiting, and
// NewStream signal it.
func grpc1460(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "http2_client_mu")
		dormancy := newCond(mu)
		awaken := sched.NewChan[struct{}](t.Scheduler(), "awaken_keepalive", 0)
		activeStreams := 0
		keepalive := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			for activeStreams < 1 {
				if fixed {
					if err := dormancy.wait(t); err != nil {
						return err
					}
					continue
				}
				if _, _, err := awaken.Recv(t); err != nil {
					return err
				}
				break
			}
			return mu.unlock(t)
		}
		newStream := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			activeStreams++
			if activeStreams == 1 {
				if fixed {
					if err := dormancy.signal(t); err != nil {
						return err
					}
				} else if _, err := awaken.TrySend(t, struct{}{}); err != nil {
					return err
				}
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"keepalive", keepalive}, task{"new_stream", newStream})
		})
	}
}
