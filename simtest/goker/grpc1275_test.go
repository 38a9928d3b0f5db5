package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "grpc_1275", Subtype: commChan, Body: grpc1275})

// grpc1275: a reader of an in-flight stream waits on the stream's receive
// buffer for a message. Closing the stream from the client should wake it
// with one, but does not; the test waits for the reader with a short
// timeout and goes on, and the reader waits forever. The fix has
// CloseStream deliver the message that ends the read.
func grpc1275(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		recv := sched.NewChan[bool](s, "recv_buffer", 0)
		donec := sched.NewChan[bool](s, "donec", 0)
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("stream_read", func(t *sched.Task) error {
				if _, _, err := recv.Recv(t); err != nil {
					return err
				}
				return donec.Close(t)
			}); err != nil {
				return err
			}
			if fixed { // CloseStream
				if err := recv.Send(t, true); err != nil {
					return err
				}
			}
			timeout := sched.NewTimer(t, 300*time.Nanosecond)
			i, err := sched.Select(t, donec.RecvCase(nil, nil), timeout.C.RecvCase(nil, nil))
			if err != nil {
				return err
			}
			if i == 0 && !timeout.Stop() {
				_, _, err = timeout.C.Recv(t)
			}
			return err
		})
	}
}
