package nursery

import (
	"errors"
	"strings"
)

// The conditions a mutating call can refuse. Calls return them wrapped with
// the call's name ("nursery: Close: owner already awaits"); test them with
// errors.Is. A refused call changes nothing.
var (
	ErrNotOpen     = errors.New("nursery: not open")
	ErrTerminal    = errors.New("nursery: terminal")
	ErrAwaiting    = errors.New("nursery: owner already awaits")
	ErrBadChild    = errors.New("nursery: unknown child")
	ErrNotAdmitted = errors.New("nursery: child not admitted")
	ErrFinished    = errors.New("nursery: child already finished")
	ErrStarted     = errors.New("nursery: child already started")
	ErrBadResult   = errors.New("nursery: invalid result")
	ErrNotLean     = errors.New("nursery: not lean")
)

// opError names the call that refused. The values are built once, so a
// refusal does not allocate either.
type opError struct {
	op   string
	errs []error
}

func (e *opError) Error() string {
	return "nursery: " + e.op + ": " + strings.TrimPrefix(e.errs[0].Error(), "nursery: ")
}

func (e *opError) Unwrap() []error { return e.errs }

func opErr(op string, errs ...error) error { return &opError{op: op, errs: errs} }

var (
	// A spawn into a terminal nursery is both "not open" (the spawn is
	// refused: no child) and "terminal" (every mutating call on a terminal
	// nursery refuses).
	errSpawnTerminal = opErr("Spawn", ErrTerminal, ErrNotOpen)
	errSpawnNotOpen  = opErr("Spawn", ErrNotOpen)

	errStartTerminal    = opErr("Start", ErrTerminal)
	errStartBadChild    = opErr("Start", ErrBadChild)
	errStartNotAdmitted = opErr("Start", ErrNotAdmitted)
	errStartFinished    = opErr("Start", ErrFinished)
	errStartStarted     = opErr("Start", ErrStarted)

	errCompleteTerminal    = opErr("Complete", ErrTerminal)
	errCompleteBadResult   = opErr("Complete", ErrBadResult)
	errCompleteBadChild    = opErr("Complete", ErrBadChild)
	errCompleteNotAdmitted = opErr("Complete", ErrNotAdmitted)
	errCompleteFinished    = opErr("Complete", ErrFinished)

	errFinishTerminal = opErr("FinishMany", ErrTerminal)
	errFinishFinished = opErr("FinishMany", ErrFinished)
	errFinishNotLean  = opErr("FinishMany", ErrNotLean)

	errCloseTerminal = opErr("Close", ErrTerminal)
	errCloseAwaiting = opErr("Close", ErrAwaiting)
)
