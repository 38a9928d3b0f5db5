package sched

import (
	"sync/atomic"
	"time"

	"github.com/cbcsim/cbcsim/deque"
	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// worker runs tasks from its local deque, the global queue and its victims'
// deques. Its methods run on the worker's own goroutine (real mode) or on the
// driver's (seeded mode), never on two at once.
type worker struct {
	// "w's steps" below is the one goroutine that runs w's loop at a
	// time: in real mode w's carry goroutine (the loop fiber, or the task
	// hosting the loop), in the stepped modes the driver's, which runs
	// every worker's steps one at a time. A field only w's steps write
	// needs no lock; the others say what they take.

	// Read by the other workers (stealing, waking); written once, by New.
	s    *Scheduler
	id   int
	dq   *deque.Deque[Task] // w's steps push and pop (owner); any worker steals (deque's rules)
	wake chan struct{}      // real mode: a sleeping worker's wake-up (capacity 1); any goroutine sends (signal), w receives
	// next is the task w's running task woke last, in a real-mode run
	// without a sink with several workers (wakeFrom): w runs it as soon
	// as the running task suspends, and other workers take it only once
	// it has sat there nextGrace (stealNext). Written by w's goroutine;
	// taken by it or, with a compare-and-swap, by a thief.
	next atomic.Pointer[Task]
	_    [cacheLine]byte

	// Written on every step: kept off the line the other workers read.
	// Every field from here to the end is w's steps' alone unless it
	// says otherwise.
	cur *Task // the task w is in the middle of; w's steps
	// seen[i] is the task this worker, idle, last saw in worker i's next
	// slot, and when it first saw it there (stealNext); made at the
	// first look.
	seen []seenNext

	rng xoshiro // the random victim strategy's source; w's steps
	rr  int     // the round_robin strategy's next victim; w's steps
	// parked: w found nothing on its last step and has not been woken
	// since (the stepped modes' park; real mode parks in idle). w's step
	// sets it; in the stepped modes any worker's step clears it (notify)
	// and the driver reads it between steps (Parked), one goroutine at a
	// time.
	parked bool
	// fibs is this worker's idle fibers, in front of the scheduler's
	// pool: w's steps, and closeFibers once the workers stopped.
	fibs *fiber.Cache
	// c carries w's loop on fibers (inline.go): own, w's own in real
	// mode; under a driver the scheduler's one carrier for every worker.
	// Written by New.
	c *carrier
	// mode is what w's run allows it (mode.go): written by New, read-only
	// afterwards.
	mode workerMode
	// hosted counts the suspensions a task hosted w's loop for (tests).
	hosted int64
	// parkedHeld counts the channel blocks of w's tasks parked under the
	// lock of their operation (waitOnChannel, tests).
	parkedHeld int64
	// relayed counts the relays of w's tasks' fibers (relay, tests).
	relayed int64
	// held is a lone worker's global queue head, kept out of the queue
	// (yieldHeld); nil otherwise.
	held *Task
	// stack is a lone worker's deque (alone): no other worker steals
	// from it, so its tasks need not be in the Chase-Lev deque, whose
	// push and pop make two locked stores each
	// (docs/performance.md#the-lone-worker).
	// Only w's steps touch it; dq stays empty then.
	stack []*Task
	// timed: a task w ran armed a nursery's timeout (Task.Nursery), so
	// w is no longer unshared. Written by w's steps only.
	timed bool
	// blockOn is what the current task blocks on, set by the task just
	// before its fiber yields with reasonBlock. It travels here, read at
	// once, rather than in a Task field that would be empty but while a
	// task blocks (docs/performance.md#parked-task-memory). The task runs
	// on w's goroutine, so this is w's steps' alone too.
	blockOn blocker
	timer   *time.Timer // real mode: the timed parks of backoff; w's goroutine
	em      emitter     // w's events (actor w); w's steps
	// stats are w's counters: written by w's steps, read by Stats between
	// steps (stepped modes) or once Run has returned.
	stats workerStats

	// live is tasks created on this worker minus those finished here (see
	// Scheduler.Live): w adds to it (foldLive); Live and the other workers
	// (othersProgress) read it. Accessed atomically.
	live atomic.Int64
	// liveDelta is what w has yet to add to live, and liveOps counts the
	// changes, in a run that batches them (addLive). w's steps; a stepped
	// driver's Live reads liveDelta between two steps.
	liveDelta int64
	liveOps   uint32

	taskIDs, nurseryIDs idBlock // unless the mode keeps every task: ids reserved in blocks; w's steps

	freeTasks     freeList[Task]    // done tasks for reuse (see free.go); w's steps, the overflow under sharedFree's mutex
	freeNurseries freeList[Nursery] // done nurseries for reuse; likewise
	// own is w's carrier in real mode (c), out of the lines the step's
	// hot fields share: it is touched once a task start or relay, by w's
	// goroutine only (see carrier).
	own carrier
	_   [cacheLine]byte // nor share a line with whatever the allocator puts next
}

// cacheLine is the padding between data written by different workers.
const cacheLine = 64

// ID is the worker's index.
func (w *worker) ID() int { return w.id }

// Stats returns the worker's counters.
func (w *worker) Stats() workerStats { return w.stats }

// Parked reports whether the worker found no work on its last step and has
// not been woken since (seeded mode).
func (w *worker) Parked() bool { return w.parked }

// Step performs one atomic action: run the current task to its next
// checkpoint (in real mode, until it yields, blocks or ends), or take a task
// (local pop, global queue, steal), or park. It reports false when the
// worker parked.
func (w *worker) Step() bool {
	did, _ := w.step()
	if p := w.s.stepperPanic; p != nil {
		w.s.stepperPanic = nil
		panic(p) // the driver's own code panicked on a task's fiber
	}
	return did
}

// step is Step. It returns inline, the task it took or resumed, when that
// task has no fiber and w's loop runs on one: the caller runs the task's
// body on its own stack (inline.go).
func (w *worker) step() (did bool, inline *Task) {
	w.stats.Steps++
	if t := w.cur; t != nil {
		if t.fib != nil { // started: resume it
			t.w = w
			w.drive(t, 0)
			return true, nil
		}
		if w.run(t) {
			return true, t
		}
		return true, nil
	}
	t := w.find()
	if t == nil {
		w.stats.Parks++
		w.parked = true
		if w.s.cfg.Mode.Stepped() {
			w.s.parkEpoch++ // the driver's, read between steps
		}
		w.em.emit(trace.KindPark)
		return false, nil
	}
	// t becomes the current task unless it was cancelled while queued:
	// then it is retired unrun (as in yieldToGlobal).
	if !t.started && t.marked() != 0 && !mutant.On(mutant.QueuedCancelRuns) {
		w.retireUnstarted(t)
		return true, nil
	}
	w.cur = t
	if t.fib == nil && w.c.loopFib != nil && !w.stepped() {
		// Real mode's loop: the next step, which starts t, written out
		// (loop's accounting of this step, then step's own), so that a
		// task's pop and its start stay two steps, for MaxSteps and the
		// timer checks, without a second pass through loop and step. Only
		// where the loop is w's own (a driver's loop keeps its steps
		// apart, each its choice; a host's has no loop fiber).
		w.counted()
		w.stats.Steps++
		if w.run(t) {
			return true, t
		}
	}
	return true, nil
}

// find takes the next task: local deque, then global queue, then stealing.
func (w *worker) find() *Task {
	var t *Task
	if w.alone() {
		t = w.popStack()
	} else if t = w.takeNext(); t == nil {
		t = w.dq.Pop()
	}
	if t != nil {
		w.stats.Pops++
		if w.em.on() {
			w.em.emit(trace.KindPop, trace.I(trace.KeyTask, int64(t.id)))
		}
		return t
	}
	t = w.held // a lone worker's global queue head (yieldHeld)
	if t != nil {
		w.held = nil
	} else {
		t = w.s.global.pop()
	}
	if t != nil {
		w.stats.Globals++
		if w.em.on() {
			w.em.emit(trace.KindGlobal, trace.I(trace.KeyTask, int64(t.id)))
		}
		return t
	}
	return w.steal()
}

// steal makes at most min(N-1, 4) attempts (docs/spec.md#workers).
func (w *worker) steal() *Task {
	n := len(w.s.workers)
	attempts := min(n-1, 4)
	for a := 0; a < attempts; a++ {
		v := w.s.workers[w.victim(a)]
		if t := v.dq.Steal(); t != nil {
			w.stole(v, t, false)
			if w.s.cfg.StealHalf {
				w.stealMore(v)
			}
			return t
		}
		w.stats.StealsFailed++
		if w.em.on() {
			w.em.emit(trace.KindStealFail, trace.I(trace.KeyVictim, int64(v.id)))
		}
	}
	if w.nextSlots() {
		return w.stealNext()
	}
	return nil
}

// nextGrace is how long a task must sit in another worker's next slot
// before an idle worker takes it: the task its owner's running task has
// just woken, which the owner runs next, on the core whose cache holds
// what the two share (a channel hand-over: Go's runtime keeps such a
// goroutine in its processor's runnext the same way, and lets a thief
// take it only after a few microseconds). A task woken by one that then
// runs on without suspending is taken after the grace.
const nextGrace = 4 * time.Microsecond

// stealNext takes a task that has sat in another worker's next slot for
// its grace (graceOver). (Real mode's idle loop looks without taking:
// nextDue.)
func (w *worker) stealNext() *Task {
	for i, v := range w.s.workers {
		t := v.next.Load()
		if v == w || t == nil {
			w.unsee(i)
			continue
		}
		if !w.graceOver(i, t) {
			continue
		}
		w.unsee(i)
		if mutant.On(mutant.StealNextKeeps) {
			w.stole(v, t, true)
			return t
		}
		if v.next.CompareAndSwap(t, nil) {
			if w.stepped() {
				w.s.slotted--
			}
			w.stole(v, t, true)
			return t
		}
	}
	return nil
}

// graceOver reports whether t, in worker i's next slot, may be taken: in
// a stepped run the driver decides (DecideStealNext); in real mode t has
// sat there nextGrace (realGrace).
func (w *worker) graceOver(i int, t *Task) bool {
	if w.stepped() {
		return w.decide(link.DecideStealNext, t)
	}
	return w.realGrace(i, t)
}

// seenNext is a task an idle worker saw in another worker's next slot,
// and since when (stealNext).
type seenNext struct {
	t  *Task
	at time.Time
}

// stole counts and records one task taken from v: from its deque, or
// from its next slot (slot).
func (w *worker) stole(v *worker, t *Task, slot bool) {
	w.stats.Steals++
	t.steals++
	if !w.em.on() {
		return
	}
	if slot {
		w.em.emit(trace.KindSteal, trace.I(trace.KeyVictim, int64(v.id)), trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeySlot, "next"))
		return
	}
	w.em.emit(trace.KindSteal, trace.I(trace.KeyVictim, int64(v.id)), trace.I(trace.KeyTask, int64(t.id)))
}

