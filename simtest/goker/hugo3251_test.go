package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "hugo_3251", Subtype: abba, Body: hugo3251})

// hugo3251: fetching a remote resource locks its URL through a table of
// per-URL mutexes: URLLock write-locks the table and, still holding it,
// locks the URL's mutex; URLUnlock read-locks the table to unlock the
// URL's mutex. A fetcher waiting for the URL inside URLLock holds the
// table, so the holder of the URL can never unlock it. The fix releases
// the table before waiting for the URL.
func hugo3251(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const url = "http://Foo.Bar/foo_Bar-Foo"
		table := newRWMutex(t, "remote_url_lock")
		urls := map[string]*mutex{}
		urlLock := func(t *sched.Task) error {
			if err := table.lock(t); err != nil {
				return err
			}
			um, ok := urls[url]
			if !ok {
				um = newMutex(t, "url_mu")
				urls[url] = um
			}
			if fixed {
				if err := table.unlock(t); err != nil {
					return err
				}
				return um.lock(t)
			}
			if err := um.lock(t); err != nil {
				return err
			}
			return table.unlock(t)
		}
		urlUnlock := func(t *sched.Task) error {
			if err := table.rlock(t); err != nil {
				return err
			}
			if err := urls[url].unlock(t); err != nil {
				return err
			}
			return table.runlock(t)
		}
		fetcher := func(t *sched.Task) error {
			for j := 0; j < 2; j++ {
				if err := urlLock(t); err != nil {
					return err
				}
				if err := urlUnlock(t); err != nil {
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			for i := 0; i < 3; i++ {
				if err := n.Go("res_get_remote", fetcher); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
