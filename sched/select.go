package sched

// Design notes. A Select that finds no case ready parks its task once,
// on every channel of its cases at the same time: each channel keeps a
// list of the selects waiting on it (channel.sel), beside its queues of
// plain senders and receivers. Whoever comes second completes the match,
// as with plain operations: a Send that finds no parked receiver looks
// for a select waiting to receive, a Select looks for parked tasks and for
// other selects waiting on the other side. A waiting select is claimed by
// one compare-and-swap of its state (selWaiter.state), from pending to the
// index of the case that completed it, so that of several channels (or a
// cancellation) racing for it on several workers exactly one wins; the
// winner holds the lock of the case's channel, moves the value and wakes
// the task, which then takes its entries off the other channels.
// Rejected: waking every waiting select on a change and letting it retry
// (two selects on the two sides of one rendezvous channel would never
// meet), and a queue entry per case in the channels' waitq (a task is in
// one waitq at a time there: its slot is a field of the Task).

import (
	"context"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// SelectCase is one case of Select: a send (Chan.SendCase), a receive
// (Chan.RecvCase, DoneCase, a Timer's or Ticker's C) or the default case
// (DefaultCase). Its zero value is a case that is never ready, as a nil
// channel's in a Go select.
// Making a case allocates nothing, but for a send case whose value does
// not fit a word.
type SelectCase struct {
	// A case holds its channel, and its value when the element type fits
	// a word (as a parked task's value slot does: Chan.slot), and its
	// typed code as a zero-size value of a type per element type
	// (chanOps), which an interface holds without an allocation either.
	op      selOp          // chanOps[T]{}, nil for the default or a case never ready
	c       unsafe.Pointer // the *Chan[T]
	ch      *channel       // its channel
	send    bool
	word    int64          // a send's value, T a word type (Chan.word)
	box     unsafe.Pointer // a send's value otherwise (a *T of its own), or a receive's destination (*T, nil to drop)
	ok      *bool          // a receive's ok, nil to drop it
	isDflt  bool
	foreign context.Context // DoneCase of a context the scheduler does not drive
}

// selOp is the typed code of a send or receive case on a Chan[T], seen
// from Select and from the channel's code, which know nothing of T.
type selOp interface {
	// proceed completes the case with the channel locked, if it can:
	// a hand-over to or from a parked task or a waiting select (other
	// than self), the buffer, or a closed channel. It reports whether it
	// did, and the error of a send on a closed channel.
	proceed(sc *SelectCase, t *Task, self *selWaiter) (bool, error)
	// ready is proceed's test alone.
	ready(sc *SelectCase, self *selWaiter) bool
	// closed completes a waiting select's case on its channel's close:
	// a receive gets the zero value and ok false.
	closed(sc *SelectCase)
}

// selEntry is a waiting select's entry in one channel's list.
type selEntry struct {
	w   *selWaiter
	idx int32 // the case
}

// Select states besides a case index.
const (
	selPending   int32 = -1 // parked and claimable
	selCancelled int32 = -2 // a cancellation won
	selIdle      int32 = -3 // not parked (yet, or any more)
)

// selWaiter is a task blocked in Select, the blocker it parks on.
type selWaiter struct {
	ref    waitRef // points back here
	t      *Task
	cases  []SelectCase
	chans  []*channel // the cases' distinct channels, in lock order
	state  atomic.Int32
	closed bool // the winning case is a send whose channel was closed; written by the claimer
	intr   bool // interruptible
}

// selWaiter is t's select waiter, made at its first wait and reused:
// once a Select returns no channel holds an entry of it (wait takes them
// off), and a canceller that still holds its stale reference can only
// cancel a later select of the same task, which is marked cancelled by
// then anyway.
func (t *Task) selWaiter() *selWaiter {
	e := t.ext()
	if e.sel == nil {
		e.sel = &selWaiter{t: t}
		e.sel.ref.b = e.sel
	}
	return e.sel
}

// claim makes the waiting select's case idx the one that proceeds, if no
// other case (or a cancellation) came first. Called with the case's
// channel locked.
func (sw *selWaiter) claim(idx int32) bool { return sw.state.CompareAndSwap(selPending, idx) }

// wake makes a claimed select's task ready, from w. Called with the
// claiming case's channel locked.
func (sw *selWaiter) wake(w *worker) {
	t := sw.t
	t.wait.state = waitDone
	t.waitingOn.Store(nil)
	t.s.wakeFrom(w, t)
}

func (sw *selWaiter) describe() string {
	s := "select"
	for _, c := range sw.chans {
		s += " " + c.name
	}
	return s
}

// park registers the select on each of its channels unless a case can
// proceed now (the task then retries) or it was cancelled meanwhile. The
// worker calls it once the task's fiber has yielded.
func (sw *selWaiter) park(t *Task, _ *worker) bool {
	lockAll(sw.chans)
	defer unlockAll(sw.chans)
	for i := range sw.cases {
		if sc := &sw.cases[i]; sc.op != nil && sc.op.ready(sc, nil) {
			return false
		}
	}
	sw.state.Store(selPending)
	for i := range sw.cases {
		if sc := &sw.cases[i]; sc.op != nil {
			sc.ch.sel = append(sc.ch.sel, selEntry{w: sw, idx: int32(i)})
		}
	}
	if !t.publishWait(stateBlocked, &sw.ref) {
		sw.state.Store(selIdle)
		sw.unregisterLocked()
		return false
	}
	return true
}

// cancelWait wins the select for a cancellation, if no case has.
func (sw *selWaiter) cancelWait(t *Task) bool {
	if !sw.intr || !sw.state.CompareAndSwap(selPending, selCancelled) {
		return false
	}
	t.wait.state = waitCancelled
	t.waitingOn.Store(nil)
	return true
}

// unregisterLocked takes sw's entries off its channels, all locked.
func (sw *selWaiter) unregisterLocked() {
	for _, c := range sw.chans {
		c.sel = slices.DeleteFunc(c.sel, func(e selEntry) bool { return e.w == sw })
	}
}

// lockAll locks chans, which are in lock order (channel.id) and distinct.
func lockAll(chans []*channel) {
	for _, c := range chans {
		c.lock()
	}
}

func unlockAll(chans []*channel) {
	for _, c := range slices.Backward(chans) {
		c.mu.Unlock()
	}
}

// waiting returns the first select waiting on c, on the other side of a
// case whose direction is send (true: a select waiting to receive), that
// is not self and still claimable, dropping the stale entries it passes.
// Called with c locked.
func (c *channel) waiting(send bool, self *selWaiter) (selEntry, bool) {
	for i := 0; i < len(c.sel); i++ {
		e := c.sel[i]
		if e.w.state.Load() != selPending {
			continue // claimed or cancelled: its task takes it off
		}
		if e.w == self || e.w.cases[e.idx].send == send {
			continue
		}
		return e, true
	}
	return selEntry{}, false
}

// closeSelects completes every select waiting on c, which Close has just
// closed, from w. Called with c locked.
func (c *channel) closeSelects(w *worker) {
	for _, e := range c.sel {
		if !e.w.claim(e.idx) {
			continue
		}
		sc := &e.w.cases[e.idx]
		if sc.send {
			e.w.closed = true
		} else {
			sc.op.closed(sc)
		}
		e.w.wake(w)
	}
}

// DefaultCase is Select's default case: Select takes it, without
// blocking, when no other case is ready.
func DefaultCase() SelectCase { return SelectCase{isDflt: true} }

// Select waits until one of its cases can proceed, makes it proceed and
// returns its index, as Go's select statement does: a send case sends its
// value, a receive case stores what it received (and whether the channel
// was open) through the pointers RecvCase was given. With a DefaultCase
// it never blocks: it returns the default's index when no other case is
// ready. With no case that can ever be ready (none, or only zero
// SelectCases) and no default, it blocks until cancelled.
//
// Among the cases ready at once, which proceeds is a decision: the
// driver's (its chooser's, recorded in the trace as a decide select)
// under the seeded simulator, uniform at random from the worker's seeded
// generator in real mode, so that no case starves.
//
// Select is a checkpoint costing one op and one channel_ops, a step
// boundary, and a cancellation interrupts a task waiting in it: it then
// returns -1 and the *CancelError. A send case whose channel is closed
// makes Select return its index and the ChannelClosed error, as Send
// does (Go's select panics). A case on a Chan of another Scheduler, or a
// DoneCase of a context the scheduler does not drive that Select would
// have to wait for, is an error (ErrForeignChan, ErrForeignContext).
func Select(t *Task, cases ...SelectCase) (int, error) {
	if err := t.pointChan(); err != nil {
		return -1, err
	}
	return selectOn(t, cases, true)
}

// selectOn is Select after its checkpoint; with block false it never
// waits (as with a default case).
func selectOn(t *Task, in []SelectCase, block bool) (int, error) {
	// The cases are copied into the task's select waiter (made at its
	// first Select, kept for the next), where the typed code takes their
	// addresses (an interface's method cannot be proven to keep none):
	// the caller's slice of cases then stays on its stack.
	sw := t.selWaiter()
	sw.cases = append(sw.cases[:0], in...)
	defer sw.reset()
	chans, dflt, err := selectChans(t, sw.cases, sw.chans[:0])
	sw.chans = chans
	if err != nil {
		return -1, err
	}
	for {
		idx, err, ok := selectReady(t, sw.cases, sw.chans, sw)
		if ok {
			return idx, err
		}
		if dflt >= 0 || !block {
			return dflt, nil
		}
		for _, c := range sw.cases {
			if c.foreign != nil {
				return -1, foreignCtxErr()
			}
		}
		if idx, err, ok := sw.wait(); ok {
			return idx, err
		}
	}
}

// reset empties the waiter once its Select has returned: the task keeps
// it for its next Select, without the cases' values.
func (sw *selWaiter) reset() {
	clear(sw.cases)
	sw.cases, sw.chans = sw.cases[:0], sw.chans[:0]
}

// selectChans checks the cases and returns their distinct channels in
// lock order, appended to chans, and the default case's index (-1 if
// none).
func selectChans(t *Task, cases []SelectCase, chans []*channel) (_ []*channel, dflt int, err error) {
	dflt = -1
	for i, c := range cases {
		switch {
		case c.isDflt:
			if dflt >= 0 {
				panic("sched: Select: more than one DefaultCase")
			}
			dflt = i
		case c.op != nil:
			ch := c.ch
			if ch.s != t.s {
				return nil, -1, ch.foreignErr()
			}
			if !slices.Contains(chans, ch) {
				chans = append(chans, ch)
			}
		}
	}
	// An insertion sort: a select has a few channels, and a sort with
	// a comparison func would cost a closure.
	for i := 1; i < len(chans); i++ {
		for j := i; j > 0 && chans[j].id < chans[j-1].id; j-- {
			chans[j], chans[j-1] = chans[j-1], chans[j]
		}
	}
	return chans, dflt, nil
}

// selectReady makes one ready case proceed, chosen among the ready ones
// (Worker.chooseCase), and reports it (ok); ok false when none is ready.
// A foreign context's DoneCase is ready once the context is done.
func selectReady(t *Task, cases []SelectCase, chans []*channel, self *selWaiter) (int, error, bool) {
	lockAll(chans)
	defer unlockAll(chans)
	var buf [8]int
	ready := buf[:0]
	for i := range cases {
		c := &cases[i]
		if c.op != nil && c.op.ready(c, self) || c.foreign != nil && c.foreign.Err() != nil {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		k := t.w.chooseCase(t, len(ready))
		i := ready[k]
		if cases[i].foreign != nil {
			return i, nil, true
		}
		if done, err := cases[i].op.proceed(&cases[i], t, self); done {
			return i, err, true
		}
		// A select it would have completed was claimed by another case
		// or cancelled meanwhile (on another worker): look again.
		ready = slices.Delete(ready, k, k+1)
		ready = slices.DeleteFunc(ready, func(j int) bool { return cases[j].op != nil && !cases[j].op.ready(&cases[j], self) })
	}
	return -1, nil, false
}

// wait parks the select until a case completes it or a cancellation
// interrupts it (ok, with the index or the error), or the worker finds a
// case ready before it parks (not ok: the caller looks again).
func (sw *selWaiter) wait() (int, error, bool) {
	t := sw.t
	t.enlist() // a cancellation must be able to interrupt this wait (lean.go)
	sw.intr = t.cleanupDepth == 0
	sw.closed = false
	sw.state.Store(selIdle)
	t.setWait(sw.intr, 0)
	t.w.blockOn = sw
	t.suspend(reasonBlock)
	st := sw.state.Load()
	if st == selIdle {
		// Not parked: a case was ready, or t was cancelled first.
		if sw.intr && t.marked() != 0 {
			return -1, t.observe(), true
		}
		return 0, nil, false
	}
	lockAll(sw.chans)
	sw.unregisterLocked()
	unlockAll(sw.chans)
	sw.state.Store(selIdle)
	if st == selCancelled {
		return -1, t.observe(), true
	}
	if sw.closed {
		return int(st), sw.cases[st].ch.closedErr("send on"), true
	}
	return int(st), nil, true
}

// chooseCase picks one of k ready select cases for t: uniform from w's
// seeded generator in real mode; under a stepped driver a chain of
// decisions (take the next ready case, yes or no), the driver's
// DecisionSource's when it has one, else drawn uniform from w's
// generator, each recorded as a decide event that a replay of the
// recorded schedule reads back.
func (w *worker) chooseCase(t *Task, k int) int {
	if k == 1 {
		return 0
	}
	if w.mode&modeStepped == 0 {
		return w.rng.Intn(k)
	}
	if w.mode&modeLegacy2 != 0 {
		return 0
	}
	src := w.s.cfg.Decisions
	j := k - 1
	if src == nil {
		j = w.rng.Intn(k)
	}
	for i := 0; i < k-1; i++ {
		yes := i == j
		if src != nil {
			yes = src.Decide(w.id, link.DecideSelect)
		}
		if w.em.on() {
			w.em.emitDecide(link.DecideSelect, yes, t.id)
		}
		if yes {
			return i
		}
	}
	return k - 1
}

// chanOps is the typed code of the cases on a Chan[T]: a zero-size value,
// which a SelectCase's interface holds without an allocation.
type chanOps[T any] struct{}

// SendCase is a Select case that sends v on c.
func (c *Chan[T]) SendCase(v T) SelectCase {
	sc := SelectCase{op: chanOps[T]{}, c: unsafe.Pointer(c), ch: c.c, send: true}
	if c.word {
		sc.word = toWord(v)
	} else {
		sc.box = unsafe.Pointer(&v) // v escapes: the case's one allocation
	}
	return sc
}

// RecvCase is a Select case that receives from c, storing the value in
// *into and whether the channel was still open (false once it is closed
// and drained) in *ok; either may be nil.
func (c *Chan[T]) RecvCase(into *T, ok *bool) SelectCase {
	return SelectCase{op: chanOps[T]{}, c: unsafe.Pointer(c), ch: c.c, box: unsafe.Pointer(into), ok: ok}
}

// chanOf is the case's Chan.
func chanOf[T any](sc *SelectCase) *Chan[T] { return (*Chan[T])(sc.c) }

// sendValue is a send case's value.
func sendValue[T any](sc *SelectCase) T {
	if sc.box == nil {
		return fromWord[T](sc.word)
	}
	return *(*T)(sc.box)
}

// deliver stores what a receive case got.
func deliver[T any](sc *SelectCase, v T, ok bool) {
	if sc.box != nil {
		*(*T)(sc.box) = v
	}
	if sc.ok != nil {
		*sc.ok = ok
	}
}

func (chanOps[T]) ready(sc *SelectCase, self *selWaiter) bool {
	ch := sc.ch
	if sc.send {
		if ch.closed || ch.recvq.len() > 0 || ch.n < ch.cap {
			return true
		}
	} else if ch.n > 0 || ch.sendq.len() > 0 || ch.closed {
		return true
	}
	_, ok := ch.waiting(sc.send, self)
	return ok
}

func (chanOps[T]) proceed(sc *SelectCase, t *Task, self *selWaiter) (bool, error) {
	c := chanOf[T](sc)
	if sc.send {
		if c.c.closed {
			return true, c.c.closedErr("send on")
		}
		return c.sendNow(sendValue[T](sc), t, self), nil
	}
	v, ok, done := c.recvNow(t, self)
	if done {
		deliver(sc, v, ok)
	}
	return done, nil
}

func (chanOps[T]) closed(sc *SelectCase) {
	var zero T
	deliver(sc, zero, false)
}

// sendNow hands v to a parked receiver or a select waiting to receive,
// or buffers it, if it can, for t; it reports whether it did. Called
// with c's channel locked and open.
func (c *Chan[T]) sendNow(v T, t *Task, self *selWaiter) bool {
	ch, w := c.c, t.w
	if r := ch.recvq.pop(); r != nil {
		r.waitVal = c.slot(v)
		if w.story() {
			ch.chanSend(t, r)
		}
		ch.handed(r, w)
		return true
	}
	if p := c.sendToSelect(v, w, self); p != nil {
		if w.story() {
			ch.chanSend(t, p)
		}
		return true
	}
	if ch.n < ch.cap {
		c.buf[(ch.head+ch.n)%ch.cap] = v
		if w.story() {
			ch.chanSend(t, nil)
		}
		ch.n++
		return true
	}
	return false
}

// sendToSelect hands v to a select waiting to receive on c, if one can be
// claimed, from w (nil: the clock); it returns the select's task, nil if
// none took v. Called with c's channel locked.
func (c *Chan[T]) sendToSelect(v T, w *worker, self *selWaiter) *Task {
	for {
		e, ok := c.c.waiting(true, self)
		if !ok {
			return nil
		}
		if e.w.claim(e.idx) {
			deliver(&e.w.cases[e.idx], v, true)
			peer := e.w.t
			e.w.wake(w)
			return peer
		}
	}
}

// recvNow takes a value from the buffer, a parked sender or a select
// waiting to send, or finds the channel closed and drained (ok false), if
// it can, for t; done reports whether it did. Called with c's channel
// locked.
func (c *Chan[T]) recvNow(t *Task, self *selWaiter) (v T, ok, done bool) {
	ch, w := c.c, t.w
	if ch.n > 0 {
		v = c.buf[ch.head]
		if w.story() {
			ch.chanRecvBuffered(t)
		}
		var zero T
		c.buf[ch.head] = zero
		ch.head = (ch.head + 1) % ch.cap
		ch.n--
		c.refill(t)
		return v, true, true
	}
	if s := ch.sendq.pop(); s != nil {
		v = c.value(s.waitVal)
		if w.story() {
			ch.chanRecvDirect(t, s)
		}
		ch.complete(s, waitDone, w)
		return v, true, true
	}
	if v, p := c.recvFromSelect(w, self); p != nil {
		if w.story() {
			ch.chanRecvDirect(t, p)
		}
		return v, true, true
	}
	if ch.closed {
		return v, false, true
	}
	return v, false, false
}

// refill moves a waiting sender's value, a parked task's or a select's,
// into the buffer a receive has just made room in. Called with c's
// channel locked, by t.
func (c *Chan[T]) refill(t *Task) {
	ch, w := c.c, t.w
	if s := ch.sendq.pop(); s != nil {
		c.buf[(ch.head+ch.n)%ch.cap] = c.value(s.waitVal)
		if w.story() {
			ch.chanSendParked(t, s)
		}
		ch.n++
		ch.complete(s, waitDone, w)
		return
	}
	if len(ch.sel) > 0 {
		if v, p := c.recvFromSelect(w, nil); p != nil {
			c.buf[(ch.head+ch.n)%ch.cap] = v
			if w.story() {
				ch.chanSendParked(t, p)
			}
			ch.n++
		}
	}
}

// recvFromSelect takes the value of a select waiting to send on c, if one
// can be claimed, from w; peer is the select's task, nil if there was
// none. Called with c's channel locked.
func (c *Chan[T]) recvFromSelect(w *worker, self *selWaiter) (v T, peer *Task) {
	for {
		e, found := c.c.waiting(false, self)
		if !found {
			return v, nil
		}
		if e.w.claim(e.idx) {
			v = sendValue[T](&e.w.cases[e.idx])
			peer = e.w.t
			e.w.wake(w)
			return v, peer
		}
	}
}

// TrySend sends v on c if it can without waiting (a receiver waits, or
// the buffer has room) and reports whether it did: Go's select with a
// send case and a default. It is a step boundary; it costs nothing and
// does not observe cancellation. On a closed channel it fails with
// ChannelClosed, as Send does; on a Chan of another Scheduler with
// ErrForeignChan.
func (c *Chan[T]) TrySend(t *Task, v T) (sent bool, err error) {
	t.boundary()
	ch := c.c
	if ch.s != t.s {
		return false, ch.foreignErr()
	}
	ch.lock()
	defer ch.mu.Unlock()
	if ch.closed {
		return false, ch.closedErr("send on")
	}
	return c.sendNow(v, t, nil), nil
}

// TryRecv receives from c if it can without waiting: ready reports
// whether it did, ok whether the channel was still open (v is then the
// value). It is Go's select with a receive case and a default: a step
// boundary that costs nothing and does not observe cancellation. A Chan
// of another Scheduler is never ready.
func (c *Chan[T]) TryRecv(t *Task) (v T, ok, ready bool) {
	t.boundary()
	ch := c.c
	if ch.s != t.s {
		return v, false, false
	}
	ch.lock()
	defer ch.mu.Unlock()
	return c.recvNow(t, nil)
}

// Len is the number of values in c's buffer.
func (c *Chan[T]) Len() int {
	c.c.lock()
	defer c.c.mu.Unlock()
	return c.c.n
}

// Cap is c's capacity (0: a rendezvous channel).
func (c *Chan[T]) Cap() int { return c.c.cap }