// stealMore is the rest of a StealHalf steal: it moves half of what v's
// deque still holds, at most link.StealBatchMax-1 tasks, onto w's own deque,
// oldest first, one Chase-Lev steal each so that the owner's lock-free pop
// stays correct.
func (w *worker) stealMore(v *worker) {
	k := min(v.dq.Len()/2, link.StealBatchMax-1)
	for range k {
		t := v.dq.Steal()
		if t == nil {
			return
		}
		w.stole(v, t, false)
		w.dq.Push(t)
	}
}

// victim picks the worker to steal from on attempt a; never w itself. The
// seed's pseudocode may draw w and skip the attempt; drawing among the other
// N-1 workers makes every attempt a real one.
func (w *worker) victim(a int) int {
	n := len(w.s.workers)
	if src := w.s.cfg.Victims; src != nil {
		return src.NextVictim(w.id)
	}
	switch w.s.cfg.Victim {
	case VictimRoundRobin:
		w.rr = (w.rr + 1) % n
		if w.rr == w.id {
			w.rr = (w.rr + 1) % n
		}
		return w.rr
	case VictimLeastLoaded:
		// The a-th busiest other worker by deque length (a snapshot);
		// ties go to the lower index.
		best, bestLen := -1, -1
		for rank := 0; rank <= a; rank++ {
			best, bestLen = w.busiest(best, bestLen)
		}
		return best
	}
	v := w.rng.Intn(n - 1)
	if v >= w.id {
		v++
	}
	return v
}

