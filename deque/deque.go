package deque

import (
	"math/bits"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/internal/mutant"
)

// Design note.
//
// This is the Chase-Lev deque as restated for weak memory models by Lê, Pop,
// Cohen and Zappa Nardelli ("Correct and Efficient Work-Stealing for Weak
// Memory Models", PPoPP 2013), with three changes: slots are
// atomic.Pointer[T] so that the race detector sees every access, taken slots
// are cleared so the garbage collector can reclaim items, and the ring never
// shrinks.
//
// Indices top and bottom grow without bound (int64: at one operation a
// nanosecond they last 292 years); index i lives in slot i&mask of whichever
// ring is current. The live items are the indices [top, bottom). Only the
// owner writes bottom and the ring pointer; top only ever increases, by a
// successful CompareAndSwap from t to t+1, and whoever wins that CAS owns the
// item at index t.
//
// Memory order. Every sync/atomic operation in Go is sequentially consistent:
// all of them, on all goroutines, fall into one total order that agrees with
// each goroutine's program order. The comment on each atomic names the
// acquire/release pairing it provides. The algorithm relies on more than
// that where the C11 version of the paper has a seq_cst fence or a seq_cst
// CAS, and those comments say "seq-cst":
//
//   - Pop stores bottom and then loads top. That is a store followed by a
//     load of a different location, which acquire/release does not order.
//     Without the seq-cst fence between them the owner and a thief could
//     both see the last item as theirs.
//   - Steal loads top and then bottom, with the paper's fence between them,
//     so that it pairs with Pop's store-then-load.
//   - The CASes on top, in Steal and in Pop's last-item path, are what
//     decide who owns an index.
//
// Go gives all three for free: its atomic Store is XCHG on amd64 (a full
// fence) and STLR on arm64, whose order with a later LDAR is guaranteed.
//
// Rejected alternatives: a mutex (the owner's fast path would pay for it on
// every Push and Pop); shrinking the ring (the bug fixed by crossbeam-deque's
// advisory lived in the interaction of buffer swaps with steals, and the
// scheduler's queues stay small, so growth-only keeps the argument short);
// storing T by value (a slot must be read and cleared atomically, which a
// pointer allows and an arbitrary T does not).

const (
	// capacityMin is the smallest ring New allocates.
	capacityMin = 8
	// capacityMax is the stated bound on items held at once: 1<<30 pointers
	// is an 8 GiB ring. A Push past it panics rather than growing further.
	capacityMax = 1 << 30
	// cacheLinePad separates the hot fields. 128 rather than 64 bytes because
	// x86 cores prefetch cache lines in adjacent pairs, so two fields 64
	// bytes apart can still contend; a Deque is rare enough that the
	// wasted bytes do not matter.
	cacheLinePad = 128
)

// ring is one generation of the deque's storage. Items are stored into it
// only by the owner: by Push while it is current, and by grow before it is
// published. Once a newer ring replaces it, no item is ever stored into it
// again; the only later writes are nils, from a thief clearing the slot of an
// index it has already won, which nobody will read as an item. Thieves that
// loaded it before the swap may still read it, and the garbage collector
// keeps it alive for as long as they do.
type ring[T any] struct {
	mask  int64
	slots []atomic.Pointer[T]
}

func newRing[T any](capacity int64) *ring[T] {
	return &ring[T]{mask: capacity - 1, slots: make([]atomic.Pointer[T], capacity)}
}

// slot returns the slot that holds index i.
func (r *ring[T]) slot(i int64) *atomic.Pointer[T] {
	return &r.slots[i&r.mask]
}

