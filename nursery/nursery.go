package nursery

import (
	"github.com/cbcsim/cbcsim/internal/chunk"
	"github.com/cbcsim/cbcsim/internal/mutant"
)

// Per-child flags.
const (
	admitted uint8 = 1 << iota // counted against max_concurrent at some point; may run
	started                    // ran at least one step
	marked                     // marked cancelled (kid.mark holds the reason)
)

type kid struct {
	flags uint8
	mark  Reason
}

// Nursery is one nursery's state machine. It holds no lock: the caller (the
// scheduler) serializes every call, e.g. under its own lock, and applies the
// Effects each mutating call returns. The zero value is an Open FailFast
// nursery without a concurrency limit.
type Nursery struct {
	cfg      Config
	state    State
	awaiting bool   // the owner called Close: it reached the end of the body
	reason   Reason // the first cancellation's reason
	hasErr   bool
	firstErr Child
	order    *[]Child // completion order; kept only in mutant builds

	results  chunk.List[Result] // per child, in spawn order; Pending while unfinished
	kids     chunk.List[kid]    // per child, in spawn order
	queue    []Child            // pending children in spawn order; queue[head:] are live
	head     int
	running  int // admitted and unfinished
	finished int // children whose result is not Pending

	spawned  int    // children spawned (Len); results.Len() when not lean
	firstRes Result // the first error's result, in a lean nursery

	scratch Effects // stands in for a nil *Effects
}

// New returns an Open nursery with configuration cfg.
func New(cfg Config) *Nursery {
	n := &Nursery{}
	n.Reset(cfg)
	return n
}

// Reset makes n a new Open nursery with configuration cfg, keeping the
// memory of its per-child records.
//
// It writes each field rather than assigning a whole new Nursery: that
// assignment copied the struct's 300-odd bytes through a temporary and
// cost 194 instructions a nursery, a tenth of a fan-out tree's nursery
// bookkeeping (docs/performance.md#nursery-bookkeeping). TestResetIsNew
// checks that every
// field is covered.
func (n *Nursery) Reset(cfg Config) {
	n.results.Reset()
	n.kids.Reset()
	// Field by field, as below: cfg arrives in registers, and a copy of
	// the whole struct went through the stack, where 16-byte loads read
	// back the narrow stores just made, which the store buffer cannot
	// forward (a stall of about 20 cycles, 2% of a fan-out tree's time).
	// TestResetKeepsConfig checks that every field is copied.
	n.cfg.Mode, n.cfg.MaxConcurrent = cfg.Mode, cfg.MaxConcurrent
	n.cfg.Lean = cfg.Lean && cfg.Mode != CancelRemaining && cfg.MaxConcurrent <= 0
	n.cfg.ChildSpawns, n.cfg.Quiet = cfg.ChildSpawns, cfg.Quiet
	n.state, n.awaiting, n.reason = Open, false, NoReason
	n.hasErr, n.firstErr, n.firstRes, n.order = false, 0, Result{}, nil
	n.queue, n.head = n.queue[:0], 0
	n.running, n.finished, n.spawned = 0, 0, 0
	n.scratch.Reset()
}

// Lean reports whether the nursery keeps no per-child records (Config.Lean,
// where allowed).
func (n *Nursery) Lean() bool { return n.cfg.Lean }

// Scratch is the Effects a call with a nil *Effects fills: a caller that
// holds the nursery's lock can read the effects of its last call there
// instead of keeping an Effects of its own.
func (n *Nursery) Scratch() *Effects { return &n.scratch }

// effects resets out, or the scratch Effects when out is nil.
func (n *Nursery) effects(out *Effects) *Effects {
	if out == nil {
		out = &n.scratch
	}
	out.Reset()
	return out
}

// to performs a state change and records it.
func (n *Nursery) to(s State, out *Effects) {
	if !allowed(n.state, s) {
		panic("nursery: to: forbidden transition " + n.state.String() + "->" + s.String())
	}
	if !n.cfg.Quiet {
		out.Transitions = append(out.Transitions, Transition{From: n.state, To: s})
	}
	n.state = s
}