// busiest returns the busiest worker other than w ranked strictly after
// (prevLen, prev) in (length desc, index asc) order.
func (w *worker) busiest(prev, prevLen int) (int, int) {
	best, bestLen := -1, -1
	for i, v := range w.s.workers {
		if i == w.id {
			continue
		}
		l := v.dq.Len()
		after := prev < 0 || l < prevLen || (l == prevLen && i > prev)
		if after && (l > bestLen) {
			best, bestLen = i, l
		}
	}
	if best < 0 {
		return prev, prevLen
	}
	return best, bestLen
}

// run starts t, which has not run yet and has no fiber, and runs it
// until its next checkpoint (seeded) or until it yields, blocks or ends
// (real mode). When w's loop runs on a fiber, run gives t that fiber and
// reports inline instead, and the loop returns the task to the fiber's
// body, which runs it on its own stack (inline.go).
func (w *worker) run(t *Task) (inline bool) {
	if !t.started && !w.begin(t) {
		return false
	}
	t.w = w
	if c := w.c; c.loopFib != nil {
		t.fib, c.took = c.loopFib, t
		if w.stepped() {
			w.s.fibered.took(t) // for Abort, which no kept task list may cover
		}
		w.running(t)
		return true
	}
	t.fib = w.fibs.Get((*taskBody)(t))
	if w.stepped() {
		w.s.fibered.took(t) // for Abort, which no kept task list may cover
	}
	w.drive(t, 0)
	return false
}

