package sched

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/internal/chunk"
	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// NurseryOptions configures a nursery (the scenario format's nursery options).
type NurseryOptions struct {
	Label         string       // a name for tables, traces and expectations
	Mode          nursery.Mode // fail_fast (the zero value), cancel_remaining, collect_all
	MaxConcurrent int          // children running at once; 0 is unlimited
	Budget        *Budget      // the budget pool; nil means a copy of the owner's remaining budget
	Catch         bool         // a child error does not propagate to the owner
	Timeout       int64        // ticks until every unfinished child is cancelled (Timeout); 0 is none

	// TimeoutFails makes a Timeout that passes an error: Task.Nursery
	// returns a *SchedError matching ErrNurseryTimeout (Trio's fail_after,
	// the JDK's TimeoutException) unless a child error outranks it.
	// Without it the children are cancelled and Task.Nursery returns nil
	// (Trio's move_on_after).
	TimeoutFails bool
}

// SpawnOptions configures one spawned child.
type SpawnOptions struct {
	Budget  *Budget // the child's budget; nil means the scheduler's default budget
	Caps    Caps    // under the sovereign profile: the child's capabilities, narrowed by the parent's
	HasCaps bool
	As      string // a name a supervisor may use for the child
}

// Nursery is a structured-concurrency scope: it owns the children spawned
// into it and its owner cannot leave it until every child has finished.
// The state machine and error-mode rules are package nursery's; this type
// binds them to tasks and workers.
type Nursery struct {
	// The first cache line is what the workers running and ending its
	// children write and read: pending, which every ending child of a
	// lean nursery writes, and the flags their start and end read. The
	// spawner touches it once a batch of spawns (lean.go), not once a
	// spawn, so this line stays with whichever worker ends the children
	// and the next lines, the lock and the counts the spawner writes at
	// every spawn, with the spawner. Sharing one line, the two bounced it
	// between two workers at every task (docs/performance.md#lean-nurseries).
	// The rest of this line is fields the hot paths do not touch.
	//
	// isLean, startLocked, label, id, owner, quota, catch and timeoutFails
	// are set by the owner as it opens the nursery (newNursery), before
	// any child exists, and read-only until the nursery is reused
	// (recycle, once no other worker can reach it).
	//
	// fast is a lean nursery's lock-free part (lean.go), accessed
	// atomically by the owner and the workers ending its children.
	fast         leanState
	isLean       bool // n.m.Lean(), read without the lock (lean.go)
	startLocked  bool // start takes the lock: the scheduler keeps its records, or cancel_remaining
	catch        bool
	timeoutFails bool
	keepMem      bool // not to be reused: a timeout or a *Task handle may outlive it (free.go); Spawn writes it under mu
	label        string
	// timer is the timeout, if any: set by the owner as it opens the
	// nursery, before a child can end it; read by the apply that ends the
	// nursery.
	timer    *timer
	firstErr error // the error value of the first failing child (ChildError.Err); guarded by mu

	id    uint64
	owner *Task
	// outer is the owner's next outer open nursery: guarded by owner.mu
	// (no lock on an unshared worker: worker.unshared).
	outer *Nursery
	quota *Nursery // the nearest nursery at or above this one with a finite spawn_count
	// scope is the cancellation of this nursery's scope (scope.go): the
	// reason that reaches the nurseries opened inside its body, and
	// scopeBody when the owner's code in the body observes it too.
	// Written under mu, read by the owner at each of its checkpoints, so
	// on the spawner's line: on the children's line, each spawn's
	// checkpoint pulled that line from the worker ending the children.
	scope atomic.Uint32
	// cancelling is fast.cancelled again, on the spawner's line: the
	// owner's lock-free spawn reads it at every spawn (lean.go). Stored
	// under mu (publishCancel), and by the owner as it opens the nursery;
	// accessed atomically.
	cancelling atomic.Uint32

	// mu guards the fields below but spawnLeft and credit, and firstErr.
	// The owner sets them up as it opens the nursery, before any child
	// can reach it, without the lock; and an unshared worker's sections
	// leave it out (worker.unshared), as no one else can reach them then.
	mu       sync.Mutex
	inner    *Nursery          // the nursery the owner opened directly inside this one's body, if still open (scope.go)
	m        nursery.Nursery   // its effects land in m.Scratch()
	children chunk.List[*Task] // in spawn order, indexed by nursery.Child; in a lean nursery, see free
	free     []int32           // lean: slots of children that hold no unfinished child, for reuse
	// waiter is the owner while it is blocked in await: set as it blocks
	// (await, park), cleared by the worker that wakes it.
	waiter *Task
	pool   Budget  // the children's budgets and recharges come from it (take)
	errs   []error // collect_all: every failing child's error, in completion order

	// spawnLeft is the pool's spawn_count, MaxInt32 for unlimited: any
	// spawner below takes from it (takeSpawn). Accessed atomically.
	spawnLeft atomic.Int32
	// credit is what the owner added to fast.pending ahead of its spawns
	// and has not spawned yet (lean.go); the owner's alone.
	credit int64
}

