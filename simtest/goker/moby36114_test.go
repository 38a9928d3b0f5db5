package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_36114", Subtype: doubleLock, Body: moby36114})

// moby36114: a service VM's hot-add at start holds the VM's lock and
// calls hot-remove, which takes the same lock again. The fix makes the
// inner call one that expects the lock already held.
func moby36114(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "svm_mu")
		hotRemove := func(t *sched.Task) error {
			if fixed { // the caller holds the lock
				return nil
			}
			if err := mu.lock(t); err != nil {
				return err
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("hot_add_vhds", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				if err := hotRemove(t); err != nil {
					return err
				}
				return mu.unlock(t)
			})
		})
	}
}
