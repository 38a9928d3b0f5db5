package sched

import (
	"fmt"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// Lean nurseries (a Mode that keeps nothing; not cancel_remaining, no
// max_concurrent) keep no record per child, and most of their children
// never take the nursery's lock:
//
//   - A child that ends without an error and never enlisted (below) only
//     takes itself off pending, one atomic add, and is reused at once. The
//     state machine still counts it as running: since every other child
//     reports to it under the lock, once pending reaches zero the children
//     it still counts as running are exactly those, and one FinishMany
//     ends them all. Only two parties may do that, each exactly when it
//     sees pending reach zero with awaitBit set: the owner, setting
//     awaitBit in its await, or the child whose end brings pending to zero
//     after that. That is the handshake of sync.WaitGroup, and it is why a
//     child that ended lock-free never touches the nursery again, which
//     its owner may reuse as soon as it ends.
//   - Cancellation cannot list such children: the nursery publishes its
//     cancellation reason (cancelled), and a child reads it at its start and
//     at each checkpoint (Task.marked) and marks itself. Only a child that
//     must be reachable by a cancellation, one that opens a nursery (its
//     children must be cancelled too), blocks (its wait must be
//     interrupted), or has a name a supervisor recharges it by, enlists:
//     it takes a slot in the nursery's children under the lock, and from
//     then on is marked by the cancellation walk and ends under the lock.
//   - A child ending with an error takes the lock (first error wins, in
//     the order errors take it). An enlisted child ending without one
//     takes it only to give back its slot, and is then counted as those
//     that ended lock-free.
//   - Spawning takes no lock either, most of the time: the owner admits
//     its spawns ahead in batches, which the state machine counts as it
//     counts the children that ended lock-free (admitPending).

// awaitBit in pending says the owner awaits; the bits below it count the
// admitted children that have not ended, and the owner's credits
// (admitPending) until it awaits.
const awaitBit = int64(1) << 62

// leanState is what a lean nursery keeps outside its lock.
type leanState struct {
	pending   atomic.Int64  // admitted, unended children; plus awaitBit
	cancelled atomic.Uint32 // the cancellation reason once Cancelling, 0 before
}

// lean reports whether n keeps no per-child records; fixed for n's life.
func (n *Nursery) lean() bool { return n.isLean }

// creditBatch is the most spawns of its own the owner of a lean nursery
// admits ahead at once.
const creditBatch = int64(64)

// admitPending counts a child t just admitted to run in pending. Called
// with n.mu held.
//
// The owner of a lean nursery that is open, in a run without a sink,
// admits its spawns ahead, in batches (credit): the state machine admits
// the child and k-1 more, pending counts k, and the owner's next k-1
// spawns take no lock at all (spawn): they only spend a credit, after a
// look at the nursery's cancellation (cancelling). A batch admitted ahead
// is to the state machine what children that ended lock-free are: running
// children it will be told of in one FinishMany (finishRest); and pending
// counts it as unended children, so that pending stays above zero until
// the owner awaits, and the owner gives back what it did not spend as it
// sets awaitBit (await). k is half the nursery's spawns so far, at least
// 2 and at most creditBatch, so that a fan-out tree's second spawn takes
// no lock and a long run of spawns takes it once every 64. A spawn that
// races with a cancellation it has not seen yet is a spawn just before
// it: the child reads the cancellation as it starts (Task.marked) and
// never runs, as children spawned just before it do. So the spawner
// takes the lock once a batch, and writes pending, the line every ending
// child writes, once a batch.
func (n *Nursery) admitPending(t *Task, w *worker) {
	if !w.policy(link.DecideCredit, t == n.owner && n.credit == 0 && n.m.State() == nursery.Open, t) {
		// A child spawning into its parent's nursery (GoFrom), or no batch
		// now, or the driver said no.
		n.fast.pending.Add(1)
		return
	}
	k := min(creditBatch, max(2, int64(n.m.Len()/2)))
	n.m.AdmitAhead(int(k - 1))
	n.fast.pending.Add(k)
	n.credit = k - 1
	w.addLive(k - 1) // the batch's tasks count as live until the owner gives back the unspent ones
}

// openCredit is how many spawns the owner of a lean nursery has admitted
// ahead as it opens it (admitOpen): admitPending's first batch.
const openCredit = 2

// admitOpen admits openCredit spawns ahead as owner opens n, and sets
// pending to count them, when n is
// lean and the run has no sink and no stepped driver: the batch
// admitPending would admit at the first spawn, so that a fan-out tree's
// first spawn, like its second, takes no lock (two locked instructions,
// and with pending and the live count set here, two more, about 80
// others). The nursery is not published yet, so this needs no lock. A
// nursery that spawns nothing gives the credits back as it awaits, as
// any unspent ones.
// It reports whether it admitted any (else pending is the caller's to
// set).
func (n *Nursery) admitOpen(owner *Task) bool {
	if !owner.w.policy(link.DecideCredit, n.isLean, owner) {
		return false
	}
	n.m.AdmitAhead(openCredit)
	n.fast.pending.Store(openCredit)
	n.credit = openCredit
	owner.w.addLive(openCredit) // live until spawned or given back (takeCredit)
	return true
}

// takeCredit returns the owner's unspent credits and zeroes them, and
// takes them off w's live count; the owner calls it in its await, which
// subtracts them from pending.
func (n *Nursery) takeCredit(w *worker) int64 {
	c := n.credit
	if c != 0 {
		n.credit = 0
		w.addLive(-c)
		if mutant.On(mutant.CreditReturnedTwice) {
			return 2 * c
		}
	}
	return c
}

// completeFast ends child t of lean nursery n, which ended without an
// error, without telling the state machine: a child that never enlisted
// without the lock; an enlisted one (a fan-out tree's inner node, which
// opened a nursery) takes the lock only to leave the cancellation walk's
// slots, and then ends as the others do, counted by pending, so that
// finishRest ends it with them (one FinishMany instead of a Complete and
// its effects). It reports false, for an error, when the caller must take
// the locked path.
func (n *Nursery) completeFast(t *Task, w *worker) bool {
	if t.result.IsError() {
		return false
	}
	if t.child >= 0 {
		unshared := w.unshared() // then no lock (worker.unshared)
		if !unshared {
			n.mu.Lock()
		}
		n.freeSlot(t.child)
		if n.fast.pending.Add(-1) == awaitBit {
			n.finishRest(w)
		}
		if !unshared {
			n.mu.Unlock()
		}
		return true
	}
	if mutant.On(mutant.LeanCountedTwice) && n.fast.pending.Load()&awaitBit == 0 {
		n.fast.pending.Add(-1) // a child ending before its owner awaits
	}
	if n.fast.pending.Add(-1) == awaitBit {
		n.finishLast(w)
	}
	return true
}

// finishLast ends n, whose last child has just ended lock-free while the
// owner awaits. The owner cannot leave n before this, so n is still its
// nursery.
func (n *Nursery) finishLast(w *worker) {
	if w.unshared() {
		n.finishRest(w)
		return
	}
	n.mu.Lock()
	n.finishRest(w)
	n.mu.Unlock()
}

// finishRest ends, in the state machine, every child it still counts as
// running: once pending is zero those are the children that ended
// lock-free, and those the owner admitted ahead and never spawned. The
// nursery then becomes terminal. Called with n.mu held, by
// the one party that saw pending reach zero with awaitBit set.
func (n *Nursery) finishRest(w *worker) {
	if err := n.m.FinishMany(n.m.Running(), nil); err != nil {
		panic(fmt.Sprintf("sched: Nursery.finishRest: %v", err))
	}
	n.apply(w)
}

// enlist makes t, a child of a lean nursery, reachable by its nursery's
// cancellation walk (see above), marking it at once if the nursery is
// already cancelling. The task calls it for itself before it opens a
// nursery or blocks; a no-op in every other case.
func (t *Task) enlist() {
	if t.enlisted() {
		return
	}
	n := t.parent
	var r uint32
	if t.w.unshared() { // no lock (worker.unshared)
		t.child = n.addSlot(t)
		r = n.fast.cancelled.Load()
	} else {
		n.mu.Lock()
		t.child = n.addSlot(t)
		r = n.fast.cancelled.Load()
		n.mu.Unlock()
	}
	if r != 0 {
		t.mark.CompareAndSwap(0, r)
	}
}

// enlisted reports whether enlist has nothing to do: t has no lean
// parent, or is enlisted already.
func (t *Task) enlisted() bool {
	n := t.parent
	return n == nil || t.child >= 0 || !n.lean()
}

// marked is t's cancellation mark: its own, or, for a child of a lean
// nursery that is cancelling and that never enlisted, the nursery's
// reason, which t then takes as its own mark. An enlisted child waits for
// the cancellation walk's markCancel instead, which also cancels the
// nurseries it owns (and would skip them if the mark were already set).
// Only t itself, or a worker while t does not run, calls it.
//
// It is small enough to be inlined at its many checkpoints (a fan-out
// tree's node reads it seven times); leanMarked is the rest.
func (t *Task) marked() uint32 {
	if t.child < 0 && t.parent != nil {
		return t.leanMarked()
	}
	return t.mark.Load()
}

// leanMarked is marked for a child of a nursery that never enlisted. Not inlined, so that marked is.
//
//go:noinline
func (t *Task) leanMarked() uint32 {
	if r := t.mark.Load(); r != 0 {
		return r
	}
	if n := t.parent; n.lean() {
		if r := n.fast.cancelled.Load(); r != 0 {
			t.mark.CompareAndSwap(0, r)
			return t.mark.Load()
		}
	}
	return 0
}

// publishCancel records, for a lean nursery, that it went to Cancelling.
// Called with n.mu held, from apply.
func (n *Nursery) publishCancel() {
	n.fast.cancelled.Store(uint32(n.m.CancelReason()))
	n.cancelling.Store(uint32(n.m.CancelReason()))
}
