package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_13197", Subtype: commChanCtx, Body: cockroach13197})

// cockroach13197: beginning a transaction starts a watcher that waits for
// the transaction's context to be cancelled, which only a rollback does.
// The test begins a transaction and never ends it: the watcher waits
// forever (in Go a leaked goroutine). The fix rolls the transaction back,
// cancelling its context.
func cockroach13197(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		return scope(t, func(n *sched.Nursery) error {
			txCtx := newCtx(t, "tx_ctx")
			if err := n.Go("tx_await_done", func(t *sched.Task) error { return txCtx.wait(t) }); err != nil {
				return err
			}
			if fixed {
				return txCtx.cancel(t) // tx.Rollback
			}
			return nil
		})
	}
}