// Spawn creates the next child.
//
// In Open it is admitted (AdmitRun) unless MaxConcurrent children are
// running or others already wait, in which case it waits (AdmitPending) until
// a later call lists it in Effects.Release. In Cancelling, while the owner is
// still in its body, the child is created already finished as
// CancelledBy(CancelReason()) and never runs (AdmitCancelled); it does not
// make the nursery terminal, since only Close can. Once the owner awaits
// (Closing, or Cancelling after Close), Spawn refuses unless
// Config.ChildSpawns (then Closing admits as Open does, and Cancelling as
// above); in a terminal state it always refuses. It refuses with ErrNotOpen (plus ErrTerminal when terminal) and returns Child -1:
// no child (docs/nursery.md#refusals). Spawn never produces effects; out is
// only reset.
func (n *Nursery) Spawn(out *Effects) (Child, Admit, error) {
	n.effects(out)
	if n.state.Terminal() {
		return -1, AdmitRun, errSpawnTerminal
	}
	if n.awaiting && !n.cfg.ChildSpawns {
		return -1, AdmitRun, errSpawnNotOpen
	}
	c := Child(n.spawned)
	n.spawned++
	if n.cfg.Lean {
		if n.state == Cancelling {
			n.finished++
			return c, AdmitCancelled, nil
		}
		n.running++
		return c, AdmitRun, nil
	}
	if n.state == Cancelling {
		n.results.Append(CancelledBy(n.reason))
		n.kids.Append(kid{flags: marked, mark: n.reason})
		n.finished++
		return c, AdmitCancelled, nil
	}
	// Open. Once one child waits, later ones wait behind it, so that
	// children are admitted in spawn order.
	if limit := n.cfg.MaxConcurrent; limit > 0 && (n.running >= limit || n.head < len(n.queue)) {
		n.results.Append(Result{})
		n.kids.Append(kid{})
		n.queue = append(n.queue, c)
		return c, AdmitPending, nil
	}
	n.results.Append(Result{})
	n.kids.Append(kid{flags: admitted})
	n.running++
	return c, AdmitRun, nil
}

// AdmitLean is Spawn's common case in a Lean nursery, for a caller that
// would otherwise pay for Spawn's effects and for applying none: when
// Spawn would admit the next child to run (AdmitRun), AdmitLean does what
// Spawn does and returns the child and true, producing no effects and
// leaving Scratch as it was; otherwise it changes nothing and returns
// false, and the caller calls Spawn.
func (n *Nursery) AdmitLean() (Child, bool) {
	if !n.cfg.Lean || (n.state != Open && n.state != Closing) || (n.awaiting && !n.cfg.ChildSpawns) {
		return -1, false
	}
	c := Child(n.spawned)
	n.spawned++
	n.running++
	return c, true
}

// AdmitAhead admits k more children to run at once, as k calls of
// AdmitLean would, for a caller that hands them out later itself (a lean
// nursery's owner spawning ahead); it reports false, changing nothing,
// when AdmitLean would decline.
func (n *Nursery) AdmitAhead(k int) bool {
	if !n.cfg.Lean || (n.state != Open && n.state != Closing) || (n.awaiting && !n.cfg.ChildSpawns) || k < 0 {
		return false
	}
	n.spawned += k
	n.running += k
	return true
}

// Start records that child c ran its first step. It refuses a child that is
// unknown, pending, finished or already started. A child marked cancelled
// before it started may still be started: it then observes the mark at its
// first checkpoint.
func (n *Nursery) Start(c Child) error {
	switch {
	case n.state.Terminal():
		return errStartTerminal
	case c < 0 || int(c) >= n.spawned:
		return errStartBadChild
	case n.cfg.Lean:
		return nil
	case n.results.At(int(c)).Kind != Pending:
		return errStartFinished
	case n.kids.At(int(c)).flags&admitted == 0:
		return errStartNotAdmitted
	case n.kids.At(int(c)).flags&started != 0:
		return errStartStarted
	}
	n.kids.At(int(c)).flags |= started
	return nil
}

