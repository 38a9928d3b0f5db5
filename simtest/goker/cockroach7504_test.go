package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_7504", Subtype: abba, Body: cockroach7504})

// cockroach7504: acquiring a table lease by name takes the name cache's
// lock and then the lease's lock; releasing a lease takes the table
// state's lock, the lease's lock and then, removing the lease from the
// name cache, the cache's lock: the cache's and the lease's locks are
// taken in opposite orders. The fix releases the cache's lock before
// taking the lease's.
func cockroach7504(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		cacheMu := newMutex(t, "name_cache_mu")
		leaseMu := newMutex(t, "lease_mu")
		tableMu := newMutex(t, "table_state_mu")
		cached := true
		acquireByName := func(t *sched.Task) error {
			if err := cacheMu.lock(t); err != nil {
				return err
			}
			if !cached {
				return cacheMu.unlock(t)
			}
			if fixed {
				if err := cacheMu.unlock(t); err != nil {
					return err
				}
			}
			if err := leaseMu.lock(t); err != nil {
				return err
			}
			if err := leaseMu.unlock(t); err != nil {
				return err
			}
			if fixed {
				return nil
			}
			return cacheMu.unlock(t)
		}
		release := func(t *sched.Task) error {
			for _, m := range []*mutex{tableMu, leaseMu, cacheMu} {
				if err := m.lock(t); err != nil {
					return err
				}
			}
			cached = false
			for _, m := range []*mutex{cacheMu, leaseMu, tableMu} {
				if err := m.unlock(t); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"acquire_by_name", acquireByName}, task{"release", release})
		})
	}
}