// takeSpawn pays one spawn_count to this nursery's pool and to the pool of
// every nursery above it (the nursery its owner belongs to, and so on up to
// main). spawn_count is thereby a quota on a whole subtree: everything
// below a nursery spawns at most as many tasks as its pool allows, so a
// recursive spawner is contained, while siblings share the quota instead of
// the first child taking it all. A pool of MaxInt32 or more is unlimited
// and skipped (the quota links only the limited ones), so that a program
// on sched.Unlimited pays no atomic per spawn. Lock-free, so it takes no
// lock against the tree order that cancellation follows.
func (n *Nursery) takeSpawn() bool {
	for x := n.quota; x != nil; x = x.nextQuota() {
		if x.spawnLeft.Add(-1) < 0 {
			n.refundUpTo(x)
			return false
		}
	}
	return true
}

// refundUpTo gives back the spawn_count takeSpawn took from each pool from
// n's up to and including x.
func (n *Nursery) refundUpTo(x *Nursery) {
	for y := n.quota; y != nil; y = y.nextQuota() {
		y.spawnLeft.Add(1)
		if y == x {
			return
		}
	}
}

// refundSpawn gives back a whole takeSpawn.
func (n *Nursery) refundSpawn() { n.refundUpTo(nil) }

// full reports whether a spawn now would have to wait for max_concurrent.
// Called with n.mu held.
func (n *Nursery) full() bool {
	limit := n.m.Config().MaxConcurrent
	if st := n.m.State(); limit <= 0 || (st != nursery.Open && st != nursery.Closing) {
		return false // no limit, or cancelling: the child is admitted already cancelled
	}
	return n.m.Running() >= limit || n.m.PendingCount() > 0
}

// nextQuota is the nearest limited nursery strictly above x.
func (x *Nursery) nextQuota() *Nursery {
	if p := x.owner.parent; p != nil {
		return p.quota
	}
	return nil
}

// ID is the nursery's id, unique within its scheduler.
func (n *Nursery) ID() uint64 { return n.id }

// Label is the label the nursery was opened with.
func (n *Nursery) Label() string { return n.label }

// Owner is the task that opened the nursery.
func (n *Nursery) Owner() *Task { return n.owner }

// Snapshot reports the nursery's state, outcome, first error and per-child
// results in spawn order. It is meant for tests, for the simulator's
// tables, and for a body inspecting its own nursery; outside the body it
// needs Config.KeepTasks (see the package doc on lifetimes).
func (view *nurseryView) Snapshot() nurserySnapshot {
	n := (*Nursery)(view)
	n.mu.Lock()
	defer n.mu.Unlock()
	snap := nurserySnapshot{
		Label: n.label, Mode: n.m.Mode(), State: n.m.State(), Outcome: n.m.Outcome(),
		Results: append([]Result(nil), n.m.Results()...),
	}
	if _, r, ok := n.m.FirstError(); ok {
		snap.FirstError, snap.HasError = r.ErrorText(), true
	}
	for i := 0; i < n.children.Len(); i++ {
		if c := *n.children.At(i); c != nil {
			snap.Children = append(snap.Children, c.id)
		}
	}
	return snap
}

// Nursery opens a nursery owned by t, runs body in t, then awaits every
// child. Entering is a checkpoint costing one op, and so is the end of the
// await. If body fails, panics or observes cancellation, the nursery is
// cancelled (NurseryExited, or the reason t was cancelled with) and still
// awaited before the failure goes on: inner nurseries always end before
// outer ones. A child error comes back as a *ChildError unless o.Catch.
func (t *Task) Nursery(o NurseryOptions, body func(n *Nursery) error) error {
	if t.s.cfg.Profile == ProfileCore {
		return &SchedError{Code: CodeCapabilityDenied, Detail: "nursery under the core profile"}
	}
	if err := t.pointOp(); err != nil {
		return err
	}
	n := t.openNursery(o)
	err, p := t.protectNursery(body, n)
	if err != nil || p != nil {
		n.exitBody(err, p, t.w)
	}
	n.await(t)
	unshared := t.w.unshared()
	t.leaveNursery(n, unshared)
	if p != nil {
		panic(p)
	}
	return t.nurseryResult(n, err, unshared)
}

// openNursery opens n, owned by t, and links it as t's innermost.
func (t *Task) openNursery(o NurseryOptions) *Nursery {
	t.enlist() // a cancellation of t's nursery must reach this one (lean.go)
	n := t.s.newNursery(t, o)
	if o.Timeout > 0 {
		t.w.timed = true // before the timer exists (worker.unshared)
		n.startTimeout(o.Timeout)
	}
	if t.w.unshared() {
		n.outer, t.owned = t.owned, n
	} else {
		t.mu.Lock()
		n.outer, t.owned = t.owned, n
		t.mu.Unlock()
	}
	n.linkScope(t)
	if r := t.marked(); r != 0 {
		// Marked between the checkpoint and the registration above:
		// markCancel may have missed this nursery.
		n.cancelOutside(nursery.Reason(r), t.w)
	}
	return n
}

// exitBody cancels n as its body leaves it with err or p: a body that
// observed a cancellation (its owner's, or the scope's) leaves n cancelled
// from outside, in n's own error mode; any other failure cancels every
// child (NurseryExited).
func (n *Nursery) exitBody(err error, p *PanicError, w *worker) {
	if p == nil && errors.Is(err, ErrCancelled) && n.owner.s.scoped() {
		n.cancelOutside(nursery.NurseryExited, w)
		return
	}
	n.cancel(nursery.NurseryExited, w)
}

