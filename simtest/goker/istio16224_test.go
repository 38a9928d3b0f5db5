package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "istio_16224", Subtype: mixedLock, Body: istio16224})

// istio16224: a config store monitor runs each event's handlers; the
// test's handler takes the test's lock and, holding it, reports on an
// unbuffered done channel. The test, after creating the event, takes and
// releases the same lock before receiving the report: when the handler
// has the lock first, it waits for the test's receive and the test waits
// for its lock. The fix reports after releasing the lock. (GoKer's
// monitor also drains its event channel with a blocking receive when
// stopped, which leaks it in both versions; here that drain does not
// block, so that the fixed version can end.)
func istio16224(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		eventCh := sched.NewChan[int](s, "event_ch", 0)
		done := sched.NewChan[bool](s, "done", 0)
		stop := sched.NewChan[struct{}](s, "stop", 0)
		lock := newMutex(t, "test_lock")
		handler := func(t *sched.Task) error {
			if err := lock.lock(t); err != nil {
				return err
			}
			if fixed {
				if err := lock.unlock(t); err != nil {
					return err
				}
				return done.Send(t, true)
			}
			if err := done.Send(t, true); err != nil {
				return err
			}
			return lock.unlock(t)
		}
		run := func(t *sched.Task) error {
			for {
				var ok bool
				i, err := sched.Select(t, stop.RecvCase(nil, nil), eventCh.RecvCase(nil, &ok))
				if err != nil {
					return err
				}
				if i == 0 {
					if _, ok, ready := eventCh.TryRecv(t); ready && ok {
						return eventCh.Close(t)
					}
					return nil
				}
				if ok {
					if err := handler(t); err != nil {
						return err
					}
				}
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("monitor_run", run); err != nil {
				return err
			}
			if err := eventCh.Send(t, 0); err != nil { // controller.Create
				return err
			}
			if err := lock.lock(t); err != nil {
				return err
			}
			if err := lock.unlock(t); err != nil {
				return err
			}
			if _, _, err := done.Recv(t); err != nil {
				return err
			}
			return stop.Close(t)
		})
	}
}
