package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_16167", Subtype: rwr, Body: cockroach16167})

// cockroach16167: executing a statement read-locks the executor's system
// config (through a Cond whose locker is the read side) and, deeper in
// the same call, read-locks it again to get the database cache. When the
// executor's start updates the config in between, its write lock waits
// for the first reader and, as sync.RWMutex does, keeps the second read
// lock out: the reader waits for the writer that waits for the reader.
// The fix reads the cache under the read lock the caller already holds.
func cockroach16167(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newRWMutex(t, "system_config_mu")
		getDatabaseCache := func(t *sched.Task) error {
			if fixed {
				return nil
			}
			if err := mu.rlock(t); err != nil {
				return err
			}
			return mu.runlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("executor_start", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil { // updateSystemConfig
					return err
				}
				return mu.unlock(t)
			}); err != nil {
				return err
			}
			if err := mu.rlock(t); err != nil { // execParsed
				return err
			}
			if err := getDatabaseCache(t); err != nil {
				return err
			}
			return mu.runlock(t)
		})
	}
}