// Complete records that the admitted child c finished with r, which must be
// a finished result (not Pending; a cancellation needs a reason). The result
// is kept as given: a child marked cancelled that returned or failed anyway
// keeps what it actually did.
//
// The first child error (Err or Panic, in completion order) becomes
// FirstError and applies the mode: FailFast cancels every unfinished child
// with SiblingFailed, CancelRemaining only those that have not started,
// CollectAll nothing. Later errors are only recorded. Then the earliest
// pending children are admitted (Effects.Release) while there is room, and
// the nursery becomes terminal if the owner awaits and every child is
// finished.
func (n *Nursery) Complete(c Child, r Result, out *Effects) error {
	out = n.effects(out)
	switch {
	case n.state.Terminal():
		return errCompleteTerminal
	case !r.valid():
		return errCompleteBadResult
	case c < 0 || int(c) >= n.spawned:
		return errCompleteBadChild
	case n.cfg.Lean:
		// No record to check against: the caller completes each child
		// once, as it does in every mode.
		if n.running == 0 {
			return errCompleteFinished
		}
		if r.IsError() && !n.hasErr {
			n.firstRes = r
		}
	case n.results.At(int(c)).Kind != Pending:
		return errCompleteFinished
	case n.kids.At(int(c)).flags&admitted == 0:
		return errCompleteNotAdmitted
	default:
		*n.results.At(int(c)) = r
	}
	n.finished++
	n.running--
	if mutant.Enabled {
		n.noteCompletion(c)
		if r.IsError() && n.hasErr && mutant.On(mutant.LaterErrorOverwrites) {
			n.firstErr = c
		}
	}
	if r.IsError() && !n.hasErr && !(mutant.On(mutant.ErrorDroppedCancelling) && n.state == Cancelling) {
		n.hasErr = true
		n.firstErr = c
		switch n.cfg.Mode {
		case FailFast:
			n.cancel(SiblingFailed, false, out)
		case CancelRemaining:
			n.cancel(SiblingFailed, true, out)
		}
	}
	n.release(out)
	n.settle(out)
	if mutant.On(mutant.TerminalChangesState) && !n.awaiting && n.finished == n.spawned && n.state == Open {
		n.to(Closing, out)
		n.to(Closed, out)
		out.Terminal = true
	}
	return nil
}

// FinishMany records, in a Lean nursery, that k admitted children finished
// without an error (ok or cancelled), as k calls of Complete with such
// results would: only the counts change, then the nursery becomes terminal
// if the owner awaits and every child is finished. It lets a caller count
// such completions elsewhere (an atomic counter) and fold them in later;
// k may be 0, to settle only. It refuses a nursery that is not lean
// (ErrNotLean), k above the children running (ErrFinished) and a terminal
// nursery when k > 0 (ErrTerminal).
func (n *Nursery) FinishMany(k int, out *Effects) error {
	out = n.effects(out)
	switch {
	case !n.cfg.Lean:
		return errFinishNotLean
	case k > 0 && n.state.Terminal():
		return errFinishTerminal
	case k < 0 || k > n.running:
		return errFinishFinished
	}
	n.finished += k
	n.running -= k
	n.settle(out)
	return nil
}

// Close records that the owner reached the end of its body and awaits the
// children. Open goes to Closing; Cancelling stays. Either then goes
// terminal at once if every child is finished. It refuses a second Close
// (ErrAwaiting) and a terminal nursery (ErrTerminal).
func (n *Nursery) Close(out *Effects) error {
	out = n.effects(out)
	if mutant.On(mutant.TerminalChangesState) && n.state == Closed && !n.awaiting {
		out.Transitions = append(out.Transitions, Transition{From: Closed, To: Closing})
		n.state = Closing
	}
	if n.state.Terminal() {
		return errCloseTerminal
	}
	if n.awaiting {
		return errCloseAwaiting
	}
	n.awaiting = true
	if n.state == Open {
		n.to(Closing, out)
	}
	n.settle(out)
	return nil
}

// Cancel cancels the nursery for reason: an explicit cancel, a cancellation
// propagated from the owner, or resource exhaustion. Open and Closing go to
// Cancelling and keep reason as CancelReason. Every admitted unfinished
// child not yet marked is listed in Effects.Cancel, and every pending child
// is finished at once as CancelledBy(reason) (Effects.Dropped).
//
// In Cancelling the state and CancelReason stay as they are, but children
// the first cancellation left running (the started children of a
// CancelRemaining nursery) are marked now, with reason: a cancellation from
// outside reaches every descendant (docs/spec.md#transitive-cancellation).
// Otherwise, and in a terminal state, Cancel is a no-op. reason must be one
// of the five reasons; NoReason panics.
func (n *Nursery) Cancel(reason Reason, out *Effects) {
	out = n.effects(out)
	if !reason.valid() {
		panic("nursery: Cancel: invalid reason " + reason.String())
	}
	n.cancel(reason, false, out)
	n.settle(out)
}

