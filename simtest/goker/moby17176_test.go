package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_17176", Subtype: doubleLock, Body: moby17176})

// moby17176: cleaning up deleted devices takes the device set's lock and,
// when there is nothing to clean, returns without releasing it. The test
// then checks that the lock was released by taking it on another task,
// with a timeout: the timeout fires, the test goes on, and that task
// waits for the lock forever. The fix releases the lock on that path too.
func moby17176(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		devices := newMutex(t, "device_set")
		nrDeletedDevices := 0
		cleanupDeletedDevices := func(t *sched.Task) error {
			if err := devices.lock(t); err != nil {
				return err
			}
			if nrDeletedDevices == 0 {
				if fixed {
					return devices.unlock(t)
				}
				return nil
			}
			return devices.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := cleanupDeletedDevices(t); err != nil {
				return err
			}
			doneChan := sched.NewChan[bool](t.Scheduler(), "done_chan", 0)
			if err := n.Go("lock_check", func(t *sched.Task) error {
				if err := devices.lock(t); err != nil {
					return err
				}
				defer devices.unlock(t)
				return doneChan.Send(t, true)
			}); err != nil {
				return err
			}
			_, err := sched.Select(t, sched.After(t, time.Millisecond).RecvCase(nil, nil), doneChan.RecvCase(nil, nil))
			return err
		})
	}
}