// leaveNursery unlinks n, which has ended, from t's open nurseries.
func (t *Task) leaveNursery(n *Nursery, unshared bool) {
	n.unlinkScope(t)
	if unshared {
		t.owned = n.outer
		return
	}
	t.mu.Lock()
	t.owned = n.outer
	t.mu.Unlock()
}

// nurseryResult is what Task.Nursery returns once t has left n, given
// what the body returned, and recycles n.
func (t *Task) nurseryResult(n *Nursery, err error, unshared bool) error {
	// The lock, though the nursery is terminal: the worker that made it
	// terminal woke this task from inside its locked section, and may not
	// have left it yet (finishRest, apply); taking the lock waits for it,
	// before recycle lets another owner reset n. Unless w is unshared:
	// then that worker was w, one step before.
	if !unshared {
		n.mu.Lock()
	}
	outcome := n.m.Outcome()
	var first Result
	var firstErr error
	timedOut := false
	if outcome != nursery.Success { // the usual case reads no more
		_, first, _ = n.m.FirstError()
		firstErr = n.firstErr
		if len(n.errs) > 1 {
			firstErr = errors.Join(n.errs...) // collect_all: every error, the first first
		}
		timedOut = n.timeoutFails && outcome == nursery.OutcomeCancelled && n.m.CancelReason() == nursery.Timeout
	}
	if !unshared {
		n.mu.Unlock()
	}
	if n.absorbs(t, err) {
		err = nil // the scope's own cancellation ends with it
	}
	failed := outcome == nursery.ChildFailed && !n.catch
	label := n.label
	n.recycle(t.w)
	if timedOut && (err == nil || errors.Is(err, ErrCancelled)) {
		return &SchedError{Code: CodeNurseryTimeout, Detail: "nursery " + label}
	}
	// An error outranks a cancellation, across the owner boundary too: a
	// body that observed its owner's cancellation while a child had
	// already failed hands on the child's error, not the cancellation,
	// which would otherwise lose it. A body's own error stays its own.
	if err != nil && (!failed || !errors.Is(err, ErrCancelled) || mutant.On(mutant.ChildErrorDroppedOnCancel)) {
		return err
	}
	if failed {
		return &ChildError{Nursery: label, Child: first, Text: first.ErrorText(), Err: firstErr, cls: classify(firstErr)}
	}
	return t.point(Cost{})
}

// protectNursery is protect for a nursery body, without the closure that
// protect(func() error { return body(n) }) would allocate per nursery.
//
// A runtime.Goexit in the body cannot be stopped, but it must not leave
// the nursery's children behind: the deferred call cancels the nursery,
// awaits it and unlinks it, in the middle of the Goexit, before the Goexit
// goes on to end the task (Task.run).
//
//lint:ignore ST1008 the panic is a second result beside the error, not the error itself
func (t *Task) protectNursery(body func(*Nursery) error, n *Nursery) (err error, p *PanicError) {
	returned := false
	defer func() {
		if r := recover(); r != nil {
			if t.s.aborting.Load() {
				panic(r)
			}
			t.stepperPanicked(r)
			p = capture(r)
		} else if !returned && !t.s.aborting.Load() {
			n.cancel(nursery.NurseryExited, t.w)
			n.await(t)
			t.leaveNursery(n, false)
		}
	}()
	err = body(n)
	returned = true
	return err, nil
}

func (s *Scheduler) newNursery(owner *Task, o NurseryOptions) *Nursery {
	// A reused nursery comes from recycle, which left its outer, waiter,
	// timer, firstErr and errs nil and keepMem false (a nursery that
	// keeps its memory is not reused), as a new one has them: they are
	// not stored again here (TestRecycledNurseryFresh).
	n := owner.w.freeNurseries.get()
	if n == nil {
		n = &Nursery{keepMem: s.keep}
	}
	n.id, n.label, n.owner, n.catch = owner.w.newID(&s.nextNurseryID, &owner.w.nurseryIDs), o.Label, owner, o.Catch
	n.timeoutFails = o.TimeoutFails
	n.children.Reset()
	n.free = n.free[:0]
	// The atomics are stored only when they hold something else: a store
	// is a locked instruction (XCHG on amd64), and a reused nursery's
	// cancellation words are zero already and its spawn pool as before;
	// pending ends every nursery at awaitBit, and is set below.
	if n.fast.cancelled.Load() != 0 {
		n.fast.cancelled.Store(0)
	}
	if n.cancelling.Load() != 0 {
		n.cancelling.Store(0)
	}
	if n.scope.Load() != 0 {
		n.scope.Store(0)
	}
	n.credit = 0
	// Quiet: without a sink no one reads the transitions (apply traces
	// them, and a lean nursery's cancellation is told by Effects.Reason),
	// and recording them cost a fan-out tree's nursery about 70
	// instructions (docs/performance.md#nursery-bookkeeping).
	n.m.Reset(nursery.Config{Mode: o.Mode, MaxConcurrent: o.MaxConcurrent, Lean: !s.keep, ChildSpawns: true, Quiet: !owner.emitting()})
	n.isLean = n.m.Lean()
	n.startLocked = s.keep || o.Mode == nursery.CancelRemaining
	if !n.admitOpen(owner) {
		n.fast.pending.Store(0)
	}
	if o.Budget != nil {
		n.pool = *o.Budget
	} else {
		n.pool.copyFrom(&owner.budget)
	}
	n.linkQuota(s)
	if s.keep {
		s.register(nil, n)
	}
	if owner.emitting() {
		open := []trace.Field{trace.I(trace.KeyNursery, int64(n.id)), trace.S(trace.KeyLabel, n.label),
			trace.S(trace.KeyMode, o.Mode.String()), trace.S(trace.KeyTo, nursery.Open.String()), trace.S(trace.KeyCatch, "true")}
		if !o.Catch {
			open = open[:len(open)-1] // written only when set: the oracle needs it, other traces stay as they were
		}
		owner.emit(trace.KindNursery, open...)
	}
	return n
}

