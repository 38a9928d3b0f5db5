package sched

import (
	"context"
	"runtime"
	"sync"

	"github.com/cbcsim/cbcsim/nursery"
)

// Blocking runs fn, which may block (file and network I/O, a Go channel, a
// lock, a call into a library that knows nothing of tasks), without
// holding a worker: other tasks keep running on every worker meanwhile, as
// the Go runtime hands its processor off during a system call. The task is
// Blocked until fn returns.
//
// ctx is the task's Context: it is cancelled as soon as the task is
// cancelled (a sibling failed, a timeout, an explicit Cancel), so fn
// should pass it to whatever it calls. The task observes its cancellation
// when fn returns: Blocking then returns the *CancelError, not fn's error;
// otherwise it returns fn's error. A panic in fn is the task's panic, and a
// runtime.Goexit in fn ends the task as a Goexit in its body does.
//
// fn must return once ctx is cancelled: a task inside Blocking is never
// taken for deadlocked, and its nursery, like every nursery, waits for it.
//
// Blocking is a checkpoint and costs one op and one syscalls. fn must not
// call methods of t or of any task: it runs on a goroutine of its own
// while t is parked. In real mode (Run) each call starts that goroutine;
// a driver that steps the scheduler itself (the seeded simulator) runs fn
// inline instead, within the step that calls Blocking, so that the
// schedule stays a function of the seed: nothing else runs meanwhile and
// cancellation cannot arrive during the call (ctx is already cancelled if
// the task was). docs/semantics.md has the reasoning.
func (t *Task) Blocking(fn func(ctx context.Context) error) error {
	if err := t.point(Cost{Ops: 1, Syscalls: 1}); err != nil {
		return err
	}
	ctx := t.Context()
	if !t.s.real.Load() {
		return t.blockingInline(ctx, fn)
	}
	b := &blockingWait{t: t}
	t.s.blockingN.Add(1) // before fn can end: the deadlock check must see the call
	go b.run(ctx, fn)
	t.w.blockOn = b
	t.siteHere()
	t.suspend(reasonBlock)
	// fn has returned: the worker found it done when it parked the task, or
	// its goroutine woke the task. b's fields were written before either.
	switch {
	case b.panicked != nil:
		panic(b.panicked)
	case b.goexit:
		runtime.Goexit()
	}
	if err := t.observe(); err != nil {
		return err
	}
	return b.err
}

// blockingInline is Blocking under a driver that steps the scheduler
// itself: fn runs on the driver's goroutine, within the current step.
func (t *Task) blockingInline(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	if cerr := t.observe(); cerr != nil {
		return cerr
	}
	return err
}

// blockingWait is the blocker of a task inside Blocking in real mode. fn
// runs on a goroutine of its own from the start; whichever comes second,
// the worker parking the task or fn returning, moves the task on: park
// reports the wait already over, or the goroutine wakes the task.
type blockingWait struct {
	t *Task

	mu       sync.Mutex // guards done and parked
	done     bool       // fn has returned
	parked   bool       // the task is parked, waiting for fn
	err      error      // what fn returned
	panicked *PanicError
	goexit   bool // fn called runtime.Goexit
}

func (b *blockingWait) describe() string { return "blocking call" }

// park registers the task as waiting for fn unless fn has returned.
func (b *blockingWait) park(t *Task, _ *worker) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return false
	}
	b.parked = true
	t.state.Store(uint32(stateBlocked))
	return true
}

// run calls fn on the call's own goroutine and hands its outcome to the
// task. The deferred call also sees a panic and a runtime.Goexit of fn,
// which the task re-raises on its own fiber.
func (b *blockingWait) run(ctx context.Context, fn func(context.Context) error) {
	returned := false
	defer func() {
		if r := recover(); r != nil {
			b.panicked = capture(r)
		} else if !returned {
			b.goexit = true
		}
		s := b.t.s
		b.mu.Lock()
		b.done = true
		wake := b.parked
		b.mu.Unlock()
		if wake {
			s.wakeFrom(nil, b.t)
		}
		// After the task is queued: a deadlock check that sees no call in
		// flight then sees the task in a queue.
		s.blockingN.Add(-1)
	}()
	b.err = fn(ctx)
	returned = true
}

// Context returns a context.Context that is cancelled when t is
// cancelled, with a *CancelError as its cause (context.Cause), and when t
// ends. Pass it to whatever t calls that takes one; Blocking hands it to
// its function.
func (t *Task) Context() context.Context {
	t.enlist() // the cancellation walk must reach t to cancel its context (lean.go)
	e := t.ext()
	if e.ctx == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		t.mu.Lock() // markCancel reads cancel under t.mu
		e.ctx, e.ctxCancel = ctx, cancel
		t.mu.Unlock()
		// Marked before markCancel could see cancel: cancel here.
		if r := t.marked(); r != 0 {
			cancel(&CancelError{Reason: nursery.Reason(r)})
		}
	}
	return e.ctx
}

// contextCancel is the cancel function of t's context, if it has one.
// Called with t.mu held.
func (t *Task) contextCancel() context.CancelCauseFunc {
	if t.taskExt == nil {
		return nil
	}
	return t.ctxCancel
}
