package sched

import "github.com/cbcsim/cbcsim/nursery"

// The nursery vocabulary, re-exported so that a Go program needs only this
// package: error modes, cancellation reasons, result kinds and outcomes.
type (
	Mode    = nursery.Mode
	Reason  = nursery.Reason
	Kind    = nursery.Kind
	Outcome = nursery.Outcome
)

// Error modes (docs/spec.md#nursery-modes).
const (
	FailFast        = nursery.FailFast
	CancelRemaining = nursery.CancelRemaining
	CollectAll      = nursery.CollectAll
)

// Cancellation reasons (docs/spec.md#cancellation).
const (
	Timeout           = nursery.Timeout
	SiblingFailed     = nursery.SiblingFailed
	NurseryExited     = nursery.NurseryExited
	ExplicitCancel    = nursery.ExplicitCancel
	ResourceExhausted = nursery.ResourceExhausted
	Deadlock          = nursery.Deadlock // real mode: nothing could run, tasks left
)

// Result kinds.
const (
	KindOK        = nursery.KindOK
	KindErr       = nursery.KindErr
	KindPanic     = nursery.KindPanic
	KindCancelled = nursery.KindCancelled
)
