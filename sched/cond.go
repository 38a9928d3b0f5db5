package sched

import (
	"slices"
	"sync"
)

// Cond is a condition variable for tasks, as sync.Cond: a point where
// tasks wait, holding L between their checks, for a Signal or a
// Broadcast. Make it with NewCond.
//
// Wait is a checkpoint (one op, a step boundary) and a cancellation
// interrupts it; whatever it returns, L is locked again when it returns,
// so that a deferred L.Unlock is always right. As with sync.Cond, a
// waiter checks its condition in a loop. Signal and Broadcast are step
// boundaries that cost nothing and never fail; a Signal wakes the task
// that has waited longest.
type Cond struct {
	// L is held while the condition is checked or changed.
	L *Mutex

	mu      sync.Mutex // guards the fields below
	tickets int64      // Waits begun: the next waiter's ticket
	notify  int64      // tickets below notify are signalled
	skip    []int64    // tickets at or above notify whose waiters left, cancelled
	waiters waitList   // parked waiters; Task.waitVal is the ticket
}

// NewCond returns a condition variable on m.
func NewCond(m *Mutex) *Cond { return &Cond{L: m} }

// Wait unlocks c.L, waits for a Signal or Broadcast, and locks c.L again
// before it returns. It returns the *CancelError of a cancellation that
// interrupted the wait (or came before it), with c.L locked.
func (c *Cond) Wait(t *Task) error {
	if err := t.pointOp(); err != nil {
		return err
	}
	c.mu.Lock()
	ticket := c.tickets
	c.tickets++
	if !c.waiters.ready() {
		c.waiters.init(&c.mu, "cond", c.signalled)
	}
	c.mu.Unlock()
	c.L.unlock(t.w)
	err := c.await(t, ticket)
	// The lock comes back whatever happened, as a cleanup takes it:
	// cancellation does not interrupt it.
	t.cleanupDepth++
	_ = c.L.lock(t) // never fails outside an interruptible wait
	t.cleanupDepth--
	return err
}

// signalled is the waiters' over: the ticket (t.waitVal) was signalled
// before the task parked. Called with c.mu held.
func (c *Cond) signalled(t *Task) bool { return t.waitVal < c.notify }

// await waits for ticket's signal.
func (c *Cond) await(t *Task, ticket int64) error {
	for {
		done, err := t.waitOn(&c.waiters, ticket)
		if done {
			return nil
		}
		c.mu.Lock()
		if err != nil {
			if ticket < c.notify {
				c.signalLocked(t.w) // it was this waiter's: pass it on
			} else {
				c.skip = append(c.skip, ticket)
			}
			c.mu.Unlock()
			return err
		}
		if ticket < c.notify {
			c.mu.Unlock()
			return nil // signalled before it parked
		}
		c.mu.Unlock()
	}
}

// Signal wakes the task that has waited longest, if any.
func (c *Cond) Signal(t *Task) {
	t.boundary()
	c.mu.Lock()
	c.signalLocked(t.w)
	c.mu.Unlock()
}

// signalLocked signals the oldest ticket still waiting. Called with c.mu
// held.
func (c *Cond) signalLocked(w *worker) {
	for c.notify < c.tickets {
		target := c.notify
		c.notify++
		if i := slices.Index(c.skip, target); i >= 0 {
			c.skip = slices.Delete(c.skip, i, i+1)
			continue // its waiter left: the signal goes to the next
		}
		if p := c.waiters.q.find(target); p != nil {
			c.waiters.q.remove(p)
			c.waiters.release(p, w)
		} // else its waiter has not parked yet, and will not (signalled)
		return
	}
}

// Broadcast wakes every waiting task.
func (c *Cond) Broadcast(t *Task) {
	t.boundary()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notify = c.tickets
	c.skip = c.skip[:0]
	for c.waiters.wake(t.w) != nil {
	}
}

// find returns the parked task whose wait value is v, nil if none.
func (q *waitq) find(v int64) *Task {
	for _, t := range q.items[q.head:] {
		if t != nil && t.waitVal == v {
			return t
		}
	}
	return nil
}

// WaitGroup waits for a count of tasks to finish, as sync.WaitGroup: Add
// counts them in, each calls Done when it finishes, and Wait waits for
// the count to reach zero. Its zero value is ready; it must not be copied
// after first use. A nursery already waits for its children
// (Task.Nursery); a WaitGroup is for the code ported from Go that counts
// something else, or waits in another task than the spawner.
//
// Wait is a checkpoint (one op, a step boundary) and a cancellation
// interrupts it. Done is a step boundary that costs nothing and never
// fails; Add is not a step boundary (it takes no task). A negative count
// panics, as sync.WaitGroup's does.
type WaitGroup struct {
	mu      sync.Mutex // guards the fields below
	n       int
	waiters waitList
}

// Add adds delta, which may be negative, to the count; when it reaches
// zero, every waiting task is woken.
func (wg *WaitGroup) Add(delta int) { wg.add(delta, nil) }

// Done subtracts one from the count.
func (wg *WaitGroup) Done(t *Task) {
	t.boundary()
	wg.add(-1, t.w)
}

// add is Add, from w (nil: outside a worker).
func (wg *WaitGroup) add(delta int, w *worker) {
	wg.mu.Lock()
	defer wg.mu.Unlock()
	wg.n += delta
	if wg.n < 0 {
		panic("sched: negative WaitGroup counter")
	}
	if wg.n == 0 {
		for wg.waiters.wake(w) != nil {
		}
	}
}

// Wait waits until the count is zero.
func (wg *WaitGroup) Wait(t *Task) error {
	if err := t.pointOp(); err != nil {
		return err
	}
	for {
		wg.mu.Lock()
		if wg.n == 0 {
			wg.mu.Unlock()
			return nil
		}
		if !wg.waiters.ready() {
			wg.waiters.init(&wg.mu, "waitgroup", wg.zero)
		}
		wg.mu.Unlock()
		done, err := t.waitOn(&wg.waiters, 0)
		if done || err != nil {
			return err
		}
	}
}

// zero is the waiters' over. Called with wg.mu held.
func (wg *WaitGroup) zero(*Task) bool { return wg.n == 0 }
