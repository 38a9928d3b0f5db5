package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "grpc_795", Subtype: doubleLock, Body: grpc795})

// grpc795: the server's GracefulStop takes the server lock, and returns
// when already draining with a second Lock where an Unlock belongs; on
// the first call it also forgets to unlock. Stopping twice (the test
// checks that GracefulStop is idempotent) blocks on the lock, and so does
// a concurrent Serve. The fix unlocks on every path.
func grpc795(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "server_mu")
		drain := false
		gracefulStop := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			if drain {
				if fixed {
					return mu.unlock(t)
				}
				return mu.lock(t)
			}
			drain = true
			if fixed {
				return mu.unlock(t)
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("serve", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				return mu.unlock(t)
			}); err != nil {
				return err
			}
			for i := 0; i < 3; i++ {
				if err := gracefulStop(t); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
