package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "grpc_862", Subtype: commChanCtx, Body: grpc862, MaxSteps: 20_000, Livelock: true})

// grpc862: dialing starts a task that keeps retrying the connection, with
// a growing backoff, until the connection's context is cancelled. When
// the dial's own context is cancelled, DialContext's deferred cleanup
// means to close the connection, but tests the connection it returns,
// which is nil on that path: nothing ever cancels the retrying task, and
// it retries forever (simtest reports the run as a livelock; MaxSteps is
// 20,000 for this kernel). The caller gets nil on the other path too, so
// it has nothing to close either. The fix returns the connection it made
// and closes that one.
func grpc862(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		dialCtx := newCtx(t, "dial_ctx")
		dial := func(t *sched.Task) error {
			ccCtx := newCtx(t, "client_conn_ctx")
			acCtx := ccCtx.withCancel(t, "addr_conn_ctx")
			return scope(t, func(n *sched.Nursery) error {
				if err := n.Go("reset_transport", func(t *sched.Task) error {
					for retries := 1; ; retries++ {
						sleep := 2 * time.Nanosecond * time.Duration(retries)
						i, err := sched.Select(t, sched.After(t, sleep).RecvCase(nil, nil), acCtx.done.RecvCase(nil, nil))
						if err != nil || i == 1 {
							return err
						}
					}
				}); err != nil {
					return err
				}
				// DialContext's deferred cleanup, then the caller, which
				// closes the connection it gets.
				var conn *goCtx // GoKer's DialContext never sets its result
				if fixed {
					conn = ccCtx
				}
				if _, _, ready := dialCtx.done.TryRecv(t); ready {
					if conn != nil {
						if err := conn.cancel(t); err != nil {
							return err
						}
					}
					conn = nil
				}
				if conn != nil {
					return conn.cancel(t)
				}
				return nil
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"dial_context", dial}, task{"cancel", dialCtx.cancel})
		})
	}
}
