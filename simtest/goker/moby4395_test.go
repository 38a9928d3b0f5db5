package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_4395", Subtype: commChan, Body: moby4395})

// moby4395: a helper runs a function in a new task and hands its error
// back on an unbuffered channel. A caller that does not wait for the
// error (here, none does) leaves the task blocked on its send forever.
// The fix buffers the channel so the send never waits.
func moby4395(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		return scope(t, func(n *sched.Nursery) error {
			capacity := 0
			if fixed {
				capacity = 1
			}
			ch := sched.NewChan[error](t.Scheduler(), "result", capacity)
			return n.Go("go_helper", func(t *sched.Task) error {
				return ch.Send(t, errors.New("done"))
			})
		})
	}
}
