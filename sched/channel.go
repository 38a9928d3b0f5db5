package sched

import (
	"fmt"
	"math"
	"sync"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/internal/mutant"
)

// channel is a channel between tasks (docs/spec.md#channels: a task that
// sends on a full channel or receives from an empty one is Blocked until the
// operation can complete). Capacity 0 makes a rendezvous channel. Values are
// int64 tokens. A blocked task is interrupted by cancellation.
type channel struct {
	// Set by newChannel and read-only afterwards: any task may read them
	// without the lock.
	s    *Scheduler
	name string
	cap  int
	// stepped is the scheduler's mode's (Mode.Stepped), which never
	// changes: see lock.
	stepped bool

	// mu guards everything below but blockers, like hchan's lock. A
	// Send or Recv by a task on an unshared worker leaves it out
	// (shared): every task that can reach the channel then runs on that
	// worker, one step at a time; every other section takes it (lock).
	mu     sync.Mutex
	buf    []int64    // ring of cap values; protected by mu
	head   int        // index in buf of the oldest value; protected by mu
	n      int        // values in buf; protected by mu
	closed bool       // set once, by Close, under mu
	from   []uint64   // story runs: the sender of each value in buf, by slot (sched/story.go); protected by mu
	recvq  waitq      // blocked receivers, FIFO; protected by mu
	sendq  waitq      // blocked senders, FIFO; their value is in t.waitVal (see Chan for a typed one); protected by mu
	sel    []selEntry // selects waiting on the channel (select.go); typed Chans only; protected by mu

	id uint64 // the order Select locks channels in: set by NewChan, immutable

	// blockers are the channel's four blockers, one for each direction and
	// interruptibility (see blocker). Every task blocking on the channel
	// shares them: they are immutable once made, so a block allocates
	// nothing for its blocker.
	blockers [2][2]chanWait
}

// NewChannel creates a channel with the given capacity (0: rendezvous).
func (view *driverView) NewChannel(name string, capacity int) *channel {
	return newChannel((*Scheduler)(view), name, capacity, capacity)
}

// newChannel creates a channel of the given capacity whose int64 buffer
// holds bufCap values: capacity for a channel of int64 values, 0 for a
// typed Chan, which keeps its values in a buffer of its own.
func newChannel(s *Scheduler, name string, capacity, bufCap int) *channel {
	if capacity < 0 {
		panic("sched: NewChannel: negative capacity")
	}
	c := &channel{s: s, name: name, cap: capacity, stepped: s.cfg.Mode.Stepped(), buf: make([]int64, bufCap), id: s.nextChanID.Add(1)}
	for send := range 2 {
		for interruptible := range 2 {
			b := &c.blockers[send][interruptible]
			*b = chanWait{c: c, send: send == 1, interruptible: interruptible == 1}
			b.ref.b = b
		}
	}
	return c
}

