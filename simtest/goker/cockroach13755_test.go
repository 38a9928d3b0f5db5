package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "cockroach_13755", Subtype: commChanCtx, Body: cockroach13755})

// cockroach13755: a query's rows start a task that waits for the rows'
// context to be cancelled and then closes them; closing the rows is what
// cancels the context. The buggy caller never closes its rows, so the
// task waits forever. The fix closes the rows when the caller is done.
func cockroach13755(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		closed := false
		err := scope(t, func(n *sched.Nursery) error {
			rowsCtx := newCtx(t, "rows_ctx")
			if err := n.Go("rows_await_done", func(t *sched.Task) error {
				if err := rowsCtx.wait(t); err != nil {
					return err
				}
				closed = true // rs.close(ctx.Err())
				return nil
			}); err != nil {
				return err
			}
			if fixed {
				return rowsCtx.cancel(t) // rs.Close
			}
			return nil
		})
		if err == nil && !closed {
			return errors.New("the rows were not closed")
		}
		return err
	}
}