// CancelOutside cancels the nursery from outside its own scope for
// reason: its owner was cancelled, or an enclosing nursery's scope was
// (docs/semantics.md#scoped-cancellation). The nursery applies its own
// error mode, as a timeout does: under CancelRemaining its started
// children are not marked and run to completion, and only the children
// not started are; in every other mode it is Cancel(reason). Pending
// children are dropped in every mode.
func (n *Nursery) CancelOutside(reason Reason, out *Effects) {
	out = n.effects(out)
	if !reason.valid() {
		panic("nursery: CancelOutside: invalid reason " + reason.String())
	}
	n.cancel(reason, n.cfg.Mode == CancelRemaining && !mutant.On(mutant.OutsideCancelsStarted), out)
	n.settle(out)
}

// Timeout records that the nursery's timeout fired. It is Cancel(Timeout)
// except that under CancelRemaining children that have started are not
// marked: they run on. Pending children are dropped in every mode.
func (n *Nursery) Timeout(out *Effects) {
	out = n.effects(out)
	if mutant.On(mutant.TimeoutIgnoredClosing) && n.state == Closing {
		return
	}
	n.cancel(Timeout, n.cfg.Mode == CancelRemaining && !mutant.On(mutant.TimeoutCancelsStarted), out)
	n.settle(out)
}

// cancel moves Open or Closing to Cancelling (the first reason is kept),
// marks every admitted, unfinished, unmarked child (only those not started
// when unstartedOnly) and drops every pending child. Terminal: no-op.
func (n *Nursery) cancel(reason Reason, unstartedOnly bool, out *Effects) {
	if n.state.Terminal() {
		return
	}
	did := false
	if n.state != Cancelling {
		n.to(Cancelling, out)
		n.reason = reason
		did = true
	}
	if n.cfg.Lean {
		// Every child admitted so far is marked now; later ones are
		// created cancelled.
		if did {
			out.CancelAll = n.running > 0
			out.Reason = reason
		}
		return
	}
	skip := admitted | marked // a child with both flags is already marked
	for i := 0; i < n.kids.Len(); i++ {
		k := n.kids.At(i)
		if n.results.At(int(i)).Kind != Pending || k.flags&skip != admitted {
			continue
		}
		if unstartedOnly && k.flags&started != 0 {
			continue
		}
		k.flags |= marked
		k.mark = reason
		out.Cancel = append(out.Cancel, Child(i))
		did = true
	}
	for _, c := range n.queue[n.head:] {
		*n.results.At(int(c)) = CancelledBy(reason)
		if mutant.Enabled {
			n.noteCompletion(c)
		}
		n.kids.At(int(c)).flags |= marked
		n.kids.At(int(c)).mark = reason
		n.finished++
		out.Dropped = append(out.Dropped, c)
		did = true
	}
	n.queue = n.queue[:0]
	n.head = 0
	if did {
		out.Reason = reason
	}
}

// release admits the earliest pending children while there is room.
func (n *Nursery) release(out *Effects) {
	limit := n.cfg.MaxConcurrent
	for n.head < len(n.queue) && (limit <= 0 || n.running < limit) {
		c := n.queue[n.head]
		n.head++
		n.kids.At(int(c)).flags |= admitted
		n.running++
		out.Release = append(out.Release, c)
	}
	if n.head == len(n.queue) {
		n.queue = n.queue[:0]
		n.head = 0
	}
	if limit > 0 && n.running > limit {
		panic("nursery: release: running over max_concurrent")
	}
}

// settle makes the nursery terminal when the owner awaits and every child
// is finished.
func (n *Nursery) settle(out *Effects) {
	if !n.awaiting || n.finished != n.spawned {
		return
	}
	switch n.state {
	case Closing:
		n.to(Closed, out)
	case Cancelling:
		n.to(Cancelled, out)
	default:
		return
	}
	out.Terminal = true
}