// running marks t as running on w, just before it runs.
func (w *worker) running(t *Task) {
	t.state.Store(uint32(stateRunning))
	t.steps++
	w.stats.Runs++
	if w.em.on() {
		w.em.emitRun(t.id)
	}
}

// begin starts t, which has not run yet, in its nursery, unless it was
// cancelled while queued: then it retires t and reports false.
func (w *worker) begin(t *Task) bool {
	if n := t.parent; n != nil && !n.start(t) {
		w.cur = nil
		w.retireUnstarted(t)
		return false
	}
	t.started = true
	return true
}

// ended finishes t, whose fiber has finished its body.
func (w *worker) ended(t *Task) {
	if pe := t.fib.Panic(); pe != nil && !pe.Goexited() {
		// Task.run recovers every panic of the body (and ends the task
		// itself on a Goexit); reaching here is a scheduler bug, reported
		// as the task's panic.
		t.result = nursery.Panic("sched: " + pe.Error())
		t.ext().panicStack = pe.Stack
	}
	w.cur = nil
	w.finish(t)
}

// drive resumes t, which has a fiber, until its next checkpoint (seeded)
// or until it yields, blocks or ends (real mode). A non-zero why is a
// suspension of t for that reason to act on first: t suspended on the
// loop fiber it took (carry).
func (w *worker) drive(t *Task, why fiber.Reason) {
	for {
		if why == 0 {
			// running(t), written out: drive is the hot path, and running
			// is not inlined.
			if w.s.cfg.Mode.Stepped() {
				t.storeStepped(stateRunning)
			} else {
				t.state.Store(uint32(stateRunning))
			}
			t.steps++
			w.stats.Runs++
			if w.em.on() {
				w.em.emitRun(t.id)
			}
			relays := w.c.relays
			var st fiber.Status
			why, st = t.fib.Resume()
			if w.c.relays != relays {
				// t ended and its fiber took w's loop over (relay), and
				// now gives it back: t is gone, and what the fiber hands
				// back is carry's to act on, here, as the worker of the
				// task it hands back (under a driver, any worker's).
				if t = w.relayBack(st); t == nil {
					return
				}
				if tw := t.w; tw != w {
					tw.drive(t, why) // another worker's task: a driver's loop steps them all
					return
				}
			} else if st != fiber.Suspended {
				w.ended(t)
				return
			}
		}
		if why == reasonCheckpoint { // stepped modes only: every seeded step, kept in line
			t.storeStepped(stateReady)
			return // stays current: the next step resumes it
		}
		if !w.suspended(t, why) {
			return
		}
		why = 0
	}
}

