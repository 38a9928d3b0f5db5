package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_584", Subtype: doubleLock, Body: cockroach584})

// cockroach584: gossip's bootstrap and manage loops each take the gossip
// lock and leave the loop when gossip is closed, but that exit path
// forgets to release the lock; manage, which runs after bootstrap on the
// same task, then blocks on the lock its own task still holds. The fix
// releases the lock on the way out.
func cockroach584(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "gossip_mu")
		closed := true
		loop := func(t *sched.Task) error {
			for {
				if err := mu.lock(t); err != nil {
					return err
				}
				if closed {
					if fixed {
						return mu.unlock(t)
					}
					return nil // the lock stays held
				}
				if err := mu.unlock(t); err != nil {
					return err
				}
				//lint:ignore SA4004 GoBench's gossip loop, whose first round returns: kept as the original reads
				return nil
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("gossip", func(t *sched.Task) error {
				if err := loop(t); err != nil { // bootstrap
					return err
				}
				return loop(t) // manage
			})
		})
	}
}
