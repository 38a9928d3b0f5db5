package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "etcd_6873", Subtype: mixedLock, Body: etcd6873})

// etcd6873: the watch broadcasts' loop coalesces each update under the
// broadcasts' lock. Stopping holds that lock while it closes the update
// channel and waits for the loop to end; a loop still holding an update
// waits for the lock: each waits for the other. The fix waits for the
// loop after releasing the lock.
func etcd6873(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		mu := newMutex(t, "watch_broadcasts_mu")
		updatec := sched.NewChan[int](s, "updatec", 1)
		donec := sched.NewChan[struct{}](s, "donec", 0)
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("coalesce_loop", func(t *sched.Task) error {
				for {
					_, ok, err := updatec.Recv(t)
					if err != nil {
						return err
					}
					if !ok {
						return donec.Close(t)
					}
					if err := mu.lock(t); err != nil { // coalesce
						return err
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
				}
			}); err != nil {
				return err
			}
			if _, err := updatec.TrySend(t, 1); err != nil { // update
				return err
			}
			return n.Go("stop", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				if err := updatec.Close(t); err != nil {
					return err
				}
				if fixed {
					if err := mu.unlock(t); err != nil {
						return err
					}
					_, _, err := donec.Recv(t)
					return err
				}
				if _, _, err := donec.Recv(t); err != nil {
					return err
				}
				return mu.unlock(t)
			})
		})
	}
}