// suspended acts on t's suspension for why: it requeues a task that
// yielded, parks one that blocked, and so on. It reports whether t goes
// on at once, within the same step: it blocked on a wait that was already
// over (real mode). It is drive's, and a host's (inline.go), which acts
// on its own suspension before its fiber has yielded.
func (w *worker) suspended(t *Task, why fiber.Reason) (again bool) {
	switch why {
	case reasonCheckpoint: // stepped modes only
		t.storeStepped(stateReady)
		return false // stays current: the next step resumes it
	case reasonYield, reasonInterval:
		w.cur = nil
		t.state.Store(uint32(stateReady))
		if w.em.on() {
			w.emitYield(t, why)
		}
		if w.policy(link.DecideHandOff, w.queued() == 0, t) {
			w.yieldToGlobal(t)
			return false
		}
		w.s.global.push(t)
		// This worker takes the task back from the global queue as soon
		// as its own deque is empty, so waking an idle worker for it
		// only pays off when the deque still holds work.
		if w.queued() > 0 || w.s.cfg.Mode.Stepped() {
			w.s.notify()
		}
		return false
	case reasonBlock:
		b := w.blockOn
		w.blockOn = nil
		// t's id, and what its block event says of b, are read before
		// the park: once parked, real mode's clock goroutine or another
		// worker may wake t, run it to its end and reuse its memory (*t =
		// Task{}) and what b points into (a recycled nursery, a select's
		// cases) while this worker writes the event.
		id, ev := t.id, w.blockEventOf(b)
		if b.park(t, w) {
			w.cur = nil
			if w.em.on() {
				w.emitBlock(id, &ev)
			}
			return false
		}
		// The wait was already over: t goes on, within the same step.
	case reasonParked:
		// t, a lone worker's, parked itself under the lock its channel
		// operation held (waitOnChannel): the rest of reasonBlock's.
		b := w.blockOn
		w.blockOn = nil
		w.cur = nil
		if w.em.on() {
			ev := w.readBlockEvent(b) // a lone worker's: no one else runs t meanwhile
			w.emitBlock(t.id, &ev)
		}
		return false
	case reasonHosted:
		// t hosted w's loop, which acted on t's suspension and on what
		// it ran meanwhile, and hands the loop back (inline.go).
		return false
	}
	return true
}

// blockEvent is what a task's block event says of its blocker: what it
// waits on and, for a sleep on a story run, until when.
type blockEvent struct {
	on    string
	until int64
	timed bool
}

// blockEventOf reads b's block event; the zero blockEvent without a
// sink, as describe builds a string. Inlined: the read is out of line.
func (w *worker) blockEventOf(b blocker) (ev blockEvent) {
	if w.em.on() {
		ev = w.readBlockEvent(b)
	}
	return ev
}

// readBlockEvent is blockEventOf's read.
func (w *worker) readBlockEvent(b blocker) blockEvent {
	ev := blockEvent{on: b.describe()}
	if sw, ok := b.(*sleepWait); ok && w.story() {
		ev.until, ev.timed = int64(sw.tm.when), true
	}
	return ev
}

// emitBlock writes the block event of task id.
func (w *worker) emitBlock(id uint64, ev *blockEvent) {
	if ev.timed {
		w.em.emit(trace.KindBlock, trace.I(trace.KeyTask, int64(id)), trace.S(trace.KeyOn, ev.on),
			trace.I(trace.KeyUntil, ev.until))
		return
	}
	w.em.emit(trace.KindBlock, trace.I(trace.KeyTask, int64(id)), trace.S(trace.KeyOn, ev.on))
}

