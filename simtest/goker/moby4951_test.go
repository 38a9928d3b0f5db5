package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_4951", Subtype: abba, Body: moby4951})

// moby4951: deleting a device takes the device set's lock, then the
// device's own lock, and while removing the device releases the set's
// lock to wait and takes it again, still holding the device's lock. A
// second deletion of the same device takes the set's lock in that gap and
// waits for the device's lock: each holds the lock the other needs. The
// fix takes the device's lock before the set's.
func moby4951(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		devices := newMutex(t, "device_set")
		info := newMutex(t, "dev_info_lock")
		deleteDevice := func(t *sched.Task) error {
			order := []*mutex{devices, info}
			if fixed {
				order = []*mutex{info, devices}
			}
			for _, m := range order {
				if err := m.lock(t); err != nil {
					return err
				}
			}
			// removeDeviceAndWait: the set is unlocked while waiting.
			if err := devices.unlock(t); err != nil {
				return err
			}
			if err := t.Sleep(1); err != nil {
				return err
			}
			if err := devices.lock(t); err != nil {
				return err
			}
			if err := info.unlock(t); err != nil {
				return err
			}
			return devices.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"delete_device", deleteDevice}, task{"delete_device", deleteDevice})
		})
	}
}
