package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_30408", Subtype: commCV, Body: moby30408})

// moby30408: waiting for a plugin to be active loops on a Cond until the
// plugin has a manifest. When activation fails, the plugin records the
// error but never gets a manifest and nobody broadcasts: the waiter waits
// forever. The fix broadcasts on failure too, and the waiter stops
// waiting once activation has an error.
func moby30408(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "activate_wait")
		activateWait := newCond(mu)
		hasManifest := false
		var activateErr error
		waitActive := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			for !hasManifest && !(fixed && activateErr != nil) {
				if err := activateWait.wait(t); err != nil {
					return err
				}
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			done := sched.NewChan[struct{}](t.Scheduler(), "done", 0)
			if err := goAll(n,
				task{"activate", func(t *sched.Task) error {
					if err := mu.lock(t); err != nil {
						return err
					}
					activateErr = errors.New("some junk happened")
					if fixed {
						if err := activateWait.broadcast(t); err != nil {
							return err
						}
					}
					return mu.unlock(t)
				}},
				task{"wait_active", func(t *sched.Task) error {
					if err := waitActive(t); err != nil {
						return err
					}
					return done.Close(t)
				}}); err != nil {
				return err
			}
			_, _, err := done.Recv(t)
			return err
		})
	}
}
