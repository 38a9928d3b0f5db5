package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_29733", Subtype: commCV, Body: moby29733})

// moby29733: a plugin is activated once, with a broadcast to the tasks
// waiting for it. Registering a new extension point handler marks every
// plugin inactive again, so that the handlers rerun, but nothing will
// activate them a second time: the next wait for the plugin waits
// forever. The fix leaves active plugins active when a handler is added.
func moby29733(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "activate_wait")
		activateWait := newCond(mu)
		handlers := newRWMutex(t, "extpoint_handlers")
		activated := false
		testActive := func(t *sched.Task) error {
			done := sched.NewChan[struct{}](t.Scheduler(), "done", 0)
			return scope(t, func(n *sched.Nursery) error {
				if err := n.Go("wait_active", func(t *sched.Task) error {
					if err := mu.lock(t); err != nil {
						return err
					}
					for !activated {
						if err := activateWait.wait(t); err != nil {
							return err
						}
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
					return done.Close(t)
				}); err != nil {
					return err
				}
				_, _, err := done.Recv(t)
				return err
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("activate", func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				activated = true
				if err := activateWait.broadcast(t); err != nil {
					return err
				}
				return mu.unlock(t)
			}); err != nil {
				return err
			}
			if err := testActive(t); err != nil {
				return err
			}
			if err := handlers.lock(t); err != nil { // Handle
				return err
			}
			if !fixed {
				activated = false
			}
			if err := handlers.unlock(t); err != nil {
				return err
			}
			return testActive(t)
		})
	}
}