// State returns the current state.
func (n *Nursery) State() State { return n.state }

// Mode returns the configured error mode.
func (n *Nursery) Mode() Mode { return n.cfg.Mode }

// Config returns the configuration.
func (n *Nursery) Config() Config { return n.cfg }

// Terminal reports whether the state is Closed or Cancelled.
func (n *Nursery) Terminal() bool { return n.state.Terminal() }

// Awaiting reports whether the owner has called Close.
func (n *Nursery) Awaiting() bool { return n.awaiting }

// AllFinished reports whether every child spawned so far is finished.
func (n *Nursery) AllFinished() bool { return n.finished == n.spawned }

// Outcome is OutcomePending until the nursery is terminal; then ChildFailed
// if any child failed or panicked (an error outranks a cancellation:
// docs/spec.md#error-outranks-cancel), else OutcomeCancelled if the state is
// Cancelled, else Success.
func (n *Nursery) Outcome() Outcome {
	switch {
	case !n.state.Terminal():
		return OutcomePending
	case mutant.On(mutant.CancelOutranksError) && n.state == Cancelled:
		return OutcomeCancelled
	case n.hasErr:
		return ChildFailed
	case n.state == Cancelled:
		return OutcomeCancelled
	}
	return Success
}

// FirstError returns the first child error in completion order, if any.
// Later errors never replace it.
func (n *Nursery) FirstError() (Child, Result, bool) {
	if !n.hasErr {
		return -1, Result{}, false
	}
	if n.cfg.Lean {
		return n.firstErr, n.firstRes, true
	}
	return n.firstErr, *n.results.At(int(n.firstErr)), true
}

// CancelReason returns the reason of the first cancellation, NoReason if the
// nursery was never cancelled.
func (n *Nursery) CancelReason() Reason { return n.reason }

// Results returns a copy of the per-child results in spawn order, Pending
// for unfinished children. It allocates; Result reads one child.
func (n *Nursery) Results() []Result {
	if mutant.On(mutant.ResultsCompletionOrder) {
		return n.completionOrder()
	}
	return n.results.AppendTo(nil)
}

// noteCompletion records completion order for the ResultsCompletionOrder
// mutant (mutant builds only).
func (n *Nursery) noteCompletion(c Child) {
	if n.order == nil {
		n.order = new([]Child)
	}
	*n.order = append(*n.order, c)
}

// completionOrder lists finished children's results in the order they
// finished, then the unfinished ones; only the ResultsCompletionOrder
// mutant uses it.
func (n *Nursery) completionOrder() []Result {
	seen := make([]bool, n.results.Len())
	out := make([]Result, 0, n.results.Len())
	var order []Child
	if n.order != nil {
		order = *n.order
	}
	for _, c := range order {
		seen[c] = true
		out = append(out, *n.results.At(int(c)))
	}
	for c := 0; c < n.results.Len(); c++ {
		if !seen[c] {
			out = append(out, *n.results.At(c))
		}
	}
	return out
}

// Result returns child c's result (Pending if unfinished or unknown).
func (n *Nursery) Result(c Child) Result {
	if c < 0 || int(c) >= n.results.Len() {
		return Result{}
	}
	return *n.results.At(int(c))
}

// Len returns the number of children spawned.
func (n *Nursery) Len() int { return n.spawned }

// Running returns the number of admitted, unfinished children.
func (n *Nursery) Running() int { return n.running }

// PendingCount returns the number of children waiting for admission.
func (n *Nursery) PendingCount() int { return len(n.queue) - n.head }

// Admitted reports whether child c was admitted (may run, or ran).
func (n *Nursery) Admitted(c Child) bool { return n.flag(c, admitted) }

// Started reports whether child c ran its first step.
func (n *Nursery) Started(c Child) bool { return n.flag(c, started) }

// Marked returns the reason child c was marked cancelled with, if it was.
func (n *Nursery) Marked(c Child) (Reason, bool) {
	if !n.flag(c, marked) {
		return NoReason, false
	}
	return n.kids.At(int(c)).mark, true
}

func (n *Nursery) flag(c Child, f uint8) bool {
	return c >= 0 && int(c) < n.kids.Len() && n.kids.At(int(c)).flags&f != 0
}
