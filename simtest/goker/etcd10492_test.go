package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "etcd_10492", Subtype: doubleLock, Body: etcd10492})

// etcd10492: renewing a lease takes the lessor's lock and, holding it,
// calls the checkpointer, which checkpoints through the lessor and takes
// the same lock again. The fix releases the lock before calling the
// checkpointer.
func etcd10492(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newRWMutex(t, "lessor_mu")
		checkpoint := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			return mu.unlock(t)
		}
		if err := mu.lock(t); err != nil { // SetCheckpointer
			return err
		}
		cp := checkpoint
		if err := mu.unlock(t); err != nil {
			return err
		}
		if err := mu.lock(t); err != nil { // Renew
			return err
		}
		if fixed {
			if err := mu.unlock(t); err != nil {
				return err
			}
			return cp(t)
		}
		if err := cp(t); err != nil {
			return err
		}
		return mu.unlock(t)
	}
}
