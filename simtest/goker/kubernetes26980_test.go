package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_26980", Subtype: mixedLock, Body: kubernetes26980})

// kubernetes26980: a processor listener's pop holds the listener's lock
// (the lock of its condition variable) for its whole loop, and once a
// notification is pending it waits on the stop channel, still holding
// the lock. The test then takes the lock on another task and waits for
// it, before it would close the stop channel: the lock is never free.
// The fix waits for the stop channel after releasing the lock.
func kubernetes26980(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		lock := newMutex(t, "listener_lock")
		c := newCond(lock)
		stopCh := sched.NewChan[struct{}](s, "stop_ch", 0)
		resultCh := sched.NewChan[struct{}](s, "result_ch", 0)
		pending := 0
		add := func(t *sched.Task) error {
			if err := lock.lock(t); err != nil {
				return err
			}
			pending++
			if err := c.broadcast(t); err != nil {
				return err
			}
			return lock.unlock(t)
		}
		pop := func(t *sched.Task) error {
			if err := lock.lock(t); err != nil {
				return err
			}
			for pending == 0 {
				if _, _, ready := stopCh.TryRecv(t); ready {
					return lock.unlock(t)
				}
				if err := c.wait(t); err != nil {
					return err
				}
			}
			pending--
			if fixed {
				if err := lock.unlock(t); err != nil {
					return err
				}
				_, _, err := stopCh.Recv(t)
				return err
			}
			if _, _, err := stopCh.Recv(t); err != nil {
				return err
			}
			return lock.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := add(t); err != nil {
				return err
			}
			if err := goAll(n, task{"pop", pop}, task{"locker", func(t *sched.Task) error {
				if err := lock.lock(t); err != nil {
					return err
				}
				return resultCh.Close(t)
			}}); err != nil {
				return err
			}
			if _, _, err := resultCh.Recv(t); err != nil {
				return err
			}
			if err := lock.unlock(t); err != nil {
				return err
			}
			return stopCh.Close(t) // defer close(stopCh)
		})
	}
}