// emitYield writes t's yield event.
func (w *worker) emitYield(t *Task, why fiber.Reason) {
	kind := "explicit"
	if why == reasonInterval {
		kind = "interval"
	}
	w.em.emit(trace.KindYield, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyWhy, kind))
}

// yieldToGlobal is a real-mode yield from a worker whose deque is empty:
// t goes to the back of the global queue, and the next task is the one
// find would take next, the queue's head, both under one lock instead of
// a push now and a pop at the next step. The hand-over then costs one step
// fewer (docs/performance.md#hosting). Under a stepped mode the driver
// decides whether it
// happens (DecideHandOff).
func (w *worker) yieldToGlobal(t *Task) {
	var next *Task
	switch h := w.held; {
	case h != nil && w.s.global.len() == 0:
		next, w.held = h, t // yieldHeld's common case, written out: 12 instructions of a 445-instruction YieldPingPong hand-over
		if mutant.On(mutant.HandOffLosesYielder) {
			w.held = nil
		}
	case w.alone():
		next = w.yieldHeld(t)
	default:
		next = w.s.global.pushPop(t)
	}
	w.stats.Globals++
	if w.em.on() {
		w.em.emit(trace.KindGlobal, trace.I(trace.KeyTask, int64(next.id)))
	}
	// next becomes the current task unless it was cancelled while queued
	// (as in step).
	if !next.started && next.marked() != 0 && !mutant.On(mutant.QueuedCancelRuns) {
		w.retireUnstarted(next)
		return
	}
	w.cur = next
}

// yieldHeld is the global queue's pushPop for a lone worker, which keeps
// the queue's head in held whenever it can: no other worker pops the
// queue, so its head need not be in it, and a yield that finds the queue
// holding only the head takes it and holds t instead, without the lock.
// Two tasks yielding in turn then take no lock at all (the queue's
// pushers, the clock and Blocking's goroutines, add behind the head as
// before). A lone worker only (alone).
func (w *worker) yieldHeld(t *Task) *Task {
	h := w.held
	if h == nil {
		next, alone := w.s.global.popOrHold(t)
		if alone {
			w.held = t
		}
		return next
	}
	if w.s.global.len() == 0 {
		w.held = t
		return h
	}
	// One worker pops the queue, so it is not empty under the lock either.
	w.held = w.s.global.pushPop(t)
	return h
}

// popOrHold is pushPop for yieldHeld: it pops the queue's head and pushes
// t behind the rest, unless t would be alone: then t is not pushed and
// alone is true (the caller holds t as the queue's head). It returns t
// itself when the queue was empty.
func (q *globalQueue) popOrHold(t *Task) (next *Task, alone bool) {
	q.mu.Lock()
	if q.head == len(q.items) {
		q.mu.Unlock()
		return t, false
	}
	next = q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.n.Add(-1)
		q.mu.Unlock()
		return next, true
	}
	q.items = append(q.items, t)
	if q.head > 1024 && q.head*2 > len(q.items) { // as pushPop: the consumed front goes
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.mu.Unlock()
	return next, false
}

// finish records t's end and tells its nursery.
func (w *worker) finish(t *Task) {
	if t.fib != nil {
		w.fibs.Put(t.fib)
		t.fib = nil
	}
	w.stats.Completed++
	w.end(t)
}

// end retires t, which has its result, tells its nursery, and then puts t
// on w's free list if it may be reused: the nursery has the result and
// nothing else refers to t any more (see free.go).
func (w *worker) end(t *Task) {
	w.s.retire(t, w)
	n := t.parent
	if n == nil {
		return
	}
	n.complete(t, w)
	if t.recycle {
		*t = Task{}
		w.freeTasks.put(t)
	}
}

// retireUnstarted finishes t, cancelled while queued, without running it.
func (w *worker) retireUnstarted(t *Task) {
	w.stats.Cancelled++
	t.result = nursery.CancelledBy(nursery.Reason(t.mark.Load()))
	w.end(t)
}