// linkQuota sets n's spawn_count pool and links n to the nearest limited
// pool at or above it (takeSpawn).
func (n *Nursery) linkQuota(s *Scheduler) {
	if left := int32(min(n.pool.SpawnCount, math.MaxInt32)); n.spawnLeft.Load() != left {
		n.spawnLeft.Store(left)
	}
	n.quota = n
	if q := n.nextQuota(); q != nil && s.cfg.Mode.Stepped() && q.spawnLeft.Load() <= n.spawnLeft.Load() {
		// Under the seeded driver (one step at a time, no concurrent
		// spawns) a pool at least as large as what is left above can never
		// be the one that runs out: every spawn below pays both. Linking
		// past it keeps a chain of self-spawning tasks linear, not
		// quadratic, in its depth.
		n.quota = q
	}
	if n.pool.SpawnCount >= math.MaxInt32 {
		n.quota = nil
		if p := n.owner.parent; p != nil {
			n.quota = p.quota
		}
	}
}

// copyFrom sets b to src, one component at a time. newNursery copies its
// owner's budget just after the owner's checkpoint wrote its Ops (pointOp),
// and a copy of the whole struct read that back 16 bytes at a time,
// which the store buffer cannot forward from an 8-byte store: a stall of
// about 20 cycles a nursery, 2% of a fan-out tree's time (pprof), where
// five 8-byte loads forward. TestBudgetCopyFrom checks every component.
func (b *Budget) copyFrom(src *Budget) {
	b.Ops, b.Memory, b.SpawnCount, b.ChannelOps, b.Syscalls = src.Ops, src.Memory, src.SpawnCount, src.ChannelOps, src.Syscalls
}

// recycle puts n, which its owner has just left, on the owner's
// worker's free list unless something may still refer to it. Every child
// has finished and been recorded, and the owner unlinked n under its own
// lock, so no other worker can reach n any more; n.mu is left as it is,
// unlocked, since the last child's worker may still be returning from
// Unlock.
func (n *Nursery) recycle(w *worker) {
	if n.keepMem || n.timer != nil {
		return
	}
	n.owner, n.quota, n.label, n.firstErr, n.errs = nil, nil, "", nil, nil
	// outer is left: Task.Nursery sets it as the nursery opens. waiter
	// and timer are nil already (the wake cleared one, and the other
	// stops reuse), keepMem false.
	if cap(n.free) > freeSlotsKept {
		n.free = nil // a nursery that once had many children at once does not keep their slots
	}
	w.freeNurseries.put(n)
}

// Spawn starts a child running fn in n. t is the calling task: n's owner,
// from its body, or a task running inside n (a child of n, or a
// descendant), which n then waits for too (see GoFrom); any other caller
// gets ErrNurseryNotActive. Spawning is a checkpoint costing one op and one spawn_count from the
// nursery's pool. It fails the caller with SpawnBudgetExhausted when the
// pool has no spawn_count left and with CapabilityDenied when the caller may
// not spawn. A child spawned after the nursery started cancelling is created
// already cancelled and never runs.
//
// The *Task it returns stays valid after the child ends, so a child spawned
// with Spawn is never reused; Go, which returns no handle, is the cheaper
// call when the handle is not needed.
func (n *Nursery) Spawn(t *Task, name string, fn Func, o SpawnOptions) (*Task, error) {
	if !n.admits(t) {
		return nil, n.notActive()
	}
	// The handle's Parent() must stay this nursery. Under mu: tasks
	// inside n may spawn into it from several workers at once.
	n.mu.Lock()
	n.keepMem = true
	n.mu.Unlock()
	return n.spawn(t, name, fn, o, false, false)
}

// admits reports whether t may spawn into n: t is n's owner, or runs
// inside n: below n in the task tree, or below a nursery its owner opened
// inside n's body (the outer links). Every nursery on the way up from a
// running task is open (it waits for the task), and an open nursery's
// outer link is fixed, set before any of its children existed, so the
// walk reads live, unchanging links only.
func (n *Nursery) admits(t *Task) bool {
	if t == n.owner {
		return true
	}
	for p := t.parent; p != nil; p = p.owner.parent {
		for q := p; q != nil; q = q.outer {
			if q == n {
				return true
			}
		}
	}
	return false
}

func (n *Nursery) notActive() error {
	return &SchedError{Code: CodeNurseryNotActive, Detail: "the caller is neither the nursery's owner nor inside it"}
}

// errFull is spawn's refusal of a TryGo; TryGo turns it into false.
var errFull = errors.New("full")

