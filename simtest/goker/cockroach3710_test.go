package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_3710", Subtype: rwr, Body: cockroach3710})

// cockroach3710: forcing a raft log scan read-locks the store and, for
// each replica, adds it to the raft log queue, whose check asks the store
// for the raft status: a second read lock of the store on the same task.
// The raft processing task write-locks the store in between, and its
// waiting write lock keeps the second read lock out. The fix collects the
// replicas under the read lock and queues them after releasing it.
func cockroach3710(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		storeMu := newRWMutex(t, "store_mu")
		queueMu := newMutex(t, "base_queue_mu")
		replicas := 2
		maybeAdd := func(t *sched.Task) error {
			if err := queueMu.lock(t); err != nil {
				return err
			}
			if err := storeMu.rlock(t); err != nil { // RaftStatus
				return err
			}
			if err := storeMu.runlock(t); err != nil {
				return err
			}
			return queueMu.unlock(t)
		}
		forceScan := func(t *sched.Task) error {
			if err := storeMu.rlock(t); err != nil {
				return err
			}
			for i := 0; i < replicas; i++ {
				if fixed {
					continue
				}
				if err := maybeAdd(t); err != nil {
					return err
				}
			}
			if err := storeMu.runlock(t); err != nil {
				return err
			}
			for i := 0; fixed && i < replicas; i++ {
				if err := maybeAdd(t); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n,
				task{"force_raft_log_scan", forceScan},
				task{"process_raft", func(t *sched.Task) error {
					if err := storeMu.lock(t); err != nil {
						return err
					}
					return storeMu.unlock(t)
				}})
		})
	}
}
