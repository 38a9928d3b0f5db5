package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_13135", Subtype: abba, Body: kubernetes13135})

// kubernetes13135: the cacher's caching loop takes the cacher's lock and
// lists into the watch cache, whose Replace takes the watch cache's lock
// and, through its replace callback, releases the cacher's. An event
// added to the watch cache takes the watch cache's lock and calls the
// event callback, which takes the cacher's lock. The loop's next pass
// takes the cacher's lock then the watch cache's; the event holds the
// watch cache's and waits for the cacher's. The fix calls the event
// callback after releasing the watch cache's lock.
func kubernetes13135(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		cacherMu := newMutex(t, "cacher")
		watchMu := newRWMutex(t, "watch_cache")
		initialized := newWaitGroup(t, "initialized")
		initOnce := false
		stopCh := sched.NewChan[struct{}](s, "stop_channel", 0)
		startCaching := func(t *sched.Task) error {
			if err := cacherMu.lock(t); err != nil {
				return err
			}
			if err := watchMu.lock(t); err != nil { // Replace
				return err
			}
			if !initOnce { // onReplace
				initOnce = true
				if err := initialized.done(t); err != nil {
					return err
				}
			}
			if err := cacherMu.unlock(t); err != nil {
				return err
			}
			return watchMu.unlock(t)
		}
		add := func(t *sched.Task) error {
			if err := watchMu.lock(t); err != nil { // processEvent
				return err
			}
			if fixed {
				if err := watchMu.unlock(t); err != nil {
					return err
				}
			}
			if err := cacherMu.lock(t); err != nil { // onEvent
				return err
			}
			if err := cacherMu.unlock(t); err != nil {
				return err
			}
			if fixed {
				return nil
			}
			return watchMu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := initialized.add(t, 1); err != nil {
				return err
			}
			if err := n.Go("caching_loop", func(t *sched.Task) error {
				for {
					if _, _, ready := stopCh.TryRecv(t); ready {
						return nil
					}
					if err := startCaching(t); err != nil {
						return err
					}
				}
			}); err != nil {
				return err
			}
			if err := initialized.wait(t); err != nil {
				return err
			}
			return goAll(n, task{"watch_cache_add", add}, task{"stopper", stopCh.Close})
		})
	}
}