// spawn is Spawn; recycle says the child may be reused once done, try
// that a child which would have to wait for max_concurrent is not
// spawned at all (errFull).
func (n *Nursery) spawn(t *Task, name string, fn Func, o SpawnOptions, recycle, try bool) (*Task, error) {
	if t.caps&CapSpawn == 0 && !mutant.On(mutant.SkipCapabilityCheck) {
		return nil, &SchedError{Code: CodeCapabilityDenied, Detail: "spawn without the spawn capability"}
	}
	if err := t.pointOp(); err != nil {
		return nil, err
	}
	w := t.w
	child, err := n.newChild(t, name, fn, &o, recycle)
	if err != nil {
		return nil, err
	}

	if !n.takeSpawn() {
		return nil, &SchedError{Code: CodeSpawnBudgetExhausted, Detail: "nursery " + n.label}
	}

	if t == n.owner && n.credit > 0 && o.As == "" && !try && n.cancelling.Load() == 0 {
		// Admitted ahead, lock-free (lean.go). w.push written out, with
		// the test notify makes first in real mode: a busy run wakes
		// nobody, and this saves three calls a spawn.
		n.credit--
		child.child = -1
		// Counted live when its batch was admitted (admitPending).
		if w.em.on() {
			n.emitSpawn(w, child, t, nursery.AdmitRun)
		}
		w.push(child)
		return child, nil
	}
	return n.admitChild(t, child, &o, try)
}

// admitChild is spawn's locked part: child, made and paid for, is admitted by
// the state machine (to run, to wait for max_concurrent, or already
// cancelled) and published; or, for a try that would wait, or a nursery
// that has ended, given back.
func (n *Nursery) admitChild(t *Task, child *Task, o *SpawnOptions, try bool) (*Task, error) {
	s, w := n.owner.s, t.w
	n.mu.Lock()
	if try && n.full() {
		n.mu.Unlock()
		n.unspawn(child, w)
		return nil, errFull
	}
	// A lean nursery admitting a child to run (most spawns) has no
	// effects to carry out: AdmitLean skips making and applying them.
	c, lean := n.m.AdmitLean()
	admit := nursery.AdmitRun
	var err error
	if !lean {
		c, admit, err = n.m.Spawn(nil)
	}
	if err != nil {
		// Only a terminal nursery refuses (ChildSpawns): a handle used
		// after its nursery ended.
		n.mu.Unlock()
		n.unspawn(child, w)
		return nil, &SchedError{Code: CodeNurseryNotActive, Detail: "spawn into a nursery that has ended"}
	}
	child.child = slotOf(c)
	switch {
	case !n.lean():
		n.children.Append(child)
	case admit == nursery.AdmitRun:
		// Not enlisted (lean.go) unless a supervisor may look it up.
		child.child = -1
		if o.As != "" {
			child.child = n.addSlot(child)
		}
		n.admitPending(t, w)
	}
	w.addLive(1)
	if s.keep { // register is a call, and a spawn that keeps nothing need not make it
		s.register(child, nil)
	}
	if w.em.on() {
		n.emitSpawn(w, child, t, admit)
	}
	switch admit {
	case nursery.AdmitRun:
		w.push(child)
	case nursery.AdmitCancelled:
		child.result = nursery.CancelledBy(n.m.CancelReason())
		child.mark.Store(uint32(child.result.Reason))
		s.retire(child, w)
	}
	if !lean {
		n.apply(w)
	}
	n.mu.Unlock()
	return child, nil
}

// emitSpawn writes the spawn event of child, spawned by t.
func (n *Nursery) emitSpawn(w *worker, child, t *Task, admit nursery.Admit) {
	w.em.emit(trace.KindSpawn, trace.I(trace.KeyTask, int64(child.id)), trace.I(trace.KeyParent, int64(t.id)),
		trace.I(trace.KeyNursery, int64(n.id)), trace.S(trace.KeyName, child.name), trace.S(trace.KeyAdmit, admit.String()))
}

// newChild makes the task t spawns into n, not yet published: from w's
// free list, with its budget and capabilities. recycle says the child
// may be reused once done.
func (n *Nursery) newChild(t *Task, name string, fn Func, o *SpawnOptions, recycle bool) (*Task, error) {
	s, w := n.owner.s, t.w
	child := w.freeTasks.get()
	if child == nil {
		child = &Task{}
	}
	child.s, child.id, child.name, child.fn, child.parent = s, w.newID(&s.nextTaskID, &w.taskIDs), name, fn, n
	child.recycle = recycle && !s.keep
	if o.Budget != nil {
		b := *o.Budget
		child.budget, child.initial = b, &b
	} else {
		child.budget, child.initial = s.cfg.Budget, &s.cfg.Budget
	}
	child.caps = t.caps
	// Capabilities are explicit only under sovereign; under service and
	// cluster every task holds every capability and a spawn's caps mean
	// nothing.
	if o.HasCaps && s.cfg.Profile == ProfileSovereign {
		if extra := o.Caps &^ t.caps; extra != 0 {
			return nil, &SchedError{Code: CodeCapabilityDenied, Detail: "spawn asks for " + extra.String() + " which the spawner lacks"}
		}
		child.caps = o.Caps
	}
	if o.As != "" {
		child.ext().as = o.As
	}
	return child, nil
}

// unspawn undoes a spawn refused after takeSpawn: the spawn_count goes
// back to the pools, and child, never published, back to w's free list.
func (n *Nursery) unspawn(child *Task, w *worker) {
	n.refundSpawn()
	if child.recycle {
		*child = Task{}
		w.freeTasks.put(child)
	}
}