// retire sets t's final state and writes its result event. The caller
// informs the nursery (or, for children the nursery itself finished, the
// nursery already knows). w may be nil (outside any worker).
func (s *Scheduler) retire(t *Task, w *worker) {
	// A task its nursery will reuse (recycle) is cleared as soon as the
	// nursery has its result (end), and no handle to it escaped, so no one
	// could read its final state: the store, a locked instruction, is
	// left out.
	if !t.recycle {
		final := stateCompleted
		if t.result.Kind == nursery.KindCancelled {
			final = stateCancelled
		}
		t.state.Store(uint32(final))
	}
	if em := s.emitter(w); em.on() {
		em.emit(trace.KindResult, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyResult, t.result.String()))
	}
	if w != nil {
		w.addLive(-1)
	} else {
		s.live.Add(-1)
	}
	if t.parent == nil {
		s.rootFinished(t)
	}
}

// addLive adds d to w's live count (Scheduler.Live): to liveDelta, which
// it folds into live at every liveFold changes and whenever w runs out of
// work (foldLive): Live is exact once the workers are idle, and a worker
// spinning for work still sees a busy one's count move (othersProgress).
// A task's start and end then make no locked add: three a fan-out tree's
// inner node, two a leaf, one in seven of a tree's locked instructions
// (docs/performance.md#live-counts-per-worker). A stepped driver's Live adds
// the deltas not
// folded yet, so that it is exact between any two steps.
func (w *worker) addLive(d int64) {
	w.liveDelta += d
	w.liveOps++
	if w.liveOps%liveFold == 0 {
		w.foldLive()
	}
}

// liveFold is how many changes of its live count a worker batches.
const liveFold = 64

// foldLive adds w's batched live changes to its count.
func (w *worker) foldLive() {
	if d := w.liveDelta; d != 0 {
		w.liveDelta = 0
		w.live.Add(d)
	}
}

// idBlock is a range of ids a worker reserved: next up to end (exclusive).
type idBlock struct{ next, end uint64 }

// idBlockSize is how many ids a worker reserves at once.
const idBlockSize = 256

// newID returns a new id from ctr. With the scheduler keeping its tasks
// (Mode.Keeps) ids follow creation order, one atomic add
// each; otherwise each worker takes them from a block it reserves, so that
// workers spawning at once do not bounce ctr's cache line between them.
// Ids stay unique, and increase on each worker.
func (w *worker) newID(ctr *atomic.Uint64, b *idBlock) uint64 {
	if w.s.keep {
		return ctr.Add(1)
	}
	if b.next == b.end {
		b.end = ctr.Add(idBlockSize) + 1
		b.next = b.end - idBlockSize
	}
	id := b.next
	b.next++
	return id
}

// push puts t on w's local deque and wakes idle workers (a lone worker
// has none to wake, and its deque is its stack). Small enough to be
// inlined (a spawn's path); pushShared is the rest.
func (w *worker) push(t *Task) {
	if w.alone() {
		w.stack = append(w.stack, t)
		return
	}
	w.pushShared(t)
}

// pushShared is push for a worker with thieves.
func (w *worker) pushShared(t *Task) {
	if old := w.takeNext(); old != nil {
		// The task in the next slot goes under t, as if it had been
		// pushed when it was woken: w runs its ready tasks newest first
		// either way (worker.next).
		w.dq.Push(old)
	}
	w.dq.Push(t)
	if s := w.s; s.park.idle.Load() > 0 || w.stepped() { // notify's test, in line: a busy run wakes nobody
		s.notify()
	}
}

// takeNext empties w's next slot and returns the task it held: nil when
// it was empty or a thief took it meanwhile. The load first keeps the
// locked swap off the paths that find it empty (every push and find of
// a run without channel wake-ups); the swap is a call of its own so that
// the test inlines.
func (w *worker) takeNext() *Task {
	if w.next.Load() == nil {
		return nil
	}
	return w.swapNext()
}

// swapNext is takeNext's swap.
//
//go:noinline
func (w *worker) swapNext() *Task {
	t := w.next.Swap(nil)
	if t != nil && w.stepped() {
		w.s.slotted--
	}
	return t
}

