package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_6181", Subtype: rwr, Body: cockroach6181})

// cockroach6181: looking up a range descriptor read-locks the cache and,
// to log the cache, formats it with String, which read-locks it again;
// then it write-locks the cache. With three lookups at once, one's write
// lock can wait for another's first read lock and keep that reader's
// second read lock out. The fix formats the cache with the variant that
// expects the lock held.
func cockroach6181(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newRWMutex(t, "range_cache_mu")
		lookup := func(t *sched.Task) error {
			if err := mu.rlock(t); err != nil {
				return err
			}
			if !fixed { // fmt.Printf("%s", rdc) calls String
				if err := mu.rlock(t); err != nil {
					return err
				}
				if err := mu.runlock(t); err != nil {
					return err
				}
			}
			if err := mu.runlock(t); err != nil {
				return err
			}
			if err := mu.lock(t); err != nil {
				return err
			}
			return mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("coalesced_requests", func(t *sched.Task) error {
				wg := newWaitGroup(t, "lookups")
				return scope(t, func(n *sched.Nursery) error {
					for i := 0; i < 3; i++ {
						if err := wg.add(t, 1); err != nil {
							return err
						}
						if err := n.Go("lookup", func(t *sched.Task) error {
							if err := lookup(t); err != nil {
								return err
							}
							return wg.done(t)
						}); err != nil {
							return err
						}
					}
					return wg.wait(t)
				})
			})
		})
	}
}
