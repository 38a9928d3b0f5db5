package nursery

import (
	"errors"
	"strconv"
	"strings"
)

// State is the nursery's place in its five-state machine
// (docs/spec.md#nursery-states).
type State uint8

const (
	Open       State = iota // accepting children
	Closing                 // the owner awaits; no new children; waiting for the rest
	Cancelling              // cancellation was requested; waiting for children to finish
	Closed                  // terminal: finished without a cancellation
	Cancelled               // terminal: finished after a cancellation
)

var stateNames = [...]string{"Open", "Closing", "Cancelling", "Closed", "Cancelled"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Terminal reports whether s is Closed or Cancelled. A terminal state never
// changes.
func (s State) Terminal() bool { return s == Closed || s == Cancelled }

// allowed lists the five transitions of docs/spec.md#nursery-states; every
// other pair is forbidden.
func allowed(from, to State) bool {
	switch {
	case from == Open && to == Closing,
		from == Open && to == Cancelling,
		from == Closing && to == Closed,
		from == Closing && to == Cancelling,
		from == Cancelling && to == Cancelled:
		return true
	}
	return false
}

// Allowed reports whether from→to is one of the five transitions of
// docs/spec.md#nursery-states.
func Allowed(from, to State) bool { return allowed(from, to) }

// Mode is the nursery's error mode (docs/spec.md#nursery-modes): what the
// first child error does to the siblings. The zero value is FailFast, the scenario default.
type Mode uint8

const (
	FailFast        Mode = iota // first error marks every unfinished sibling cancelled
	CancelRemaining             // first error cancels only the children that have not started
	CollectAll                  // errors cancel nothing
)

var modeNames = [...]string{"fail_fast", "cancel_remaining", "collect_all"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode parses the scenario spelling of a mode ("fail_fast", ...).
func ParseMode(s string) (Mode, bool) {
	for i, name := range modeNames {
		if s == name {
			return Mode(i), true
		}
	}
	return 0, false
}

// Reason is why a child or a nursery was cancelled.
type Reason uint8

const (
	NoReason          Reason = iota // never cancelled
	Timeout                         // the nursery's timeout fired
	SiblingFailed                   // a sibling's error, under FailFast or CancelRemaining
	NurseryExited                   // the owning scope ended while the child was unfinished
	ExplicitCancel                  // a `cancel` operation
	ResourceExhausted               // the budget ran out with nothing to recharge it
	// Deadlock: a real-mode run found every worker idle, no timer
	// pending and tasks left, and cancelled the root so that it could
	// end. It is not ResourceExhausted: nothing ran out, nothing could
	// run (docs/semantics.md).
	Deadlock
)

var reasonNames = [...]string{"NoReason", "Timeout", "SiblingFailed", "NurseryExited", "ExplicitCancel", "ResourceExhausted", "Deadlock"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

func (r Reason) valid() bool { return r > NoReason && int(r) < len(reasonNames) }

// ParseReason parses one of the six cancellation reasons ("Timeout", ...).
// NoReason is not a cancellation reason and does not parse.
func ParseReason(s string) (Reason, bool) {
	for i := 1; i < len(reasonNames); i++ {
		if s == reasonNames[i] {
			return Reason(i), true
		}
	}
	return NoReason, false
}

// Kind is what a child's result says it did. The constants other than
// Pending carry a Kind prefix because OK, Err, Panic and CancelledBy are the
// Result constructors.
type Kind uint8

const (
	Pending       Kind = iota // no result yet: the child has not finished
	KindOK                    // it returned
	KindErr                   // it failed
	KindPanic                 // it panicked
	KindCancelled             // it observed a cancellation, or was cancelled before it ran
)

var kindNames = [...]string{"pending", "ok", "err", "panic", "cancelled"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Result is a child's result. The zero value is a pending (unfinished) result.
type Result struct {
	// The fields are ordered for size (32 bytes): a nursery keeps one
	// Result per child for its whole life.
	Value    int64  // with KindOK when HasValue
	Msg      string // the error for KindErr, the message for KindPanic
	Kind     Kind
	Reason   Reason // for KindCancelled
	HasValue bool   // the child returned a value
}

// OK is a result that returned without a value.
func OK() Result { return Result{Kind: KindOK} }

// OKValue is a result that returned v.
func OKValue(v int64) Result { return Result{Kind: KindOK, Value: v, HasValue: true} }

// Err is a result that failed with msg.
func Err(msg string) Result { return Result{Kind: KindErr, Msg: msg} }

// Panic is a result that panicked with msg.
func Panic(msg string) Result { return Result{Kind: KindPanic, Msg: msg} }

// CancelledBy is a result that was cancelled for reason r. (It cannot be
// called Cancelled: that name is the terminal State.)
func CancelledBy(r Reason) Result { return Result{Kind: KindCancelled, Reason: r} }

// String is the scenario spelling: "ok", "ok:3", "err:Failed", "panic:boom",
// "cancelled:Timeout", and "pending" for the zero Result.
func (r Result) String() string {
	switch r.Kind {
	case Pending:
		return "pending"
	case KindOK:
		if r.HasValue {
			return "ok:" + strconv.FormatInt(r.Value, 10)
		}
		return "ok"
	case KindErr:
		return "err:" + r.Msg
	case KindPanic:
		return "panic:" + r.Msg
	case KindCancelled:
		return "cancelled:" + r.Reason.String()
	}
	return r.Kind.String()
}

// ErrBadResultText is wrapped by every error ParseResult returns.
var ErrBadResultText = errors.New("nursery: ParseResult: malformed result")

// ParseResult parses what Result.String writes. It is the inverse of String
// for every valid Result: ParseResult(r.String()) == r.
func ParseResult(s string) (Result, error) {
	head, tail, hasTail := strings.Cut(s, ":")
	switch head {
	case "pending":
		if !hasTail {
			return Result{}, nil
		}
	case "ok":
		if !hasTail {
			return OK(), nil
		}
		v, err := strconv.ParseInt(tail, 10, 64)
		if err == nil {
			return OKValue(v), nil
		}
	case "err":
		if hasTail {
			return Err(tail), nil
		}
	case "panic":
		if hasTail {
			return Panic(tail), nil
		}
	case "cancelled":
		if r, ok := ParseReason(tail); hasTail && ok {
			return CancelledBy(r), nil
		}
	}
	return Result{}, &parseError{text: s}
}

type parseError struct{ text string }

func (e *parseError) Error() string { return ErrBadResultText.Error() + ": " + strconv.Quote(e.text) }
func (e *parseError) Unwrap() error { return ErrBadResultText }

// IsError reports whether r is an error: KindErr or KindPanic. A cancellation
// is not an error.
func (r Result) IsError() bool { return r.Kind == KindErr || r.Kind == KindPanic }

// ErrorText is what propagates to the owner when r is the nursery's first
// error: Msg for KindErr, "panic:"+Msg for KindPanic, "" otherwise.
func (r Result) ErrorText() string {
	switch r.Kind {
	case KindErr:
		return r.Msg
	case KindPanic:
		return "panic:" + r.Msg
	}
	return ""
}

func (r Result) valid() bool {
	switch r.Kind {
	case KindOK, KindErr, KindPanic:
		return true
	case KindCancelled:
		return r.Reason.valid()
	}
	return false
}

// Outcome is the nursery's aggregate result (docs/spec.md#first-error-wins,
// docs/spec.md#error-outranks-cancel).
type Outcome uint8

const (
	OutcomePending   Outcome = iota // not terminal yet
	Success                         // Closed with no child error
	ChildFailed                     // some child failed or panicked (outranks a cancellation)
	OutcomeCancelled                // Cancelled with no child error
)

var outcomeNames = [...]string{"pending", "success", "child_failed", "cancelled"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Child is a child's index in spawn order: 0, 1, 2, ...
type Child int

// Admit says what the caller must do with a child Spawn just created.
type Admit uint8

const (
	AdmitRun       Admit = iota // schedule it now
	AdmitPending                // max_concurrent reached: wait until it appears in Effects.Release
	AdmitCancelled              // the nursery is Cancelling: it is already finished as CancelledBy(reason) and never runs
)

var admitNames = [...]string{"run", "pending", "cancelled"}

func (a Admit) String() string {
	if int(a) < len(admitNames) {
		return admitNames[a]
	}
	return "Admit(" + strconv.Itoa(int(a)) + ")"
}

// Config is a nursery's fixed configuration. The zero value is FailFast with
// no concurrency limit.
type Config struct {
	Mode          Mode
	MaxConcurrent int // children running at once; 0 (or less) is unlimited

	// Lean keeps no record per child, only counts and the first error, so
	// that a nursery's memory does not grow with the children it has
	// finished: what a long-running program wants. Results lists nothing,
	// Result, Started, Admitted and Marked know no child, and a
	// cancellation reports Effects.CancelAll instead of listing children:
	// the caller, which knows its unfinished children, marks them all. A
	// child's Child is then only a sequence number. Lean needs a mode other
	// than CancelRemaining and no MaxConcurrent (those tell children
	// apart); Reset ignores it otherwise.
	Lean bool

	// ChildSpawns keeps the nursery open to spawns while its owner awaits
	// (Closing, or Cancelling after Close): a child may spawn into the
	// nursery it runs in, as Trio lets a child use the nursery it was
	// handed, and the nursery waits for those children too. Only a
	// terminal nursery refuses; it cannot become terminal while the
	// spawning child runs. Off, Spawn after Close fails with ErrNotOpen.
	ChildSpawns bool

	// Quiet records no Effects.Transitions, for a caller that traces
	// none: the state changes still happen, and every other effect is
	// reported as before (a lean nursery's move to Cancelling shows in
	// Effects.Reason).
	Quiet bool
}

// Transition is one state change, for the trace.
type Transition struct{ From, To State }

func (t Transition) String() string { return t.From.String() + "->" + t.To.String() }

// Effects is what the caller must do after a mutating call. Every mutating
// call resets it first, so one Effects can be reused for every call without
// allocating once its slices have grown.
type Effects struct {
	// Cancel lists admitted, unfinished children the caller must mark
	// cancelled with Reason, in spawn order. A marked child observes the mark
	// at its next checkpoint; one that has never started is finished as
	// CancelledBy(Reason) without running (the caller calls Complete for it).
	Cancel []Child
	// CancelAll, in a Lean nursery, stands for Cancel listing every
	// admitted, unfinished child: mark them all with Reason.
	CancelAll bool
	// Reason is the reason of the cancellation this call made, NoReason if it
	// made none.
	Reason Reason
	// Dropped lists pending (never admitted) children that this call finished
	// at once as CancelledBy(Reason), in spawn order. They never run and never
	// appear in Release; the caller only forgets them. (Not in the original
	// brief: without it the caller would have to diff Results to learn it.)
	Dropped []Child
	// Release lists pending children this call admitted: schedule them, in
	// this order (spawn order).
	Release []Child
	// Transitions lists the state changes of this call, in order.
	Transitions []Transition
	// Terminal is set when this call moved the nursery to Closed or
	// Cancelled: wake the owner.
	Terminal bool
}

// Reset truncates the slices, keeping their capacity.
func (e *Effects) Reset() {
	e.Cancel = e.Cancel[:0]
	e.CancelAll = false
	e.Reason = NoReason
	e.Dropped = e.Dropped[:0]
	e.Release = e.Release[:0]
	e.Transitions = e.Transitions[:0]
	e.Terminal = false
}