// Deque is a Chase-Lev work-stealing deque of *T. One goroutine, the owner,
// pushes and pops at the bottom; any goroutine may steal from the top. A nil
// *T means "no item", so nil cannot be pushed. The same pointer must not be
// pushed again until the Pop or Steal that took it has returned: a thief
// clears its slot with a CompareAndSwap on the pointer, which cannot tell
// the two pushes apart. (A scheduler re-queues a task only after running
// it, so it never comes close.)
//
// The zero value is an empty deque ready to use, with the minimum capacity.
// A Deque must not be copied after first use.
type Deque[T any] struct {
	_ [cacheLinePad]byte
	// top is the index of the oldest item. Thieves and the owner's
	// last-item Pop advance it by CAS; it never decreases.
	top atomic.Int64
	_   [cacheLinePad - 8]byte
	// bottom is one past the index of the newest item. Only the owner
	// writes it.
	bottom atomic.Int64
	// topSeen is the owner's last load of top, kept beside bottom, which
	// only the owner writes: since top never decreases it is a lower
	// bound of top, which is all Push needs to know that the ring has
	// room. Push reloads top only when topSeen says the ring may be full,
	// so that the owner's pushes do not read top's line, which every
	// thief's CAS takes away, at every push.
	topSeen int64
	_       [cacheLinePad - 16]byte
	// ring is the current storage. Only the owner writes it, on growth; it
	// sits on its own line so that thieves reading it do not contend with
	// the owner's bottom stores.
	ring atomic.Pointer[ring[T]]
	// capacityMax, when non-zero, replaces the package bound; tests set it
	// to reach the bound without allocating 8 GiB. Read by the owner only.
	capacityMax int64
	_           [cacheLinePad - 16]byte
}

// New returns an empty deque whose ring holds capacity items before it
// first grows, rounded up to a power of two and to at least 8. It panics if
// capacity exceeds the bound of 1<<30.
func New[T any](capacity int) *Deque[T] {
	if capacity > capacityMax {
		panic("deque: New: capacity exceeds 1<<30")
	}
	c := int64(capacityMin)
	if capacity > capacityMin {
		c = int64(1) << bits.Len64(uint64(capacity-1))
	}
	d := new(Deque[T])
	// store: needs no ordering of its own; d is not shared until New
	// returns, and whatever hands it to other goroutines orders it.
	d.ring.Store(newRing[T](c))
	return d
}

// Push adds x at the bottom. Owner only.
//
// Push does not allocate unless the ring is full, in which case it doubles
// the ring. It panics if x is nil, or if the deque already holds 1<<30
// items (the stated bound).
func (d *Deque[T]) Push(x *T) {
	if x == nil {
		panic("deque: Push: nil item")
	}
	// load: the owner's own last store; no other goroutine writes bottom.
	b := d.bottom.Load()
	// load: the owner's own last store of the ring pointer.
	r := d.ring.Load()
	if r == nil || b-d.topSeen > r.mask {
		// load-acquire: see thieves' top CASes. A stale (smaller) top,
		// topSeen's or this one, only overestimates the size and grows
		// early; it can never let the write below overwrite a live item.
		t := d.top.Load()
		d.topSeen = t
		if r == nil || b-t > r.mask {
			r = d.grow(r, t, b)
		}
	}
	// store: fills slot b; ordered before the bottom store below, so a
	// thief that sees bottom > b sees this item (or a later write).
	r.slot(b).Store(x)
	// store-release: publishes the slot write above, and any ring that
	// grow published, to thieves that load bottom.
	d.bottom.Store(b + 1)
}

