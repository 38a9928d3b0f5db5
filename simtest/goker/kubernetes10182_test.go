package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_10182", Subtype: mixedLock, Body: kubernetes10182})

// kubernetes10182: setting a pod's status takes the status lock and,
// holding it, sends on an unbuffered channel to the sync loop; the sync
// loop receives and then takes the same lock to delete the status. With
// two setters, the second can take the lock and block on its send while
// the sync loop, done with the first, waits for that lock. The fix sends
// after releasing the lock.
func kubernetes10182(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newRWMutex(t, "pod_statuses_lock")
		statusCh := sched.NewChan[bool](t.Scheduler(), "pod_status_channel", 0)
		setPodStatus := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			if !fixed {
				if err := statusCh.Send(t, true); err != nil {
					return err
				}
			}
			if err := mu.unlock(t); err != nil {
				return err
			}
			if fixed {
				return statusCh.Send(t, true)
			}
			return nil
		}
		syncLoop := func(t *sched.Task) error {
			for i := 0; i < 2; i++ {
				if _, _, err := statusCh.Recv(t); err != nil {
					return err
				}
				if err := mu.lock(t); err != nil { // DeletePodStatus
					return err
				}
				if err := mu.unlock(t); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"sync_batch", syncLoop},
				task{"set_pod_status", setPodStatus}, task{"set_pod_status", setPodStatus})
		})
	}
}
