package goker

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "cockroach_35931", Subtype: commChan, Body: cockroach35931})

// cockroach35931: cancelling a flow pushes a cancellation message into
// each of its inbound streams, one after the other, on the cancelling
// task. A processor waits on the right stream while the left one is
// full: the push into the left stream blocks and the right stream never
// gets its message. The fix pushes into each stream from a task of its
// own.
func cockroach35931(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		left := sched.NewChan[string](t.Scheduler(), "left", 1)
		right := sched.NewChan[string](t.Scheduler(), "right", 1)
		return scope(t, func(n *sched.Nursery) error {
			if err := left.Send(t, "row"); err != nil { // the left input is full
				return err
			}
			if err := n.Go("processor", func(t *sched.Task) error {
				// Waits for the right input, then drains the left one.
				if _, _, err := right.Recv(t); err != nil {
					return err
				}
				for i := 0; i < 2; i++ {
					if _, _, err := left.Recv(t); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
			// flow.cancel: the registry lock is released before the pushes.
			mu := newMutex(t, "flow_registry")
			if err := mu.lock(t); err != nil {
				return err
			}
			receivers := []*sched.Chan[string]{left, right}
			if err := mu.unlock(t); err != nil {
				return err
			}
			for i, r := range receivers {
				if !fixed {
					if err := r.Send(t, "cancelled"); err != nil {
						return err
					}
					continue
				}
				if err := n.Go(fmt.Sprintf("push_%d", i), func(t *sched.Task) error {
					return r.Send(t, "cancelled")
				}); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
