package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "syncthing_4829", Subtype: doubleLock, Body: syncthing4829})

// syncthing4829: removing a NAT mapping write-locks the mapping to clear
// its addresses and, when it removed any, notifies the subscribers, which
// read-locks the same mapping: a read lock under the task's own write
// lock never comes. The fix notifies after releasing the write lock.
func syncthing4829(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		serviceMu := newRWMutex(t, "service_mut")
		mappingMu := newRWMutex(t, "mapping_mut")
		addresses := map[string]int{"test": 0}
		notify := func(t *sched.Task) error {
			if err := mappingMu.rlock(t); err != nil {
				return err
			}
			return mappingMu.runlock(t)
		}
		clearAddresses := func(t *sched.Task) error {
			if err := mappingMu.lock(t); err != nil {
				return err
			}
			removed := len(addresses)
			clear(addresses)
			if removed > 0 && !fixed {
				if err := notify(t); err != nil {
					return err
				}
			}
			if err := mappingMu.unlock(t); err != nil {
				return err
			}
			if removed > 0 && fixed {
				return notify(t)
			}
			return nil
		}
		if err := serviceMu.lock(t); err != nil { // RemoveMapping
			return err
		}
		if err := clearAddresses(t); err != nil {
			return err
		}
		return serviceMu.unlock(t)
	}
}
