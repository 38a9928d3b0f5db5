package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_1055", Subtype: mixedWG, Body: cockroach1055})

// cockroach1055: a stopper's worker checks that the stopper is not
// draining and then takes the stopper's lock to register a task. Stop
// takes that lock, closes the stop channel and waits, still holding the
// lock, for every worker to finish. A worker that passed the draining
// check before Stop took the lock blocks on the lock and never sees the
// stop channel: Stop waits for the worker, the worker for Stop's lock.
// The fix checks the draining flag under the lock and has Stop release
// the lock before waiting for the workers.
func cockroach1055(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		type stopper struct {
			stopCh   *sched.Chan[struct{}]
			stop     *waitGroup
			drain    *waitGroup
			mu       *mutex
			draining bool
		}
		var stoppers []*stopper
		for i := 0; i < 3; i++ {
			stoppers = append(stoppers, &stopper{stopCh: sched.NewChan[struct{}](t.Scheduler(), "stopper", 0),
				stop: newWaitGroup(t, "stop"), drain: newWaitGroup(t, "drain"), mu: newMutex(t, "stopper_mu")})
		}
		// startTask registers a task unless the stopper is draining, and
		// runs it: the task is done at once.
		startTask := func(t *sched.Task, s *stopper) error {
			if !fixed {
				draining := s.draining // atomic.LoadInt32
				if err := t.Yield(); err != nil {
					return err
				}
				if draining {
					return nil
				}
			}
			if err := s.mu.lock(t); err != nil {
				return err
			}
			started := !fixed || !s.draining
			if started {
				if err := s.drain.add(t, 1); err != nil {
					return err
				}
			}
			if err := s.mu.unlock(t); err != nil {
				return err
			}
			if started {
				return s.drain.done(t)
			}
			return nil
		}
		quiesce := func(t *sched.Task, s *stopper) error {
			if err := s.mu.lock(t); err != nil {
				return err
			}
			s.draining = true
			if err := s.drain.wait(t); err != nil {
				return err
			}
			s.draining = false
			return s.mu.unlock(t)
		}
		stop := func(t *sched.Task, s *stopper) error {
			if err := s.mu.lock(t); err != nil {
				return err
			}
			s.draining = true
			if err := s.drain.wait(t); err != nil {
				return err
			}
			if fixed {
				if err := s.mu.unlock(t); err != nil {
					return err
				}
			}
			if err := s.stopCh.Close(t); err != nil {
				return err
			}
			if err := s.stop.wait(t); err != nil {
				return err
			}
			if fixed {
				return nil
			}
			return s.mu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			for _, s := range stoppers {
				if err := s.stop.add(t, 1); err != nil {
					return err
				}
				if err := n.Go("worker", func(t *sched.Task) error {
					if err := startTask(t, s); err != nil {
						return err
					}
					if _, _, err := s.stopCh.Recv(t); err != nil {
						return err
					}
					return s.stop.done(t)
				}); err != nil {
					return err
				}
			}
			for _, s := range stoppers {
				if err := quiesce(t, s); err != nil {
					return err
				}
			}
			for _, s := range stoppers {
				if err := stop(t, s); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
