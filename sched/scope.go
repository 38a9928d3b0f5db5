package sched

import (
	"errors"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// Scoped cancellation (docs/semantics.md#scoped-cancellation).
//
// A nursery's scope is everything its owner does between opening it and
// leaving it: its children and their descendants, the nurseries the owner
// opens inside its body (and theirs, transitively), and the owner's own
// code in the body. Cancelling a nursery reaches:
//
//   - its children, as before (package nursery's rules);
//   - every nursery its owner opened inside its body, cancelled from
//     outside (they apply their own error mode: CancelOutside), at once and
//     also when one is opened later, while this one is cancelling;
//   - for an explicit cancel and a timeout, the owner's own code: it
//     observes the cancellation at its next checkpoint, as long as it is
//     inside the scope, and no longer once it has left it (Trio's cancel
//     scopes). A first child error (fail_fast) does not cancel the body:
//     the body learns of it at its end (see the same page for why).
//
// The owner's nurseries link both ways: outer (guarded by the owner's mu,
// as before) and inner, the nursery opened directly inside this one's
// body, guarded by this nursery's mu. The walk down the inner links takes
// each nursery's lock inside the one above it: an inner nursery is below
// its outer one in the lock order, as a child is below its nursery.

// scoped reports whether the run cancels by scopes. A replay of a trace
// of format version 1 or 2 (link.Options.LegacyCancel) runs as those
// were recorded, before scopes: a nursery's cancellation reaches its
// children only, and a nursery cancelled from outside cancels every
// child, so that the trace reproduces byte for byte
// (docs/trace-format.md).
func (s *Scheduler) scoped() bool { return !s.cfg.LegacyCancel }

// scopeBody is the bit of Nursery.scope saying that the owner's code in
// the body is cancelled too; the low byte is the reason that reaches
// every nursery opened inside the body (0: none).
const scopeBody = 1 << 8

// bodyCancelled is the reason the owner's code inside n's body observes,
// or 0. Any goroutine.
func (n *Nursery) bodyCancelled() uint32 {
	if s := n.scope.Load(); s&scopeBody != 0 {
		return s &^ scopeBody
	}
	return 0
}

// reaches reports whether a cancellation of n with reason r reaches the
// nurseries opened inside n's body: every one does but a cancel_remaining
// nursery's first child error, which spares what has started, the body
// and what it opened included.
func (n *Nursery) reaches(r nursery.Reason) bool {
	return r != nursery.NoReason && (r != nursery.SiblingFailed || n.m.Mode() != nursery.CancelRemaining)
}

// markScope records r in n's scope word (the first reason stays) and,
// with body, that the owner's code in the body is cancelled; a newly
// cancelled body is traced as a cancel event naming the nursery. Called
// with n.mu held (or unshared).
func (n *Nursery) markScope(r nursery.Reason, body bool, w *worker) {
	old := n.scope.Load()
	s := old
	if s&0xff == 0 {
		s |= uint32(r)
	}
	if body {
		s |= scopeBody
	}
	if s == old {
		return
	}
	n.scope.Store(s)
	if em := n.owner.s.emitter(w); body && old&scopeBody == 0 && em.on() {
		em.emit(trace.KindCancel, trace.I(trace.KeyTask, int64(n.owner.id)), trace.S(trace.KeyReason, nursery.Reason(s&0xff).String()),
			trace.I(trace.KeyNursery, int64(n.id)))
	}
}

// reachInner cancels the nursery opened directly inside n's body, if
// any, and through it the ones inside that, with reason r (and their
// bodies too, with body). Called with n.mu held (or unshared).
func (n *Nursery) reachInner(r nursery.Reason, body bool, w *worker) {
	x := n.inner
	if x == nil || mutant.On(mutant.ScopeStopsAtOwner) || !n.owner.s.scoped() {
		return
	}
	unshared := w != nil && w.unshared()
	if !unshared {
		x.mu.Lock()
	}
	x.enterScope(r, body, w)
	if !unshared {
		x.mu.Unlock()
	}
}

// enterScope cancels x from outside as part of an enclosing scope's
// cancellation. Called with x.mu held (or unshared).
func (x *Nursery) enterScope(r nursery.Reason, body bool, w *worker) {
	if x.m.Terminal() {
		return
	}
	x.markScope(r, body, w)
	x.m.CancelOutside(r, nil)
	x.apply(w) // reaches further in when it cancelled something
	x.reachInner(r, body, w)
}

// cancelScope cancels n's whole scope, the owner's code in the body
// included: an explicit cancel (by the owner, which runs) or a timeout
// (from anywhere). n itself has been cancelled already. Called with n.mu
// held (or unshared); a blocked owner is interrupted.
func (n *Nursery) cancelScope(r nursery.Reason, w *worker) {
	if n.m.Terminal() || !n.owner.s.scoped() {
		return
	}
	n.markScope(r, true, w)
	n.reachInner(r, true, w)
	// The owner blocked on a channel or asleep in the body is
	// interrupted, as markCancel interrupts a marked task (Dekker with
	// publishWait: the scope word was stored before waitingOn is loaded
	// here). Not one waiting for a supervisor's recharge: that wait's
	// lock is the owner's own mu, which lies above n.mu, held here, in
	// the lock order (markCancel takes the owner's, then its nurseries');
	// such an owner observes the scope once recharged.
	o := n.owner
	if ref := o.waitingOn.Load(); ref != nil {
		if _, recharge := ref.b.(*rechargeWait); !recharge && ref.b.cancelWait(o) {
			o.s.wakeFrom(w, o)
		}
	}
}

// linkScope links n, which t has just opened, to the nursery it opens
// inside (t.owned before n), and cancels n at once when that one's scope
// is cancelling: t opened it inside the scope after the cancellation,
// between its checkpoint and now, or in a cleanup (which is not
// interrupted, but whose nurseries are inside the scope all the same).
func (n *Nursery) linkScope(t *Task) {
	outer := n.outer
	if outer == nil {
		return
	}
	unshared := t.w.unshared()
	if !unshared {
		outer.mu.Lock()
	}
	outer.inner = n
	s := outer.scope.Load()
	if !unshared {
		outer.mu.Unlock()
	}
	if s&0xff == 0 || t.cleanupDepth > 0 || !t.s.scoped() {
		return
	}
	if !unshared {
		n.mu.Lock()
	}
	n.enterScope(nursery.Reason(s&0xff), s&scopeBody != 0, t.w)
	if !unshared {
		n.mu.Unlock()
	}
}

// unlinkScope undoes linkScope as t leaves n.
func (n *Nursery) unlinkScope(t *Task) {
	outer := n.outer
	if outer == nil {
		return
	}
	if t.w.unshared() {
		outer.inner = nil
		return
	}
	outer.mu.Lock()
	outer.inner = nil
	outer.mu.Unlock()
}

// absorbs reports whether err, which n's body returned, is the
// cancellation of n's own scope, which ends as n is left (Trio's cancel
// scope catches its own Cancelled): n's body was cancelled, no scope
// around n is, and t itself is not marked.
func (n *Nursery) absorbs(t *Task, err error) bool {
	if err == nil || n.scope.Load()&scopeBody == 0 || t.marked() != 0 || !errors.Is(err, ErrCancelled) {
		return false
	}
	return n.outer == nil || n.outer.scope.Load()&scopeBody == 0
}

// cancelOutside cancels n from outside its scope (its owner was marked):
// n applies its own error mode (nursery.CancelOutside), except when the
// run itself is being torn down (a real-mode deadlock, the step bound),
// which no mode survives. Any worker.
func (n *Nursery) cancelOutside(r nursery.Reason, w *worker) {
	n.mu.Lock()
	if r == nursery.Deadlock || r == nursery.ResourceExhausted || !n.owner.s.scoped() {
		n.m.Cancel(r, nil)
	} else {
		n.m.CancelOutside(r, nil)
	}
	n.apply(w)
	n.mu.Unlock()
}

// cancelled is what t observes at a checkpoint: its own cancellation
// mark, or, while its code runs inside a nursery whose body is cancelled,
// that scope's reason. Only t itself, or a worker while t does not run,
// calls it.
func (t *Task) cancelled() uint32 {
	if r := t.marked(); r != 0 || t.owned == nil {
		return r
	}
	return t.owned.bodyCancelled()
}

// uncancelled reports that cancelled would return 0, by loads alone and
// inlined, for a checkpoint's common case: no mark, no cancellation of
// the nursery of a lean child (whose mark it would be: leanMarked), and
// no cancelled scope it runs in. False means only "ask cancelled". The
// same callers as cancelled.
func (t *Task) uncancelled() bool {
	if t.mark.Load() != 0 || (t.child < 0 && t.parent != nil && t.parent.fast.cancelled.Load() != 0) {
		return false
	}
	n := t.owned
	return n == nil || n.scope.Load()&scopeBody == 0
}