// freeSlotsKept bounds the free-slot list a reused nursery keeps.
const freeSlotsKept = 1024

// addSlot puts child, just admitted, in a free slot of a lean nursery's
// children (or a new one) and returns the slot, which stands for the child
// from then on: a lean nursery's memory follows how many children are
// unfinished at once, not how many it ever had. Called with n.mu held.
func (n *Nursery) addSlot(child *Task) int32 {
	if k := len(n.free); k > 0 {
		i := n.free[k-1]
		n.free = n.free[:k-1]
		*n.children.At(int(i)) = child
		return i
	}
	return slotOf(nursery.Child(n.children.Append(child)))
}

// slotOf is c as a Task keeps it. A nursery would hold 2^31 children (a
// Result each, 64 GiB) before c overflowed an int32; a run that gets there
// stops here rather than mixing children up.
func slotOf(c nursery.Child) int32 {
	if c > math.MaxInt32 {
		panic("sched: slotOf: more than 2^31 children in one nursery")
	}
	return int32(c)
}

// freeSlot empties slot c of a lean nursery. Called with n.mu held.
func (n *Nursery) freeSlot(c int32) {
	*n.children.At(int(c)) = nil
	n.free = append(n.free, c)
}

// Go spawns fn into n without handing out a *Task: the usual call, as
// errgroup.Group.Go is. o, at most one, sets the child's budget,
// capabilities and supervisor name (the default options otherwise). It
// fails as Spawn does. Since no *Task escapes, the scheduler reuses the
// child's memory once it is done.
//
// Only n's owner may call Go, from its body: Go is not handed the calling
// task, so it spawns on the owner's behalf. A child (or any task inside n)
// that spawns into n, as an errgroup worker calling g.Go does, calls
// n.GoFrom(t, name, fn) with its own *Task instead. Go called by another
// task while the owner is not running panics with a message saying so;
// see ownerRuns for what goes unseen.
func (n *Nursery) Go(name string, fn Func, o ...SpawnOptions) error {
	opts := spawnOptions("Go", o)
	if err := n.ownerRuns("Go"); err != nil {
		return err
	}
	_, err := n.spawn(n.owner, name, fn, opts, true, false)
	return err
}

// GoFrom is Go called by t, a task running inside n (a child of n, or a
// descendant of one) or n's owner: a child spawns into the nursery it was
// handed, as in Trio, and stays structured, since n waits for every
// child, these included, before its owner leaves it. A task outside n
// gets ErrNurseryNotActive (a *Nursery is valid only while n's body or
// one of its children runs: see the package doc on lifetimes). The spawn
// is t's checkpoint and is charged to t and to n's pool.
func (n *Nursery) GoFrom(t *Task, name string, fn Func, o ...SpawnOptions) error {
	opts := spawnOptions("GoFrom", o)
	if !n.admits(t) {
		return n.notActive()
	}
	_, err := n.spawn(t, name, fn, opts, true, false)
	return err
}

// TryGo is Go unless the nursery's MaxConcurrent children already run (or
// wait to): then it spawns nothing and reports false, as errgroup's TryGo
// does, so that the owner can do something else instead of queueing
// more work. Without MaxConcurrent it always spawns. Go, past
// MaxConcurrent, queues the child, whose memory then counts while it
// waits; spawn_count bounds how many can. Like Go, only n's owner may call
// it; another task calling it panics, naming GoFrom as the call to make.
func (n *Nursery) TryGo(name string, fn Func, o ...SpawnOptions) (bool, error) {
	opts := spawnOptions("TryGo", o)
	if err := n.ownerRuns("TryGo"); err != nil {
		return false, err
	}
	_, err := n.spawn(n.owner, name, fn, opts, true, true)
	if err == errFull {
		return false, nil
	}
	return err == nil, err
}

// spawnOptions is the optional SpawnOptions argument of Go and friends.
func spawnOptions(op string, o []SpawnOptions) SpawnOptions {
	switch len(o) {
	case 0:
		return SpawnOptions{}
	case 1:
		return o[0]
	}
	panic("sched: Nursery." + op + ": more than one SpawnOptions")
}

// ownerRuns panics unless n's owner is running: Go, which is not handed
// the calling task, would otherwise spawn on the owner's behalf from
// another task, a data race. It catches a call from a child while the owner
// awaits or is queued; one made while the owner also runs, on another
// worker, goes unseen (the race detector sees it). A nursery that has
// ended and not been reused yet has no owner: that is ErrNurseryNotActive
// (the JDK's fork after close), not a panic; one already reused for
// another nursery cannot be told apart (see the package doc on lifetimes).
func (n *Nursery) ownerRuns(op string) error {
	if n.owner == nil {
		return &SchedError{Code: CodeNurseryNotActive, Detail: "Nursery." + op + " on a nursery that has ended"}
	}
	if n.owner.ops().State() != stateRunning {
		panic(notOwnerMessage(op))
	}
	return nil
}

// notOwnerMessage is ownerRuns's panic: it names the call to make instead,
// which is what an errgroup port (g.Go from inside a worker) needs to read.
func notOwnerMessage(op string) string {
	m := "sched: Nursery." + op + ": called by a task other than the nursery's owner (the owner is not running): " +
		"only the owner may call " + op + ", from its body; a child or any task inside the nursery calls " +
		"n.GoFrom(t, name, fn) with its own *Task t instead"
	if op == "TryGo" {
		m += " (GoFrom queues past MaxConcurrent: there is no TryGo for a child)"
	}
	return m
}