// blocker returns c's blocker for a send (or a receive) that cancellation
// may (or may not) interrupt.
func (c *channel) blocker(send, interruptible bool) *chanWait {
	return &c.blockers[b2i(send)][b2i(interruptible)]
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Name is the channel's name.
func (c *channel) Name() string { return c.name }

// wait states of a task blocked on a channel or a timer.
const (
	waitPending   uint8 = iota // not completed: the worker refused to park it, retry
	waitDone                   // completed (value delivered or taken, or the timer fired)
	waitClosed                 // the channel was closed
	waitCancelled              // interrupted by cancellation
)

// waitSlot is the part of a task's record of its current blocking
// operation that fits the Task's padding; its slot in a wait queue and its
// value are the Task's waitQpos and waitVal. The record is written by the
// task before it suspends and by wakers under the lock of what it waits
// on. It holds only what the task and its wakers share: a million parked
// tasks hold a million of them. What only a canceller or the worker needs
// (the channel, the timer, the reference published for markCancel) is in
// the blocker.
type waitSlot struct {
	state         uint8
	interruptible bool // not inside a cleanup: cancellation may interrupt it
}

// setWait starts t's record of a blocking operation. Only the task itself
// calls it, before it publishes the wait; wakers reach the record through
// the task after that, under the lock of what it waits on.
func (t *Task) setWait(interruptible bool, v int64) {
	t.wait = waitSlot{state: waitPending, interruptible: interruptible}
	t.waitQpos, t.waitVal = 0, v
}

// interruptible is a blocker that cancellation may interrupt.
type interruptible interface {
	blocker
	cancelWait(t *Task) bool
}

// waitRef is what a parked task publishes so that markCancel, on another
// worker, can find and interrupt its wait. It is immutable once published:
// a sleep or a recharge wait makes a new one, and a channel's four are
// made with the channel and shared by every task blocking on it.
type waitRef struct{ b interruptible }

// chanWait is the blocker for a channel operation: one of the channel's
// four (see channel.blockers). It carries what cancelWait needs, so that
// cancelWait never reads t.wait, which the task rewrites when it blocks
// again; it holds nothing of the task, so every task blocking the same way
// on the channel shares it.
type chanWait struct {
	ref           waitRef // points back here
	c             *channel
	send          bool
	interruptible bool
}

func (b *chanWait) describe() string {
	if b.send {
		return "send " + b.c.name
	}
	return "recv " + b.c.name
}

// park registers the task in the channel's queue unless the operation could
// now proceed or the task was cancelled meanwhile (parkHeld).
// It unlocks without a deferred call: every block of a channel hand-over
// on two or more workers, and under the seeded driver, passes here.
func (b *chanWait) park(t *Task, w *worker) bool {
	c := b.c
	c.lock()
	var could bool // the operation could now proceed
	if b.send {
		could = c.closed || c.recvq.len() > 0 || c.n < c.cap
	} else {
		could = c.closed || c.n > 0 || c.sendq.len() > 0
	}
	if !could && len(c.sel) > 0 {
		_, could = c.waiting(b.send, nil) // a select came to wait on the other side meanwhile
	}
	parked := !could && b.parkHeld(t)
	c.mu.Unlock()
	return parked
}

// parkHeld is park for a Send or Recv that holds c.mu and found under it
// no partner and the channel open (waitOnChannel): it registers t in the
// channel's queue unless t was cancelled meanwhile, and leaves c locked
// either way. The mark is tested once, after the wait is published
// (publishWait): a task marked before it blocks is registered and taken
// out again, which is rare, rather than every park testing the mark
// twice.
func (b *chanWait) parkHeld(t *Task) bool {
	c := b.c
	if b.send {
		c.sendq.push(t)
	} else {
		c.recvq.push(t)
	}
	if !t.publishWait(stateBlocked, &b.ref) {
		c.remove(t)
		return false
	}
	return true
}

// publishWait makes t's parked, interruptible wait visible to markCancel,
// as ref (its blocker's), and sets its state. Called by a blocker's park,
// under the blocker's lock, after t was registered there. It reports false, unpublished, when t was
// marked cancelled meanwhile; the caller then undoes its registration.
//
// Dekker with markCancel: waitingOn is stored before mark is loaded here,
// and markCancel stores mark before it loads waitingOn (all seq-cst), so
// either this sees the mark or markCancel sees the wait and interrupts it.
func (t *Task) publishWait(st taskState, ref *waitRef) bool {
	t.state.Store(uint32(st))
	t.waitingOn.Store(ref)
	if t.wait.interruptible && t.cancelled() != 0 {
		t.waitingOn.Store(nil)
		return false
	}
	return true
}

// cancelWait removes t from the channel's queues if it is still blocked
// there, marking the wait cancelled; the caller then wakes t.
func (b *chanWait) cancelWait(t *Task) bool {
	c := b.c
	c.lock()
	defer c.mu.Unlock()
	if !b.interruptible || !(mutant.On(mutant.CancelLeavesWaiter) || c.remove(t)) {
		return false
	}
	t.wait.state = waitCancelled
	t.waitingOn.Store(nil)
	return true
}

// remove deletes t from whichever queue holds it. Called with c.mu held.
func (c *channel) remove(t *Task) bool {
	return c.recvq.remove(t) || c.sendq.remove(t)
}

// waitq is a FIFO of blocked tasks. Every operation is O(1) amortized, so
// that closing or cancelling a million waiters on one channel is linear: a
// task remembers its slot (waitQpos), removal leaves a hole, and holes are
// skipped and compacted away once they and the consumed front are half
// the slice, which keeps the slice under twice the waiters plus 64.
type waitq struct {
	items []*Task
	head  int
	n     int // live tasks in items[head:]
}

func (q *waitq) len() int { return q.n }

// waitqMax bounds a wait queue's slice, so that a slot fits the int32
// qpos: about a billion waiters on one channel, whose parked tasks would
// hold 2.5 TB.
const waitqMax = math.MaxInt32

func (q *waitq) push(t *Task) {
	if len(q.items) >= waitqMax {
		panic(fmt.Sprintf("sched: a channel's wait queue is at its bound of %d slots", waitqMax))
	}
	t.waitQpos = int32(len(q.items))
	q.items = append(q.items, t)
	q.n++
}

// pop takes the first task, or returns nil. It inlines: a receive finds
// no sender here at every rendezvous hand-over.
func (q *waitq) pop() *Task {
	if q.n == 0 {
		// Every way to n == 0 (pop, remove, compact) resets the slice:
		// nothing to skip or compact.
		return nil
	}
	return q.popLive()
}

// popLive is pop of a queue that holds a task.
func (q *waitq) popLive() *Task {
	if len(q.items) == 1 {
		// A queue of one task (n is not 0), without holes: a
		// rendezvous hand-over's at every pop. compact's first case,
		// written out.
		t := q.items[0]
		q.items[0] = nil
		q.items, q.head, q.n = q.items[:0], 0, 0
		return t
	}
	for q.head < len(q.items) {
		t := q.items[q.head]
		q.items[q.head] = nil
		q.head++
		if t != nil {
			q.n--
			if q.n == 0 {
				// compact's first case, written out: a rendezvous
				// hand-over empties a queue of one at each pop.
				q.items, q.head = q.items[:0], 0
			} else {
				q.compact()
			}
			return t
		}
	}
	q.compact()
	return nil
}

// remove takes t out of the queue if it is there.
func (q *waitq) remove(t *Task) bool {
	i := int(t.waitQpos)
	if i < q.head || i >= len(q.items) || q.items[i] != t {
		return false
	}
	q.items[i] = nil
	q.n--
	q.compact()
	return true
}

// compact reclaims the dead slots, the consumed front and the holes, once
// they are at least 64 and half the slice. A compaction costs the slice's
// length and follows at least half as many pops and removals.
func (q *waitq) compact() {
	if q.n == 0 {
		// Every slot left is a hole, already nil: nothing to clear.
		q.items, q.head = q.items[:0], 0
		return
	}
	if dead := len(q.items) - q.n; dead < 64 || dead*2 < len(q.items) {
		return
	}
	k := 0
	for _, t := range q.items[q.head:] {
		if t != nil {
			t.waitQpos = int32(k)
			q.items[k] = t
			k++
		}
	}
	clear(q.items[k:])
	q.items, q.head = q.items[:k], 0
}

// complete finishes a blocked task's wait with state and wakes it. Called
// with c.mu held (or, on an unshared w, where c.shared said no lock), by
// the task that made the wait complete (running on w). An unshared w
// leaves t's published wait (waitingOn) as it is, which saves a locked
// store a hand-over: the only canceller, on w or (once w is no longer
// unshared) after it, finds the reference stale, and its cancelWait does
// nothing, for t is no longer in c's queue under c's lock (a queue it
// blocks in again publishes its wait anew).
func (c *channel) complete(t *Task, state uint8, w *worker) {
	t.wait.state = state
	if !w.unshared() {
		t.waitingOn.Store(nil)
	}
	c.s.wakeFrom(w, t)
}

// handed completes the wait of r, a receiver a send has just handed its
// value to (Send), and wakes it.
func (c *channel) handed(r *Task, w *worker) {
	if mutant.On(mutant.LostWakeup) {
		r.wait.state = waitDone // the value is handed over, and r never woken
		return
	}
	c.complete(r, waitDone, w)
}

// Send sends v on c. It is a checkpoint costing one op and one channel_ops;
// it blocks while the channel is full (or, for a rendezvous channel, until a
// receiver takes the value). Sending on a closed channel fails the task
// with ChannelClosed.
//
// It is sendOn, a call the compiler inlines: the send is one function
// whichever way it is reached (the typed Chan, the driver's Channel
// through its registered sendOn), so that a task parked in it has one
// frame for it and none for the layers that led there
// (docs/performance.md#parked-stacks).
func (view *taskOps) Send(c *channel, v int64) error { return sendOn((*Task)(view), c, v) }

// sendOn is the send itself, on a channel made by NewChannel passed as
// any: a plain function, so that package driver calls it through a
// registered func value (linked.go), one call that inlines into its
// caller, rather than through its task view's interface. Chan.Send
// (chan.go) is this send with a typed value: what changes here changes
// there.
func sendOn(t *Task, ca any, v int64) error {
	c := ca.(*channel)
	if err := t.pointChan(); err != nil {
		return err
	}
	for {
		held := c.shared(t)          // else no lock (channel.shared)
		if held && !c.mu.TryLock() { // c.lock(), written out
			c.lockContended()
		}
		if c.closed {
			c.unlock(held)
			return c.closedErr("send on")
		}
		if r := c.recvq.pop(); r != nil {
			r.waitVal = v
			if t.w.story() {
				c.chanSend(t, r)
			}
			c.handed(r, t.w)
			c.unlock(held)
			return nil
		}
		if c.n < c.cap {
			c.buf[(c.head+c.n)%c.cap] = v
			if t.w.story() {
				c.chanSend(t, nil)
			}
			c.n++
			c.unlock(held)
			return nil
		}
		if why := t.waitOnChannel(c, true, v, held); why != 0 { // unlocks c
			t.suspend(why)
		}
		switch t.wait.state {
		case waitDone:
			return nil
		case waitClosed:
			return c.closedErr("send on")
		}
		if err := t.channelWaitErr(); err != nil {
			return err
		}
	}
}

// pointChan is point(Cost{Ops: 1, ChannelOps: 1}), the checkpoint of a
// send and of a receive, as pointOp is for one op: when the budget can pay
// (Ops and ChannelOps at least 1, no other component below zero, which is
// exactly short's CompNone for this cost) it takes the op and the channel
// op itself, and leaves every other case, and the mutants, to point. The
// generic charge was a third of a rendezvous hand-over's instructions
// besides the switch (docs/performance.md#the-budgets-fast-charge). Its tail
// repeats pointOp's on purpose: shared as a function the inliner refuses
// (cost 216), it cost 18 instructions a hand-over (1,190 to 1,208).
func (t *Task) pointChan() error {
	b := &t.budget
	if b.Ops < 1 || b.ChannelOps < 1 || b.Memory|b.SpawnCount|b.Syscalls < 0 || mutant.Enabled {
		return t.point(Cost{Ops: 1, ChannelOps: 1})
	}
	b.Ops--
	b.ChannelOps--
	t.opsSinceYield++
	if int(t.opsSinceYield) >= t.s.cfg.YieldInterval {
		t.opsSinceYield = 0
		t.yields++
		t.turn(reasonInterval)
	}
	if t.s.cfg.Mode.Stepped() {
		t.endStep()
	}
	if t.cleanupDepth > 0 || t.uncancelled() {
		return nil // observe's test, in line: nothing to observe
	}
	return t.observe()
}

// Recv receives from c. It is a checkpoint costing one op and one
// channel_ops; it blocks while the channel is empty. On a closed, empty
// channel it returns at once with ok false. It is recvOn, a call the
// compiler inlines (see Send).
func (view *taskOps) Recv(c *channel) (int64, bool, error) { return recvOn((*Task)(view), c) }

// recvOn is the receive itself, as sendOn is the send; Chan.Recv is it
// with a typed value.
func recvOn(t *Task, ca any) (v int64, ok bool, err error) {
	c := ca.(*channel)
	if err := t.pointChan(); err != nil {
		return 0, false, err
	}
	for {
		held := c.shared(t)          // else no lock (channel.shared)
		if held && !c.mu.TryLock() { // c.lock(), written out
			c.lockContended()
		}
		if c.n > 0 {
			v = c.buf[c.head]
			if t.w.story() {
				c.chanRecvBuffered(t)
			}
			c.head = (c.head + 1) % c.cap
			c.n--
			if s := c.sendq.pop(); s != nil {
				c.buf[(c.head+c.n)%c.cap] = s.waitVal
				if t.w.story() {
					c.chanSendParked(t, s)
				}
				c.n++
				c.complete(s, waitDone, t.w)
			}
			c.unlock(held)
			return v, true, nil
		}
		if s := c.sendq.pop(); s != nil {
			v = s.waitVal
			if t.w.story() {
				c.chanRecvDirect(t, s)
			}
			c.complete(s, waitDone, t.w)
			c.unlock(held)
			return v, true, nil
		}
		if c.closed {
			c.unlock(held)
			return 0, false, nil
		}
		if why := t.waitOnChannel(c, false, 0, held); why != 0 { // unlocks c
			t.suspend(why)
		}
		switch t.wait.state {
		case waitDone:
			return t.waitVal, true, nil
		case waitClosed:
			return 0, false, nil
		}
		if err := t.channelWaitErr(); err != nil {
			return 0, false, err
		}
	}
}

// Close closes c: blocked receivers get ok false, blocked senders fail with
// ChannelClosed. It costs one channel_ops and is not a checkpoint. Closing
// twice fails the task with ChannelClosed.
func (view *taskOps) Close(c *channel) error {
	t := (*Task)(view)
	if err := t.charge(Cost{ChannelOps: 1}); err != nil {
		return err
	}
	c.lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.closedErr("close of")
	}
	c.closed = true
	if t.w.story() {
		c.chanClose(t)
	}
	for r := c.recvq.pop(); r != nil && !mutant.On(mutant.CloseLosesReceiver); r = c.recvq.pop() {
		c.complete(r, waitClosed, t.w)
	}
	for s := c.sendq.pop(); s != nil; s = c.sendq.pop() {
		c.complete(s, waitClosed, t.w)
	}
	if len(c.sel) > 0 {
		c.closeSelects(t.w)
	}
	return nil
}

