package goker

import (
	"math/rand/v2"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_62464", Subtype: rwr, Body: kubernetes62464})

// kubernetes62464: the CPU manager's state reads a container's CPU set or
// the default one under a read lock, and its getters take the read lock
// again inside. The static policy, removing a container, write-locks the
// state in between: the waiting writer keeps the nested read lock out.
// The fix has the outer call use getters that expect the lock held.
func kubernetes62464(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rng := rand.New(rand.NewPCG(t.Scheduler().Config().Seed, 62464))
		mu := newRWMutex(t, "state_memory")
		nestedRead := func(t *sched.Task) error {
			if fixed { // the caller holds the read lock
				return nil
			}
			if err := mu.rlock(t); err != nil {
				return err
			}
			return mu.runlock(t)
		}
		getCPUSetOrDefault := func(t *sched.Task) error {
			if err := mu.rlock(t); err != nil {
				return err
			}
			if err := nestedRead(t); err != nil { // GetCPUSet
				return err
			}
			if rng.IntN(10) <= 5 { // no CPU set of its own
				if err := nestedRead(t); err != nil { // GetDefaultCPUSet
					return err
				}
			}
			return mu.runlock(t)
		}
		removeContainer := func(t *sched.Task) error {
			if err := mu.rlock(t); err != nil { // GetDefaultCPUSet
				return err
			}
			if err := mu.runlock(t); err != nil {
				return err
			}
			if err := mu.lock(t); err != nil { // SetDefaultCPUSet
				return err
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"reconcile_state", getCPUSetOrDefault}, task{"remove_container", removeContainer})
		})
	}
}
