package goker

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "etcd_7902", Subtype: mixedLock, Body: etcd7902})

// etcd7902: an election test runs rounds of three clients under one
// mutex. In each round a client validates (remembering the current
// "next round" channel) and releases; the leader's release closes that
// channel and makes a new one, and a follower's release waits for it to
// be closed. Releases run holding the mutex, so a follower waiting in its
// release keeps the leader from ever taking the mutex to close the
// channel. The fix releases without holding the mutex (the leader keeps
// leading rounds until every follower has done its own).
func etcd7902(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const clients, rounds = 3, 3
		mu := newMutex(t, "rounds_mu")
		nextc := sched.NewChan[bool](t.Scheduler(), "nextc", 0)
		followersLeft := clients - 1
		client := func(i int) sched.Func {
			return func(t *sched.Task) error {
				var myNextc *sched.Chan[bool]
				release := func(t *sched.Task) error {
					if i == 0 { // the leader
						if err := nextc.Close(t); err != nil {
							return err
						}
						nextc = sched.NewChan[bool](t.Scheduler(), "nextc", 0)
					}
					_, _, err := myNextc.Recv(t)
					return err
				}
				for progress := 0; progress < rounds || (fixed && i == 0 && followersLeft > 0); progress++ {
					if err := mu.lock(t); err != nil {
						return err
					}
					myNextc = nextc // validate
					if err := mu.unlock(t); err != nil {
						return err
					}
					if fixed {
						if err := release(t); err != nil {
							return err
						}
						continue
					}
					if err := mu.lock(t); err != nil {
						return err
					}
					if err := release(t); err != nil {
						return err
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
				}
				if i != 0 {
					followersLeft--
				}
				return nil
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			for i := 0; i < clients; i++ {
				if err := n.Go(fmt.Sprintf("round_client_%d", i), client(i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
