package sched

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/cbcsim/cbcsim/nursery"
)

// CancelError is what a checkpoint returns once the task has been marked
// cancelled. A body returns it (possibly wrapped) and the task's result
// becomes cancelled:REASON.
type CancelError struct{ Reason nursery.Reason }

func (e *CancelError) Error() string { return "cancelled: " + e.Reason.String() }

// ErrCancelled matches every *CancelError under errors.Is, whatever its
// reason: errors.Is(err, sched.ErrCancelled) asks "was this task cancelled?".
var ErrCancelled = errors.New("cancelled")

// Is makes errors.Is(err, ErrCancelled) true for a cancellation.
func (e *CancelError) Is(target error) bool { return target == ErrCancelled }

// ChildError is what a nursery returns to its owner when a child failed and
// the nursery does not catch: the first child error (first error wins).
// Like errgroup, it carries the error value the child returned (or its
// *PanicError), so errors.Is and errors.As see through it.
type ChildError struct {
	Nursery string // the nursery's label
	Child   Result // the first failing child's result
	Text    string // the error text that propagates
	Err     error  // what the child's body returned, or its *PanicError; nil if unknown

	cls errClass // Err's chain classified once, so that a chain of n nested failures costs O(n), not O(n^2)
}

func (e *ChildError) Error() string { return e.Text }

// Unwrap returns the child's own error.
func (e *ChildError) Unwrap() error { return e.Err }

// Codes of the failures the scheduler imposes (SchedError.Code). A task
// that ends with one has the result err:CODE; docs/semantics.md has the
// full error table, with the codes the seeds list that sched declines.
const (
	CodeResourceExhausted    = "ResourceExhausted"    // a budget component ran out and nothing recharged it
	CodeSpawnBudgetExhausted = "SpawnBudgetExhausted" // a spawn found a spawn_count pool at 0
	CodeCapabilityDenied     = "CapabilityDenied"     // the task lacks the capability the operation needs
	CodeChannelClosed        = "ChannelClosed"        // a send on, or a second close of, a closed channel
	CodeNurseryNotActive     = "NurseryNotActive"     // a spawn into a nursery that no longer admits the caller
	CodeNurseryTimeout       = "NurseryTimeout"       // a nursery with TimeoutFails ran out of time
	CodeForeignChan          = "ForeignChan"          // an operation on a Chan made by another Scheduler
	CodeForeignContext       = "ForeignContext"       // a Select that would wait on a context the scheduler does not drive
	CodeSchedulerUsed        = "SchedulerUsed"        // Run (or RunContext) on a scheduler that has already run
)

// The sentinels: errors.Is(err, sched.ErrCapabilityDenied) is true for every
// *SchedError with that code, whatever its Detail.
var (
	ErrResourceExhausted    = &SchedError{Code: CodeResourceExhausted}
	ErrSpawnBudgetExhausted = &SchedError{Code: CodeSpawnBudgetExhausted}
	ErrCapabilityDenied     = &SchedError{Code: CodeCapabilityDenied}
	ErrChannelClosed        = &SchedError{Code: CodeChannelClosed}
	ErrNurseryNotActive     = &SchedError{Code: CodeNurseryNotActive}
	ErrNurseryTimeout       = &SchedError{Code: CodeNurseryTimeout}
	ErrForeignChan          = &SchedError{Code: CodeForeignChan}
	ErrForeignContext       = &SchedError{Code: CodeForeignContext}
	ErrSchedulerUsed        = &SchedError{Code: CodeSchedulerUsed}
)

// SchedError is a failure the scheduler imposes on a task.
type SchedError struct {
	Code   string // one of the Code* constants
	Detail string // what was refused, for people
}

// Error gives the code and what was refused; the task's result carries the
// code alone (err:CODE).
func (e *SchedError) Error() string {
	if e.Detail == "" {
		return e.Code
	}
	return e.Code + ": " + e.Detail
}

// Is makes errors.Is(err, &SchedError{Code: c}) true for every error with
// code c: a target without Detail matches on the code alone.
func (e *SchedError) Is(target error) bool {
	t, ok := target.(*SchedError)
	return ok && t.Code == e.Code && (t.Detail == "" || t.Detail == e.Detail)
}

// PanicError is a panic captured in a task body, with the stack of the
// panicking goroutine. Panics never cross a task boundary: they become the
// task's result (panic:MSG).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprint(e.Value) }

// Unwrap returns the panic value when it is an error, so that errors.Is and
// errors.As reach it (a runtime.Error, an error a body panicked with, or
// ErrGoexit).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ErrGoexit is the PanicError.Value of a task whose body (or a cleanup, or a
// Blocking function) called runtime.Goexit, as t.FailNow, t.Fatal and t.Skip
// of package testing do. The task ends as if it had panicked with it
// (panic:runtime.Goexit in a task): its cleanups run, its nurseries are
// awaited, and its worker goes on.
var ErrGoexit = errors.New("runtime.Goexit in a task")

// Result is a task's or a child's result (ok, ok:VALUE, err:ERR, panic:MSG,
// cancelled:REASON).
type Result = nursery.Result

// capture turns a recovered value into a *PanicError, keeping the first
// capture's stack when a panic is re-raised through several scopes.
func capture(p any) *PanicError {
	if pe, ok := p.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: p, Stack: debug.Stack()}
}

// resultOf maps what a body returned to the task's result.
func resultOf(err error, value int64, hasValue bool) Result {
	if err == nil {
		if hasValue {
			return nursery.OKValue(value)
		}
		return nursery.OK()
	}
	c := classify(err)
	if c.cancel != nil {
		return nursery.CancelledBy(c.cancel.Reason)
	}
	if c.sched != nil {
		return nursery.Err(c.sched.Code)
	}
	return nursery.Err(err.Error())
}

// errClass is the first *CancelError and the first *SchedError in an
// error's chain, as errors.As finds them.
type errClass struct {
	cancel *CancelError
	sched  *SchedError
}

// classify is errors.As for both types at once, except that it stops at a
// *ChildError and takes the classification made when that was created: a
// recursive spawner fails up a chain of one ChildError per level, and
// walking it whole at every level would be quadratic in the depth.
func classify(err error) errClass {
	var c errClass
	for err != nil {
		switch e := err.(type) {
		case *ChildError:
			c.cancel = cmp.Or(c.cancel, e.cls.cancel)
			c.sched = cmp.Or(c.sched, e.cls.sched)
			return c
		case *CancelError:
			c.cancel = cmp.Or(c.cancel, e)
		case *SchedError:
			c.sched = cmp.Or(c.sched, e)
		case interface{ Unwrap() []error }, interface{ As(any) bool }:
			// A tree or a custom As: errors.As's own rules.
			if c.cancel == nil {
				errors.As(err, &c.cancel)
			}
			if c.sched == nil {
				errors.As(err, &c.sched)
			}
			return c
		}
		err = errors.Unwrap(err)
	}
	return c
}
