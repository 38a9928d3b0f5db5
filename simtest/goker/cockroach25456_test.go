package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_25456", Subtype: commChan, Body: cockroach25456})

// cockroach25456: when a consistency check fails, the consistency queue
// asks whether the store is quiescing, to decide whether the error is
// worth logging, by receiving from the stopper's quiesce channel: a
// receive that blocks until the store actually quiesces, which in the
// test never happens. The fix asks without blocking.
func cockroach25456(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		quiescer := sched.NewChan[struct{}](t.Scheduler(), "quiescer", 0)
		process := func(t *sched.Task) error {
			if fixed {
				quiescer.TryRecv(t)
				return nil
			}
			_, _, err := quiescer.Recv(t)
			return err
		}
		for i := 0; i < 2; i++ {
			if err := process(t); err != nil {
				return err
			}
		}
		return nil
	}
}
