package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_1462", Subtype: mixedWG, Body: cockroach1462})

// cockroach1462: the local transport's worker sends events on an
// unbuffered channel, checking the stopper only between sends; the event
// processor receives them until the stopper stops. Stopping closes the
// stop channel and waits (a WaitGroup) for every worker: when the
// processor sees the stop first and returns, the transport's worker is
// blocked on a send nobody will take, and Stop waits for it forever. The
// fix makes the send itself give up when the stopper stops.
func cockroach1462(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		stopper := sched.NewChan[struct{}](s, "stopper", 0)
		events := sched.NewChan[int](s, "events", 0)
		mu := newMutex(t, "stopper_mu")
		drain := newCond(mu)
		stop := newWaitGroup(t, "stop")
		numTasks := 0
		transport := func(t *sched.Task) error {
			for {
				if _, _, ready := stopper.TryRecv(t); ready {
					return nil
				}
				if !fixed {
					if err := events.Send(t, 0); err != nil {
						return err
					}
					continue
				}
				i, err := sched.Select(t, stopper.RecvCase(nil, nil), events.SendCase(0))
				if err != nil || i == 0 {
					return err
				}
			}
		}
		processEvents := func(t *sched.Task) error {
			for {
				var ok bool
				i, err := sched.Select(t, events.RecvCase(nil, &ok), stopper.RecvCase(nil, nil))
				if err != nil || i == 1 || !ok {
					return err
				}
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			for _, w := range []task{{"transport", transport}, {"process_events", processEvents}} { // RunWorker
				if err := stop.add(t, 1); err != nil {
					return err
				}
				if err := n.Go(w.name, func(t *sched.Task) error {
					if err := w.fn(t); err != nil {
						return err
					}
					return stop.done(t)
				}); err != nil {
					return err
				}
			}
			if err := mu.lock(t); err != nil { // Stop: Quiesce
				return err
			}
			for numTasks > 0 {
				if err := drain.wait(t); err != nil {
					return err
				}
			}
			if err := mu.unlock(t); err != nil {
				return err
			}
			if err := stopper.Close(t); err != nil {
				return err
			}
			return stop.wait(t)
		})
	}
}
