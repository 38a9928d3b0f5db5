package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_25331", Subtype: commChanCtx, Body: kubernetes25331})

// kubernetes25331: an etcd watch's run waits for an error or for its
// context to be cancelled; given an error, it cancels the context itself
// and sends the result on an unbuffered channel that nobody reads, once
// the watch is stopped. Stopping the watch sends the error and cancels
// it: run blocks on its send forever. The fix leaves cancelling to Stop
// and has run give up the send when the context is cancelled.
func kubernetes25331(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		ctx := newCtx(t, "watch_ctx")
		resultChan := sched.NewChan[bool](s, "result_chan", 0)
		errChan := sched.NewChan[error](s, "err_chan", 0)
		run := func(t *sched.Task) error {
			var werr error
			i, err := sched.Select(t, errChan.RecvCase(&werr, nil), ctx.done.RecvCase(nil, nil))
			if err != nil || i == 1 {
				return err
			}
			if fixed {
				_, err := sched.Select(t, resultChan.SendCase(werr != nil), ctx.done.RecvCase(nil, nil))
				return err
			}
			if err := ctx.cancel(t); err != nil {
				return err
			}
			return resultChan.Send(t, werr != nil)
		}
		stop := func(t *sched.Task) error {
			if err := errChan.Send(t, errors.New("watch stopped")); err != nil {
				return err
			}
			return ctx.cancel(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"watch_run", run}, task{"watch_stop", stop})
		})
	}
}