// Cancel cancels the nursery (ExplicitCancel). Only the owner calls it.
//
// It cancels the nursery's whole scope (docs/semantics.md#scoped-cancellation):
// its children, the nurseries t opened inside its body, and t's own code
// in the body, which observes ExplicitCancel at its next checkpoint until
// it leaves the nursery; Task.Nursery then returns nil, as for a nursery
// whose children were cancelled.
func (n *Nursery) Cancel(t *Task) {
	n.mu.Lock()
	n.m.Cancel(nursery.ExplicitCancel, nil)
	n.apply(t.w)
	n.cancelScope(nursery.ExplicitCancel, t.w)
	n.mu.Unlock()
}

// cancel moves the nursery to Cancelling with reason r and marks its
// unfinished children. Any worker may call it.
func (n *Nursery) cancel(r nursery.Reason, w *worker) {
	n.mu.Lock()
	n.m.Cancel(r, nil)
	n.apply(w)
	n.mu.Unlock()
}

// complete records that child t finished. Called by the worker that ran t.
func (n *Nursery) complete(t *Task, w *worker) {
	if n.isLean && !t.result.IsError() && t.child < 0 && !mutant.Enabled {
		// completeFast's common case, written out: a child that never
		// enlisted ended without an error.
		if n.fast.pending.Add(-1) == awaitBit {
			n.finishLast(w)
		}
		return
	}
	n.completeRest(t, w)
}

// completeRest is complete but for its common case, which thus makes
// no call of completeFast.
func (n *Nursery) completeRest(t *Task, w *worker) {
	lean := n.lean()
	if lean && n.completeFast(t, w) {
		return
	}
	n.mu.Lock()
	c, last := t.child, false
	if lean {
		last = n.fast.pending.Add(-1) == awaitBit // see lean.go
		c = max(c, 0)                             // a lean nursery knows no child; any valid one will do
	}
	_, _, hadErr := n.m.FirstError()
	if err := n.m.Complete(nursery.Child(c), t.result, nil); err != nil {
		n.mu.Unlock()
		panic(fmt.Sprintf("sched: Nursery.complete: %v", err))
	}

	if t.result.IsError() {
		err := t.failure()
		if err == nil {
			err = errors.New(t.result.ErrorText())
		}
		if !hadErr {
			n.firstErr = err // this child's error is the first
		}
		if n.m.Mode() == nursery.CollectAll {
			n.errs = append(n.errs, err)
		}
	}
	switch {
	case lean:
		if t.child >= 0 {
			n.freeSlot(t.child)
		}
	case !n.owner.s.keep:
		// The result is kept by the nursery; the task itself can go, so
		// that a nursery with a million finished children does not hold
		// a million tasks.
		*n.children.At(int(t.child)) = nil
	}
	n.apply(w)
	if last {
		n.finishRest(w)
	}
	n.mu.Unlock()
}

// start records that child t runs its first step, unless it was cancelled
// while queued, in which case it must never run (race protection, seed
// 003): start reports false and the caller retires it.
//
// Only cancel_remaining tells started children apart (its first error and
// its timeout spare them), so elsewhere, unless the scheduler keeps its
// records for tables, start only checks the mark, without the nursery's
// lock: the lock the spawner and the finishing children contend for most.
//
// In real mode the worker looked at t's mark as it took t (worker.step),
// one step before this one, on its own goroutine: a cancellation landing
// between the two is one just after the start, which t observes at its
// first checkpoint, so the look is not repeated. Under the seeded driver
// another worker's step may come between them, and its retirement is in
// the trace.
func (n *Nursery) start(t *Task) bool {
	if !n.startLocked {
		return !t.s.cfg.Mode.Stepped() || t.marked() == 0 || mutant.On(mutant.QueuedCancelRuns)
	}
	return n.startLocking(t)
}

// startLocking is start under the lock, a function of its own so that
// start's common case sets up no deferred call.
func (n *Nursery) startLocking(t *Task) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if r := t.mark.Load(); r != 0 && !mutant.On(mutant.QueuedCancelRuns) {
		return false
	}
	if err := n.m.Start(nursery.Child(t.child)); err != nil {
		panic(fmt.Sprintf("sched: Nursery.start: %v", err))
	}
	return true
}

