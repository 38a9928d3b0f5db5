package goker

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "cockroach_10214", Subtype: abba, Body: cockroach10214})

// cockroach10214: the store sends its queued heartbeats holding the
// coalesced-heartbeats lock, and reporting a replica unreachable on the
// way takes that replica's raft lock. A replica's tick holds its raft lock
// and, to coalesce a heartbeat, takes the store's coalesced-heartbeats
// lock: the two take the same two locks in opposite orders. The fix takes
// the queued heartbeats out under the lock and sends them after
// releasing it.
func cockroach10214(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		type replica struct{ raftMu, mu *mutex }
		coalescedMu := newMutex(t, "coalesced_mu")
		responses := []int{1, 2}
		var replicas []*replica
		for i := 0; i < 2; i++ {
			replicas = append(replicas, &replica{newMutex(t, fmt.Sprintf("raft_mu_%d", i)), newMutex(t, fmt.Sprintf("replica_mu_%d", i))})
		}
		reportUnreachable := func(t *sched.Task, r *replica) error {
			if err := r.raftMu.lock(t); err != nil {
				return err
			}
			return r.raftMu.unlock(t)
		}
		sendQueued := func(t *sched.Task) error {
			if err := coalescedMu.lock(t); err != nil {
				return err
			}
			queued := len(responses)
			if fixed {
				if err := coalescedMu.unlock(t); err != nil {
					return err
				}
			}
			for i := 0; i < queued; i++ {
				for _, r := range replicas {
					if err := reportUnreachable(t, r); err != nil {
						return err
					}
				}
			}
			if fixed {
				return nil
			}
			return coalescedMu.unlock(t)
		}
		tick := func(t *sched.Task) error {
			r := replicas[0]
			for _, m := range []*mutex{r.raftMu, r.mu} {
				if err := m.lock(t); err != nil {
					return err
				}
			}
			for i := 0; i < 2; i++ { // maybeCoalesceHeartbeat
				if err := coalescedMu.lock(t); err != nil {
					return err
				}
				if err := coalescedMu.unlock(t); err != nil {
					return err
				}
			}
			for _, m := range []*mutex{r.mu, r.raftMu} {
				if err := m.unlock(t); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"send_queued_heartbeats", sendQueued}, task{"tick", tick})
		})
	}
}
