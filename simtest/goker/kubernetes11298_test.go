package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_11298", Subtype: commChanCV, Body: kubernetes11298})

// kubernetes11298: a notifier's service loop holds the notifier's lock
// and waits on its condition variable through a helper task (the wait
// runs on the helper, which closes a channel when woken), while another
// loop keeps signalling until it is aborted. When the signalling loop has
// finished, the service loop signals once itself and waits for the
// helper; but the helper may not be waiting yet, the signal is lost, and
// the helper then waits for a signal nobody will send. The fix keeps
// signalling until the helper is done.
func kubernetes11298(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		lock := newMutex(t, "notifier_lock")
		cond := newCond(lock)
		done := sched.NewChan[struct{}](s, "done", 0)
		finished := sched.NewChan[struct{}](s, "finished", 0)
		closed := func(t *sched.Task, c *sched.Chan[struct{}]) bool {
			_, _, ready := c.TryRecv(t)
			return ready
		}
		return scope(t, func(n *sched.Nursery) error {
			serviceLoop := func(t *sched.Task) error {
				if err := lock.lock(t); err != nil {
					return err
				}
				defer lock.unlock(t)
				for !closed(t, finished) {
					ch := sched.NewChan[struct{}](s, "waited", 0)
					if err := n.GoFrom(t, "cond_wait", func(t *sched.Task) error {
						if err := cond.wait(t); err != nil {
							return err
						}
						return ch.Close(t)
					}); err != nil {
						return err
					}
					i, err := sched.Select(t, finished.RecvCase(nil, nil), ch.RecvCase(nil, nil))
					if err != nil || i == 1 {
						continue
					}
					for {
						if err := cond.signal(t); err != nil {
							return err
						}
						if !fixed {
							_, _, err := ch.Recv(t)
							return err
						}
						if closed(t, ch) {
							return nil
						}
						if err := t.Yield(); err != nil {
							return err
						}
					}
				}
				return nil
			}
			// until runs fn until abort is closed, as wait.Until with period 0.
			until := func(t *sched.Task, fn sched.Func, abort *sched.Chan[struct{}]) error {
				for !closed(t, abort) {
					if err := fn(t); err != nil {
						return err
					}
					if _, err := sched.Select(t, abort.RecvCase(nil, nil), sched.After(t, 0).RecvCase(nil, nil)); err != nil {
						return err
					}
				}
				return nil
			}
			signaller := func(t *sched.Task) error {
				defer finished.Close(t)
				return until(t, func(t *sched.Task) error {
					for !closed(t, done) {
						if err := lock.lock(t); err != nil {
							return err
						}
						if err := cond.signal(t); err != nil {
							return err
						}
						if err := lock.unlock(t); err != nil {
							return err
						}
					}
					return nil
				}, done)
			}
			return goAll(n, task{"signaller", signaller},
				task{"service_loop", func(t *sched.Task) error { return until(t, serviceLoop, done) }},
				task{"closer", func(t *sched.Task) error {
					if err := t.SleepFor(300 * time.Nanosecond); err != nil {
						return err
					}
					return done.Close(t)
				}})
		})
	}
}
