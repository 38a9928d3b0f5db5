package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "serving_2137", Subtype: mixedLock, Body: serving2137})

// serving2137: the breaker test makes two requests, each holding a lock
// its thunk will wait for, then releases them one by one, waiting after
// each release for that request to be accepted. The breaker admits one
// active request at a time: when the second request took the active slot
// first, its thunk waits for its lock, which the test releases only after
// the first request is accepted, and the first request waits for the
// active slot. The fix releases every request's lock before waiting for
// any acceptance.
func serving2137(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		pending := sched.NewChan[struct{}](s, "pending_requests", 2) // queue depth 1 + concurrency 1
		active := sched.NewChan[struct{}](s, "active_requests", 1)
		maybe := func(t *sched.Task, thunk sched.Func) (bool, error) {
			sent, err := pending.TrySend(t, struct{}{})
			if err != nil || !sent {
				return false, err
			}
			if err := active.Send(t, struct{}{}); err != nil {
				return false, err
			}
			if err := thunk(t); err != nil {
				return false, err
			}
			if _, _, err := active.Recv(t); err != nil {
				return false, err
			}
			_, _, err = pending.Recv(t)
			return true, err
		}
		type request struct {
			lock     *mutex
			accepted *sched.Chan[bool]
		}
		return scope(t, func(n *sched.Nursery) error {
			var requests []request
			for i := 0; i < 2; i++ {
				r := request{newMutex(t, "request_lock"), sched.NewChan[bool](s, "accepted", 1)}
				if err := r.lock.lock(t); err != nil {
					return err
				}
				start := newWaitGroup(t, "start")
				if err := start.add(t, 1); err != nil {
					return err
				}
				if err := n.Go("request", func(t *sched.Task) error {
					if err := start.done(t); err != nil {
						return err
					}
					ok, err := maybe(t, func(t *sched.Task) error {
						if err := r.lock.lock(t); err != nil {
							return err
						}
						return r.lock.unlock(t)
					})
					if err != nil {
						return err
					}
					return r.accepted.Send(t, ok)
				}); err != nil {
					return err
				}
				if err := start.wait(t); err != nil {
					return err
				}
				requests = append(requests, r)
			}
			for _, r := range requests { // unlockAll
				if err := r.lock.unlock(t); err != nil {
					return err
				}
				if fixed {
					continue
				}
				if _, _, err := r.accepted.Recv(t); err != nil {
					return err
				}
			}
			for _, r := range requests {
				if fixed {
					if _, _, err := r.accepted.Recv(t); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
}