// grow replaces the ring r, which holds the live indices [t, b), by one
// twice its size (or the minimum ring if r is nil, for the zero value) and
// returns it. Owner only, from Push.
func (d *Deque[T]) grow(r *ring[T], t, b int64) *ring[T] {
	if r == nil {
		nr := newRing[T](capacityMin)
		// store-release: publishes the first ring before Push advances
		// bottom; until then thieves see an empty deque and never load it.
		d.ring.Store(nr)
		return nr
	}
	limit := int64(capacityMax)
	if d.capacityMax != 0 {
		limit = d.capacityMax
	}
	c := 2 * int64(len(r.slots))
	if c > limit {
		panic("deque: Push: capacity exceeded")
	}
	nr := newRing[T](c)
	for i := t; i < b; i++ {
		// load: may see nil for an index a thief has already won and
		// cleared (t may be stale); copying the nil is harmless because
		// that index is below top and will never be read as an item.
		// store: nr is private until the ring store below.
		nr.slot(i).Store(r.slot(i).Load())
	}
	// store-release: publish the new ring. This happens before Push
	// advances bottom, so a thief that sees the new bottom also sees this
	// ring or a newer one. From here on no item is stored into r again.
	d.ring.Store(nr)
	// load, seq-cst: reread top now that nr is published. A thief whose
	// top CAS comes after this load in the total order loads the ring after
	// its CAS and so finds nr (or newer) and clears its slot there itself.
	// A thief whose CAS came before this load may have cleared the slot in
	// r instead, leaving the copy in nr: clear those indices here.
	// Storing nil is safe: slot i of nr can hold only index i's item (index
	// i+len(nr) is not pushed yet, we are the pusher) and that item is taken.
	t2 := d.top.Load()
	for i := t; i < t2 && i < b; i++ {
		// store: clears a taken index so the collector can reclaim it.
		nr.slot(i).Store(nil)
	}
	return nr
}

// Pop removes and returns the item at the bottom, the most recently pushed
// one, or nil if the deque is empty. Owner only.
func (d *Deque[T]) Pop() *T {
	// load: the owner's own last store.
	b := d.bottom.Load() - 1
	// store, seq-cst: reserve index b. This store and the top load below
	// are a store then a load of different locations; only sequential
	// consistency (Go's atomics: XCHG on amd64, STLR+LDAR on arm64) keeps
	// the load from moving above the store. If it moved, a thief could load
	// the old bottom, the owner the old top, and both take the last item.
	d.bottom.Store(b)
	// load, seq-cst: see every top CAS that precedes the store above.
	t := d.top.Load()
	if t > b {
		// Empty: undo the reservation.
		// store-release: restore bottom; nothing was taken.
		d.bottom.Store(b + 1)
		return nil
	}
	// load: the owner's own ring pointer.
	r := d.ring.Load()
	s := r.slot(b)
	// load: the owner stored this slot itself. When t < b no thief can
	// clear it; when t == b a thief that wins the CAS below may already
	// have cleared it, but then we discard x.
	x := s.Load()
	if t < b {
		// More than one item: no thief can win index b, because a thief
		// wins index t' only with top == t' < bottom, and after our bottom
		// store every thief's bottom load sees at most b.
		if x == nil {
			panic("deque: Pop: nil item in live slot")
		}
		// store: clear the taken slot for the collector.
		s.Store(nil)
		return x
	}
	// t == b: one item left, and thieves may race for it. The top CAS
	// decides who owns it.
	if mutant.On(mutant.StealReturnsPopped) {
		// Broken on purpose: take the item without claiming index t,
		// so a thief can still steal it.
		d.bottom.Store(b + 1)
		return x
	}
	// CAS, seq-cst: take index t by advancing top, exactly as a thief would.
	if d.top.CompareAndSwap(t, t+1) {
		// We won, so no thief won index b and the slot was not cleared.
		if x == nil {
			panic("deque: Pop: nil item after winning top")
		}
		// store: we own index b, clear its slot for the collector.
		s.Store(nil)
	} else {
		// A thief won; it clears the slot.
		x = nil
	}
	// store-release: top is now b+1, so bottom = b+1 leaves the deque empty.
	d.bottom.Store(b + 1)
	return x
}

