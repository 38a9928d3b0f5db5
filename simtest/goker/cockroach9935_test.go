package goker

import (
	"math/rand/v2"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "cockroach_9935", Subtype: doubleLock, Body: cockroach9935})

// cockroach9935: writing a log entry takes the logger's lock and, when
// creating the log file fails (at random, three times in four), calls
// exit, which takes the same lock again: the task blocks on a lock it
// holds. The fix releases the lock before exit.
func cockroach9935(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rng := rand.New(rand.NewPCG(t.Scheduler().Config().Seed, 9935))
		mu := newMutex(t, "logging_mu")
		exit := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("output_log_entry", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				if rng.IntN(8)%4 > 0 { // createFile failed
					if fixed {
						if err := mu.unlock(t); err != nil {
							return err
						}
						return exit(t)
					}
					if err := exit(t); err != nil {
						return err
					}
				}
				return mu.unlock(t)
			})
		})
	}
}
