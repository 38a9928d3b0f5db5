package sched

import (
	"context"
	"errors"
	"fmt"

	"github.com/cbcsim/cbcsim/nursery"
)

// ErrDeadlock is RunContext's error when the run stopped with tasks left
// that nothing could wake, even after the root was cancelled
// (Result "err:deadlock" from Run).
var ErrDeadlock = errors.New("sched: deadlock: every task is blocked and no timer is pending")

// RunContext runs fn as the root task, as Run does, and returns its error
// as a Go programmer expects it: nil when the root completed; the very
// error value its body returned (a *ChildError from a nursery unwraps to
// the child's), so that errors.Is and errors.As see through it; the
// *PanicError of a panic; the *CancelError of a cancellation
// (errors.Is(err, ErrCancelled)); ErrDeadlock.
//
// ctx cancels the root: when ctx is done the root task is cancelled
// (reason ExplicitCancel), which reaches every task it owns as any
// cancellation does, and the error the run then ends with also wraps
// context.Cause(ctx), so that errors.Is(err, context.Canceled) (or
// context.DeadlineExceeded) holds. A scheduler runs once: a second Run or
// RunContext returns ErrSchedulerUsed.
//
// RunContext is real mode's entry; the seeded driver starts the root
// itself (package sched/driver), and ctx has no meaning there.
func (s *Scheduler) RunContext(ctx context.Context, name string, fn Func) error {
	if !s.used.CompareAndSwap(false, true) {
		return usedErr()
	}
	var stop func() bool
	res := s.drv().runWith(name, fn, func(root *Task) {
		if ctx.Done() == nil {
			return
		}
		// The cancellation comes from ctx's goroutine, as a nursery
		// timeout's from the clock's: every worker takes its locks
		// (worker.unshared), as after a timeout is armed. No worker
		// runs yet.
		for _, w := range s.workers {
			w.timed = true
		}
		stop = context.AfterFunc(ctx, func() { root.markCancel(nursery.ExplicitCancel, nil) })
	})
	if stop != nil {
		stop()
	}
	err := s.rootErr(res)
	if err != nil && ctx.Err() != nil && errors.Is(err, ErrCancelled) {
		return fmt.Errorf("%w (the run's context: %w)", err, context.Cause(ctx))
	}
	return err
}

// usedErr is the error of a second run of one scheduler.
func usedErr() error {
	return &SchedError{Code: CodeSchedulerUsed, Detail: "a Scheduler runs once: make another with New"}
}

// rootErr is the error behind the root's result res.
func (s *Scheduler) rootErr(res Result) error {
	switch res.Kind {
	case nursery.KindOK:
		return nil
	case nursery.KindCancelled:
		return &CancelError{Reason: res.Reason}
	}
	if !s.rootDone.Load() {
		return ErrDeadlock
	}
	if err := s.root.failure(); err != nil {
		return err
	}
	return errors.New(res.ErrorText())
}