// apply carries out the effects in n.m.Scratch(). Called with n.mu held; it only
// takes locks further down the task tree (children, their nurseries), so
// lock order always follows the tree from the root down.
func (n *Nursery) apply(w *worker) {
	e := n.m.Scratch()
	if len(e.Transitions) == 0 && e.Reason == nursery.NoReason && len(e.Cancel) == 0 && !e.CancelAll && len(e.Dropped) == 0 && len(e.Release) == 0 && !e.Terminal {
		return // most spawns and completions, and a quiet Close: nothing to carry out
	}
	s := n.owner.s
	if e.Reason != nursery.NoReason && n.lean() {
		// A lean nursery's Reason is set exactly when this call moved
		// it to Cancelling (package nursery's cancel), whether or not the
		// transitions are recorded.
		n.publishCancel()
	}
	em := s.emitter(w)
	if em.on() {
		for _, tr := range e.Transitions {
			if tr.To == nursery.Cancelling {
				em.emit(trace.KindNursery, trace.I(trace.KeyNursery, int64(n.id)), trace.S(trace.KeyLabel, n.label),
					trace.S(trace.KeyFrom, tr.From.String()), trace.S(trace.KeyTo, tr.To.String()),
					trace.S(trace.KeyReason, n.m.CancelReason().String()))
				continue
			}
			em.emit(trace.KindNursery, trace.I(trace.KeyNursery, int64(n.id)), trace.S(trace.KeyLabel, n.label),
				trace.S(trace.KeyFrom, tr.From.String()), trace.S(trace.KeyTo, tr.To.String()))
		}
	}
	if len(e.Cancel)|len(e.Dropped)|len(e.Release) != 0 || e.CancelAll {
		n.applyChildren(w, e)
	}
	if e.Reason != nursery.NoReason && n.reaches(e.Reason) {
		r := e.Reason // e is n's scratch, which the walk below does not touch
		n.markScope(r, false, w)
		n.reachInner(r, false, w)
	}
	if e.Terminal {
		if n.timer != nil {
			s.timers.kill(n.timer)
		}
		if em.on() {
			fields := []trace.Field{trace.I(trace.KeyNursery, int64(n.id)), trace.S(trace.KeyLabel, n.label),
				trace.S(trace.KeyOutcome, n.m.Outcome().String())}
			if _, r, ok := n.m.FirstError(); ok {
				fields = append(fields, trace.S(trace.KeyError, r.ErrorText()))
			}
			if n.lean() {
				// The lean path shows: a lean nursery keeps a record only of
				// the children that enlisted (lean.go), the others it counted.
				fields = append(fields, trace.I(trace.KeyRecords, int64(n.children.Len())))
			}
			em.emit(trace.KindNursery, fields...)
		}
		if o := n.waiter; o != nil {
			n.waiter = nil
			s.wakeOwner(w, o)
		}
	}
}

// applyChildren is apply's part that acts on children: the cancellations,
// the dropped and the released. Most effects have none (an await's Close,
// a nursery's end), so its four loops are a call apply makes only when
// there is something for them (about 20 instructions an apply otherwise).
func (n *Nursery) applyChildren(w *worker, e *nursery.Effects) {
	s := n.owner.s
	for _, c := range e.Cancel {
		(*n.children.At(int(c))).markCancel(e.Reason, w)
	}
	if e.CancelAll {
		for i := 0; i < n.children.Len(); i++ {
			if c := *n.children.At(i); c != nil {
				c.markCancel(e.Reason, w)
			}
		}
	}
	for _, c := range e.Dropped {
		child := (*n.children.At(int(c)))
		child.result = n.m.Result(c)
		child.mark.CompareAndSwap(0, uint32(child.result.Reason))
		s.retire(child, w)
	}
	for _, c := range e.Release {
		s.pushFrom(w, (*n.children.At(int(c))))
	}
}

// timeout fires the nursery's timeout (from the clock, outside any worker).
func (n *Nursery) timeout(w *worker) {
	n.mu.Lock()
	if !n.m.Terminal() {
		n.m.Timeout(nil)
		n.apply(w)
		n.cancelScope(nursery.Timeout, w)
	}
	n.mu.Unlock()
}

// await closes the nursery and blocks t, its owner, until it is terminal.
func (n *Nursery) await(t *Task) {
	unshared := t.w.unshared() // then no lock (worker.unshared)
	if !unshared {
		n.mu.Lock()
	}
	if err := n.m.Close(nil); err != nil {
		if !unshared {
			n.mu.Unlock()
		}
		panic(fmt.Sprintf("sched: Nursery.await: %v", err))
	}
	n.apply(t.w)
	if n.lean() && !n.m.Terminal() && n.fast.pending.Add(awaitBit-n.takeCredit(t.w)) == awaitBit {
		// Every child has ended: those the state machine still counts as
		// running ended lock-free (lean.go).
		n.finishRest(t.w)
	}
	done := n.m.Terminal()
	if !done && t.w.alone() && !mutant.On(mutant.OrphanEscapes) {
		// A lone worker's owner parks at once, under the lock it holds:
		// nothing can wake it before it has suspended, since what wakes
		// it (its last child's end, the clock's timeout) only queues it
		// for this same worker's next step. The worker then acts on the
		// suspension as on a channel's parked block (reasonParked),
		// without park's second lock (docs/performance.md#the-owner-goes-next).
		n.waiter = t
		t.state.Store(uint32(stateBlocked))
		if !unshared {
			n.mu.Unlock()
		}
		t.w.blockOn = n
		t.siteHere()
		t.suspend(reasonParked)
		return
	}
	if !unshared {
		n.mu.Unlock()
	}
	if !done && !mutant.On(mutant.OrphanEscapes) {
		t.w.blockOn = n
		t.siteHere()
		t.suspend(reasonBlock)
	}
}

// park registers the owner as waiting unless the nursery already ended.
// Without a deferred unlock: nothing in it can panic, and the defer cost
// about ten instructions an await.
func (n *Nursery) park(t *Task, w *worker) bool {
	n.mu.Lock()
	if n.m.Terminal() {
		n.mu.Unlock()
		return false
	}
	n.waiter = t
	t.state.Store(uint32(stateBlocked))
	n.mu.Unlock()
	return true
}

func (n *Nursery) describe() string { return fmt.Sprintf("nursery %s (n%d)", n.label, n.id) }
