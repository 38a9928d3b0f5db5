package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "etcd_6708", Subtype: doubleLock, Body: etcd6708})

// etcd6708: syncing the cluster client write-locks it and sets the
// endpoints; with the prioritize-leader selection mode that asks the
// members API for the leader, through the same client, whose Do
// read-locks it: a read lock under the task's own write lock. The fix
// looks for the leader after releasing the write lock.
func etcd6708(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newRWMutex(t, "http_cluster_client")
		getLeaderEndpoint := func(t *sched.Task) error { // Leader calls c.Do
			if err := mu.rlock(t); err != nil {
				return err
			}
			return mu.runlock(t)
		}
		if err := mu.lock(t); err != nil { // Sync
			return err
		}
		if !fixed {
			if err := getLeaderEndpoint(t); err != nil { // SetEndpoints
				return err
			}
		}
		if err := mu.unlock(t); err != nil {
			return err
		}
		if fixed {
			return getLeaderEndpoint(t)
		}
		return nil
	}
}