// Steal's correctness argument, the steps its comments cite: why a thief
// cannot return an item it does not own. This is the class of bug behind
// crossbeam-deque's advisory GHSA-pqqp-xmhj-wgcw: a steal racing with a
// buffer swap read its task from a stale buffer and returned a task the
// owner also popped, while another was lost.
//
//  1. Load order is top (t), bottom (b), ring (r), slot t of r, then the
//     CAS of top from t to t+1. If the CAS succeeds, top equalled t from
//     our top load to our CAS, since top never decreases, so no other
//     thief and no last-item Pop won index t. Nor did a many-items Pop
//     take it without a CAS: that needs a top load that saw top < t,
//     which precedes our top load, and so does its bottom store of t.
//  2. Our bottom load, later still, saw b > t, so the owner pushed index
//     t again after any such Pop. Let P be the last Push of index t
//     before our bottom load. No Pop takes index t after P: it would
//     find top == t and need to win the CAS we won. So P's item is the
//     one we now own. P wrote it into its ring, and published that ring
//     if it grew, before its bottom store; our bottom load comes after
//     that store, and our ring load after our bottom load. So r is P's
//     ring or a newer one, never an older ring that lacks the item.
//  3. Each ring newer than P's copied index t from its predecessor:
//     grow copies [t', b') with t' <= top <= t and b' > t, because
//     nothing takes index t before our CAS. Nothing else is stored into
//     slot t of any of these rings before our CAS: the owner stores
//     index t+len only after seeing top > t, no item is ever stored into
//     a ring after it has been replaced, and thieves and grow only clear
//     slots of indices already won. So slot t of r holds P's item when we
//     read it, whichever of these rings r is, and the item is not nil.
//  4. Old rings stay valid memory while we read them: the garbage
//     collector keeps r alive as long as we hold the pointer, so there
//     is no use-after-free and no epoch scheme to get wrong.
//
// After winning, the thief clears the slot so the collector can reclaim
// the item. It must use CompareAndSwap(x, nil), not Store(nil): once top
// has moved past t the owner may already have pushed index t+len into
// the very same slot, and a plain Store would erase that new item. The
// CAS clears only if the slot still holds x, which is why a pointer may
// not be pushed again while the Steal that took it is still running: the
// CAS could not tell the two apart. It clears in the ring current after
// the CAS; grow clears its copies of indices won before it rereads top,
// so no ring keeps a taken item alive.

// Steal removes and returns the item at the top, the least recently pushed
// one. It returns nil if the deque is empty or if it lost a race for the top
// item with another thief or with the owner's Pop; callers that must know
// the deque is empty should check Len or try again. Any goroutine.
//
// Steal does not allocate. It panics if it wins an index whose slot holds
// nil, which only a broken invariant, or a pointer pushed again while the
// Steal that took it was still running, can cause. The argument above says
// why it is correct; the comments below cite its steps.
func (d *Deque[T]) Steal() *T {
	// load-acquire, seq-cst: must precede the bottom load below (step 1).
	t := d.top.Load()
	// load-acquire: see the owner's bottom store, and with it the slot
	// write and ring publication that preceded it (step 2).
	b := d.bottom.Load()
	if t >= b {
		return nil
	}
	// load-acquire: see the ring the owner published before the bottom we
	// just loaded, or a newer one (step 2).
	r := d.ring.Load()
	// load: read the item before the CAS; after the CAS the owner may reuse
	// the slot (step 3).
	i := t
	if mutant.On(mutant.StealTakesNewest) {
		i = b - 1
	}
	x := r.slot(i).Load()
	// CAS, seq-cst: take index t. Losing means another thief or the owner's
	// Pop took it first.
	if !d.top.CompareAndSwap(t, t+1) {
		return nil
	}
	if x == nil {
		panic("deque: Steal: nil item after winning top")
	}
	// load-acquire: the ring current after our CAS; see the note on clearing
	// above.
	// CAS: clear only if the slot still holds our item; the owner may
	// already have reused it for index t+len.
	d.ring.Load().slot(t).CompareAndSwap(x, nil)
	return x
}

// Len returns the number of items in the deque. Any goroutine.
//
// From a thief it is a snapshot that may be stale by the time it returns,
// and may be momentarily low while the owner is inside Pop. From the owner,
// with no thieves running, it is exact.
func (d *Deque[T]) Len() int {
	// load-acquire: as in Steal, top before bottom.
	t := d.top.Load()
	// load-acquire: see the owner's latest bottom store.
	b := d.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}
