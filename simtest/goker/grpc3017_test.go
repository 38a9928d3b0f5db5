package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "grpc_3017", Subtype: doubleLock, Body: grpc3017})

// grpc3017: removing a sub-connection from the balancer's cache starts a
// timer whose function deletes it later, under the cache's lock. A new
// sub-connection for the same address cancels the deletion; when the
// timer has already fired, cancelling marks the entry instead, and the
// timer's function, seeing the mark, returns without releasing the lock.
// The next cache operation blocks forever. The fix releases the lock on
// that return too.
func grpc3017(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		type entry struct {
			sc            int
			cancel        func()
			abortDeleting bool
		}
		mu := newMutex(t, "lb_cache_mu")
		cache := map[int]*entry{}
		toAddr := map[int]int{}
		const addr = 1
		newSubConn := func(t *sched.Task) (int, error) {
			if err := mu.lock(t); err != nil {
				return 0, err
			}
			if e, ok := cache[addr]; ok {
				e.cancel()
				delete(cache, addr)
				return e.sc, mu.unlock(t)
			}
			toAddr[1] = addr
			return 1, mu.unlock(t)
		}
		removeSubConn := func(t *sched.Task, n *sched.Nursery, sc int) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			a, ok := toAddr[sc]
			if _, cached := cache[a]; !ok || cached {
				return mu.unlock(t)
			}
			e := &entry{sc: sc}
			cache[a] = e
			tm, err := sched.AfterFunc(t, n, time.Nanosecond, func(t *sched.Task) error { // ccc.timeout
				if err := mu.lock(t); err != nil {
					return err
				}
				if e.abortDeleting {
					if fixed {
						return mu.unlock(t)
					}
					return nil
				}
				delete(toAddr, sc)
				delete(cache, a)
				return mu.unlock(t)
			})
			if err != nil {
				return err
			}
			e.cancel = func() {
				if !tm.Stop() {
					e.abortDeleting = true
				}
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			sc, err := newSubConn(t)
			if err != nil {
				return err
			}
			for i := 0; i < 5; i++ {
				if err := removeSubConn(t, n, sc); err != nil {
					return err
				}
				if sc, err = newSubConn(t); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