// waitOnChannel readies t to block on its channel operation: the wait
// record (made at t's first block, reused after that) and the blocker the
// worker parks it on. It returns what t must suspend for, 0 for nothing:
// it hosts the worker's loop when t may (Task.blockTurn). Send and Recv
// then suspend t themselves, rather than in a function of their own, so
// that a parked task's stack holds one frame less
// (docs/performance.md#parked-stacks);
// this function is not on it. The hosting decision is made here rather
// than by a call of its own in Send and Recv: that call made the frame a
// parked task holds costlier for the collector to walk (ParkedTasks 1.15%
// more instructions, against 0.16% this way).
//
// It is called with c.mu held if held (else c.shared said no lock), by a
// Send or Recv that found no partner under it, and unlocks c. A task of
// a lone worker (worker.alone) on a fiber of its own that need not enlist
// parks at once, under that same lock (parkHeld), and then hosts, or
// suspends to the task that hosts, with reasonParked: the park's second
// lock, its checks again and its call were part of every rendezvous
// hand-over (docs/performance.md#the-lone-worker). This is safe for a lone
// worker only: a parked task may be woken
// at once, by a canceller on another goroutine, and only the lone
// worker's step, which runs after t has suspended (or, hosting, on t's
// own stack), takes a woken task and resumes it; with two workers the
// other could resume t before its fiber has yielded. Any other task, or
// a park refused (t was cancelled), unlocks and goes the way of every
// block, the worker parking it under the lock again (chanWait.park).
func (t *Task) waitOnChannel(c *channel, send bool, v int64, held bool) fiber.Reason {
	interruptible := t.cleanupDepth == 0
	b := c.blocker(send, interruptible)
	if w := t.w; w.alone() && t.fib != w.c.loopFib && t.enlisted() {
		t.setWait(interruptible, v)
		if b.parkHeld(t) {
			c.unlock(held)
			w.blockOn = b // for the block's event
			w.parkedHeld++
			if w.c.loopFib == nil {
				// Another task hosts, and resumed t, or no one carries
				// the loop (a driver that steps the workers itself): t
				// suspends to its resumer.
				return reasonParked
			}
			if w.host(t, reasonParked) {
				return 0
			}
			return reasonHosted
		}
	}
	c.unlock(held)
	t.enlist() // a cancellation must be able to interrupt this wait (lean.go)
	t.setWait(interruptible, v)
	t.w.blockOn = b
	return t.blockTurn()
}

