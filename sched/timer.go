package sched

import (
	"container/heap"
	"sync"
	"sync/atomic"
)

// timerKind says what a timer does when it fires.
type timerKind uint8

const (
	timerSleep   timerKind = iota + 1 // wake a sleeping task
	timerTimeout                      // a nursery's timeout
	timerFunc                         // a Timer's or Ticker's firing (vtime.go)
)

// timer is one pending timer. dead timers (the sleeper was cancelled, the
// nursery ended) stay in the heap until they reach its top, where they are
// dropped without firing.
type timer struct {
	when    uint64
	seq     uint64 // creation order: ties fire in the order they were set
	kind    timerKind
	task    *Task
	n       *Nursery
	fn      func(now uint64) // timerFunc's
	inert   func() bool      // timerFunc's: its firing would wake no task now (nextWaking)
	dead    bool
	fired   bool
	waiting bool // a sleeper is parked on it
	idx     int
}

// timers is a min-heap of timers ordered by (when, seq), so the order in
// which timers fire never depends on anything but the program.
type timers struct {
	mu     sync.Mutex
	h      timerHeap
	seq    uint64
	wake   chan struct{} // real mode: tells the clock goroutine a new timer exists
	nextAt atomic.Uint64 // the earliest deadline in h (dead timers included), noTimer if empty; written under mu
}

// noTimer is nextAt's value when no timer is pending.
const noTimer = ^uint64(0)

// setNext refreshes nextAt from the heap. Called with mu held.
func (ts *timers) setNext() {
	if len(ts.h) == 0 {
		ts.nextAt.Store(noTimer)
		return
	}
	ts.nextAt.Store(ts.h[0].when)
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *timerHeap) Push(x any)   { t := x.(*timer); t.idx = len(*h); *h = append(*h, t) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

// add registers a timer firing at when.
func (ts *timers) add(when uint64, kind timerKind, t *Task, n *Nursery) *timer {
	return ts.push(&timer{when: when, kind: kind, task: t, n: n})
}

// addFunc registers a timer that calls fn when it fires, at when.
func (ts *timers) addFunc(when uint64, fn func(now uint64), inert func() bool) *timer {
	return ts.push(&timer{when: when, kind: timerFunc, fn: fn, inert: inert})
}

// push gives tm its sequence number (the tie-break of timers firing at
// once) and puts it on the heap.
func (ts *timers) push(tm *timer) *timer {
	ts.mu.Lock()
	ts.seq++
	tm.seq = ts.seq
	heap.Push(&ts.h, tm)
	ts.setNext()
	ts.mu.Unlock()
	if ts.wake != nil { // real mode's clock goroutine
		ts.wakeClock()
	}
	return tm
}

// kill marks tm dead so it never fires, and reports whether it was
// still pending (neither fired nor killed).
//
// A Timer's (timerFunc) leaves the heap at once: a program that makes
// and stops timers in a loop (a timeout per request) would otherwise
// fill it with dead timers until their far deadlines. The older kinds
// stay until they reach the top, as they always did (their traces do not
// depend on it either way).
func (ts *timers) kill(tm *timer) bool {
	ts.mu.Lock()
	pending := !tm.dead && !tm.fired
	tm.dead = true
	if pending && tm.kind == timerFunc {
		heap.Remove(&ts.h, tm.idx)
		ts.setNext()
	}
	ts.mu.Unlock()
	return pending
}

// next returns the time of the earliest live timer.
func (ts *timers) next() (uint64, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for len(ts.h) > 0 && ts.h[0].dead {
		heap.Pop(&ts.h)
	}
	ts.setNext()
	if len(ts.h) == 0 {
		return 0, false
	}
	return ts.h[0].when, true
}

// nextWaking is next without the timers whose firing would wake no task:
// a Timer's or Ticker's whose channel no task waits on (inert). When
// every task is blocked, such a firing changes nothing any task can
// see, and a Ticker's never ends: a run whose pending timers are all
// inert is deadlocked, not waiting for time to pass (a live Ticker
// nobody receives from kept such a run jumping its clock until the
// event limit). The firings still happen, in order, when the clock
// passes them for another timer or a step.
func (ts *timers) nextWaking() (uint64, bool) {
	if _, ok := ts.next(); !ok {
		return 0, false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	// next let go of the lock: real mode's clock goroutine may have fired
	// the timers meanwhile, so the heap is read again under it.
	if len(ts.h) == 0 {
		return 0, false
	}
	if top := ts.h[0]; top.dead || top.kind != timerFunc || !top.inert() {
		return top.when, true
	}
	var best *timer
	for _, tm := range ts.h {
		if tm.dead || tm.kind == timerFunc && tm.inert() {
			continue
		}
		if best == nil || tm.when < best.when || tm.when == best.when && tm.seq < best.seq {
			best = tm
		}
	}
	if best == nil {
		return 0, false
	}
	return best.when, true
}

// popDue pops the earliest live timer due at now, or returns nil. Called
// with ts.mu held.
func (ts *timers) popDue(now uint64) *timer {
	for len(ts.h) > 0 {
		tm := ts.h[0]
		if tm.dead {
			heap.Pop(&ts.h)
			continue
		}
		if tm.when > now {
			ts.setNext()
			return nil
		}
		heap.Pop(&ts.h)
		tm.dead = true
		ts.setNext()
		return tm
	}
	ts.setNext()
	return nil
}