// popStack takes the top of a private worker's stack, or nil.
func (w *worker) popStack() *Task {
	k := len(w.stack) - 1
	if k < 0 {
		return nil
	}
	t := w.stack[k]
	w.stack[k] = nil // for the collector
	w.stack = w.stack[:k]
	return t
}

// queued is how many tasks w's deque holds (its stack, when alone),
// with the one in its next slot.
func (w *worker) queued() int {
	if w.alone() {
		return len(w.stack)
	}
	if w.next.Load() != nil {
		return w.dq.Len() + 1
	}
	return w.dq.Len()
}

// emitter returns w's event scratch space, or for events caused outside
// any worker (actor "sim") the scheduler's own; in real mode with a sink,
// a fresh one (ownEmitter).
func (s *Scheduler) emitter(w *worker) *emitter {
	if w != nil {
		return &w.em
	}
	if s.emOwn {
		return s.ownEmitter()
	}
	return &s.em
}

// pushFrom queues t: on w's deque, or on the global queue outside a worker.
func (s *Scheduler) pushFrom(w *worker, t *Task) {
	if w != nil {
		w.push(t)
		return
	}
	s.global.push(t)
	s.notify()
}

// wakeOwner makes o, the owner awaiting a nursery that has just become
// terminal, ready again: as wakeFrom does, or, when w is between two
// tasks (it has no current task: it is ending one, or retiring one
// cancelled while queued), by making o w's current task, which w's next
// step resumes (DecideOwnerNext). That step would pop o anyway, the last
// task w pushed, unless a thief took it first; the owner of a nursery its
// own worker has just ended is worth stealing least of all. A fan-out
// tree's inner node thus goes from its last child's end to its
// resumption without the deque's push and pop, the notify and a step
// (four locked instructions and about 200 others:
// docs/performance.md#the-owner-goes-next).
// Every caller with a w is w's own goroutine (the timers and Blocking's
// goroutines pass nil).
func (s *Scheduler) wakeOwner(w *worker, o *Task) {
	if w != nil && w.policy(link.DecideOwnerNext, w.cur == nil, o) {
		o.state.Store(uint32(stateReady))
		w.cur = o
		if w.em.on() {
			w.em.emit(trace.KindWake, trace.I(trace.KeyTask, int64(o.id)), trace.S(trace.KeySlot, "current"))
		}
		if mutant.On(mutant.OwnerNextQueued) {
			w.push(o)
		}
		return
	}
	s.wakeFrom(w, o)
}

// wakeFrom makes a blocked task ready again and queues it on w, or on
// the global queue. A lone worker pushes it on its stack and wakes
// nobody: it has no thief to wake, and the deque's push, pop and notify
// were about 150 instructions of a rendezvous hand-over
// (docs/performance.md#the-lone-worker). With several workers it goes to w's
// next slot
// (DecideNextSlot), and one the slot held before to w's deque.
func (s *Scheduler) wakeFrom(w *worker, t *Task) {
	t.state.Store(uint32(stateReady))
	if w == nil {
		if em := s.emitter(nil); em.on() {
			em.emit(trace.KindWake, trace.I(trace.KeyTask, int64(t.id)))
		}
		s.global.push(t)
		s.notify()
		return
	}
	if w.alone() {
		if w.em.on() {
			w.em.emit(trace.KindWake, trace.I(trace.KeyTask, int64(t.id)))
		}
		w.stack = append(w.stack, t) // push's first case, written out
		return
	}
	if w.policy(link.DecideNextSlot, w.nextSlots(), t) {
		if w.em.on() {
			w.em.emit(trace.KindWake, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeySlot, "next"))
		}
		if old := w.next.Swap(t); old == nil {
			if w.stepped() {
				s.slotted++
			}
		} else if !mutant.On(mutant.NextSlotOverwrite) {
			w.dq.Push(old)
		}
		s.notify()
		return
	}
	if w.em.on() {
		w.em.emit(trace.KindWake, trace.I(trace.KeyTask, int64(t.id)))
	}
	w.push(t)
}