// channelWaitErr is what a channel wait that ended (t resumed) neither done
// nor closed reports: a cancellation that interrupted it, or one that came
// before it parked, or nil (a state of waitPending means the worker found
// the operation could proceed and did not park: the caller retries).
func (t *Task) channelWaitErr() error {
	if t.wait.state == waitCancelled || (t.wait.state == waitPending && t.wait.interruptible && t.cancelled() != 0) {
		return t.observe()
	}
	return nil
}

// foreignErr is the error of an operation on c by a task of another
// scheduler.
func (c *channel) foreignErr() error {
	return &SchedError{Code: CodeForeignChan, Detail: "channel " + c.name + " belongs to another scheduler"}
}

// closedErr is the error of an operation (what, "send on" or "close of")
// on c closed.
func (c *channel) closedErr(what string) error {
	return &SchedError{Code: CodeChannelClosed, Detail: what + " closed channel " + c.name}
}

func (c *channel) String() string { return fmt.Sprintf("channel %s (cap %d)", c.name, c.cap) }

// lock takes c.mu: TryLock, which takes it unless another goroutine
// holds it, and lockContended otherwise. Both drivers run the same path;
// only contention, which needs a second goroutine, is real mode's alone.
// Send and Recv write lock out (it does not inline): they take it twice a
// rendezvous hand-over.
func (c *channel) lock() {
	if !c.mu.TryLock() {
		c.lockContended()
	}
}

// shared reports whether t's operation on c must take c.mu: unless t's
// worker is unshared (worker.unshared: the run's only worker, which no
// other goroutine's code joins in touching a channel until a nursery's
// timeout is armed) and c is of t's scheduler, so that every task that
// can reach c runs on that worker, one step at a time. Send and Recv
// then leave the lock out (and the lock's four locked instructions of a
// rendezvous hand-over, docs/performance.md#the-lone-worker); a section that
// takes it anyway (Close, a
// canceller's cancelWait, the worker's park) is as safe as before, for
// there is no one else to exclude.
func (c *channel) shared(t *Task) bool { return !t.w.unshared() || c.s != t.s }

// unlock releases c.mu if held (shared said to take it).
func (c *channel) unlock(held bool) {
	if held {
		c.mu.Unlock()
	}
}
