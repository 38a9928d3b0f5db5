package sched

import "sync"

// waitList is the tasks parked on one condition of a sync primitive
// (Mutex, RWMutex, Cond, WaitGroup), first in first out, and the two
// blockers they park on: one that cancellation may interrupt and one it
// may not (a wait inside a cleanup), as a channel has (channel.blockers).
// It is guarded by its primitive's lock, whose pointer it keeps; its zero
// value is made ready by init, under that lock, at the first wait, so
// that the primitives' zero values are ready to use.
type waitList struct {
	q   waitq
	blk [2]listWait
}

// listWait is a waitList's blocker. over reports, under the primitive's
// lock, that the wait is already over before the task parks (the lock was
// released meanwhile, the counter reached zero): park then refuses, and
// the task retries its operation.
type listWait struct {
	ref           waitRef // points back here
	l             *waitList
	mu            *sync.Mutex
	over          func(t *Task) bool
	what          string
	interruptible bool
}

// ready reports whether init has run.
func (l *waitList) ready() bool { return l.blk[0].l != nil }

// init makes l ready. Called once, with mu held (the callers test ready
// first, so that over, a func value, is made once).
func (l *waitList) init(mu *sync.Mutex, what string, over func(t *Task) bool) {
	for i := range l.blk {
		b := &l.blk[i]
		*b = listWait{l: l, mu: mu, over: over, what: what, interruptible: i == 1}
		b.ref.b = b
	}
}

func (b *listWait) describe() string { return b.what }

// park registers t in the list unless the wait is over or t was marked
// cancelled meanwhile. The worker calls it once t's fiber has yielded.
func (b *listWait) park(t *Task, _ *worker) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over(t) {
		return false
	}
	b.l.q.push(t)
	if !t.publishWait(stateBlocked, &b.ref) {
		b.l.q.remove(t)
		return false
	}
	return true
}

// cancelWait takes t out of the list if it is still parked there.
func (b *listWait) cancelWait(t *Task) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.interruptible || !b.l.q.remove(t) {
		return false
	}
	t.wait.state = waitCancelled
	t.waitingOn.Store(nil)
	return true
}

// wake completes the wait of the first parked task and makes it ready,
// from w (nil: from outside any worker). It returns the task, nil if none
// was parked. Called with the primitive's lock held.
func (l *waitList) wake(w *worker) *Task {
	t := l.q.pop()
	if t == nil {
		return nil
	}
	l.release(t, w)
	return t
}

// release completes t's wait, t taken out of the list, and wakes it.
func (l *waitList) release(t *Task, w *worker) {
	t.wait.state = waitDone
	t.waitingOn.Store(nil)
	t.s.wakeFrom(w, t)
}

// waitOn parks t on l until a waker completes its wait (done), a
// cancellation interrupts it (the *CancelError), or the worker finds the
// wait over before it parked (neither: the caller retries its
// operation). v is the wait's value (Task.waitVal), which over may read.
// It is the part of every sync primitive's blocking path that suspends.
func (t *Task) waitOn(l *waitList, v int64) (done bool, err error) {
	t.enlist() // a cancellation must be able to interrupt this wait (lean.go)
	interruptible := t.cleanupDepth == 0
	t.setWait(interruptible, v)
	t.w.blockOn = &l.blk[b2i(interruptible)]
	t.suspend(reasonBlock)
	switch {
	case t.wait.state == waitDone:
		return true, nil
	case t.wait.state == waitCancelled || (interruptible && t.marked() != 0):
		return false, t.observe()
	}
	return false, nil
}

// boundary ends the step of an operation that never fails (an Unlock, a
// Signal): under a stepped driver the chooser may run another worker
// here, as at every checkpoint; in real mode it costs nothing. It does
// not observe cancellation.
func (t *Task) boundary() {
	if t.s.cfg.Mode.Stepped() {
		t.endStep()
	}
}
