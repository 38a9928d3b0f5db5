package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_1321", Subtype: mixedLock, Body: kubernetes1321})

// kubernetes1321: the watch mux's loop distributes each event to every
// watcher by a blocking send on the watcher's result channel, holding the
// mux's lock. Stopping a watcher takes that lock to remove the watcher
// and close its channel. A watcher that is stopped instead of read keeps
// the loop blocked on its send, with the lock, and Stop waits for the
// lock forever. The fix marks the watcher stopped before taking the lock,
// and the loop gives up a send to a stopped watcher.
func kubernetes1321(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		type watcher struct{ result, stopped *sched.Chan[struct{}] }
		lock := newMutex(t, "mux_lock")
		globalMtx := newMutex(t, "global_mtx")
		watchers := map[int]*watcher{}
		distribute := func(t *sched.Task) error {
			if err := lock.lock(t); err != nil {
				return err
			}
			defer lock.unlock(t)
			if err := globalMtx.lock(t); err != nil {
				return err
			}
			defer globalMtx.unlock(t)
			for id := 0; id < len(watchers)+1; id++ { // in id order: map order would not replay
				w, ok := watchers[id]
				if !ok {
					continue
				}
				cases := []sched.SelectCase{w.result.SendCase(struct{}{})}
				if fixed {
					cases = append(cases, w.stopped.RecvCase(nil, nil))
				}
				if _, err := sched.Select(t, cases...); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("mux_loop", func(t *sched.Task) error {
				for i := 0; i < 3; i++ {
					if err := distribute(t); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
			w := &watcher{sched.NewChan[struct{}](s, "result", 0), sched.NewChan[struct{}](s, "stopped", 0)}
			if err := globalMtx.lock(t); err != nil { // Watch
				return err
			}
			watchers[0] = w
			if err := globalMtx.unlock(t); err != nil {
				return err
			}
			if fixed { // Stop
				if err := w.stopped.Close(t); err != nil {
					return err
				}
			}
			if err := lock.lock(t); err != nil { // stopWatching
				return err
			}
			delete(watchers, 0)
			if err := w.result.Close(t); err != nil {
				return err
			}
			return lock.unlock(t)
		})
	}
}
