package sched

import "sync"

// Mutex is a mutual exclusion lock between tasks: sync.Mutex for code
// that runs as tasks, whose waits park the task (not the worker) and
// which the seeded driver interleaves. Its zero value is an unlocked
// mutex; it must not be copied after first use.
//
// Lock is a checkpoint: it costs one op, is a step boundary, and a
// cancellation interrupts a task waiting in it (Lock then returns the
// *CancelError without the lock). Unlock never fails, costs nothing and
// never observes cancellation, so that
//
//	if err := mu.Lock(t); err != nil {
//		return err
//	}
//	defer mu.Unlock(t)
//
// is right on every path, a cancellation's included. Unlock hands the
// lock to the first waiting task, in the order they blocked (the fairness
// sync.Mutex only reaches in its starvation mode), so that who gets it
// next is a function of the schedule, which the driver decides. A Mutex
// is not tied to a task: one task may lock it and another unlock it.
type Mutex struct {
	// Name, when set, names the mutex in a trace and in a deadlock's
	// waits ("waits to lock NAME"), the same in every schedule. Unset, the
	// mutex is mutex#N, N in the order of the run's first locks, which
	// may differ between two schedules of one program (and so show in
	// their diff). Set it before the first Lock; it is not written after.
	Name string

	mu      sync.Mutex // guards the fields below
	locked  bool
	waiters waitList
	id      uint64 // its name's number in a trace (Task.syncName), given at its first lock
}

// Lock locks m, waiting while another task holds it.
func (m *Mutex) Lock(t *Task) error {
	if err := t.pointOp(); err != nil {
		return err
	}
	return m.lock(t)
}

// lock is Lock after its checkpoint. Inside a cleanup (or under
// Cond.Wait's relock, which runs as one) the wait is not interruptible.
func (m *Mutex) lock(t *Task) error {
	for {
		m.mu.Lock()
		if !m.locked {
			m.locked = true
			m.event(t, "lock")
			m.mu.Unlock()
			return nil
		}
		if !m.waiters.ready() {
			m.waiters.init(&m.mu, "lock "+t.syncName("mutex", m.Name, &m.id), m.free)
		}
		m.mu.Unlock()
		done, err := t.waitOn(&m.waiters, 0)
		if done {
			// Unlock handed the lock over.
			m.mu.Lock()
			m.event(t, "lock")
			m.mu.Unlock()
		}
		if done || err != nil {
			return err
		}
	}
}

// event records t's op on m when the run tells its story. Called with
// m.mu held.
func (m *Mutex) event(t *Task, op string) {
	if t.w.story() {
		t.lockEvent(op, t.syncName("mutex", m.Name, &m.id))
	}
}

// free is the mutex waiters' over: the lock was released before the
// task parked. Called with m.mu held.
func (m *Mutex) free(*Task) bool { return !m.locked }

// TryLock locks m if it is free and reports whether it did. It is a step
// boundary, costs nothing and never observes cancellation.
func (m *Mutex) TryLock(t *Task) bool {
	t.boundary()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locked {
		return false
	}
	m.locked = true
	m.event(t, "lock")
	return true
}

// Unlock unlocks m, handing it to the first waiting task if there is one.
// It is a step boundary, costs nothing and never fails; unlocking an
// unlocked Mutex panics, as sync.Mutex's fatal error does.
func (m *Mutex) Unlock(t *Task) {
	t.boundary()
	m.unlock(t)
}

// unlock is Unlock without its step boundary, by t.
func (m *Mutex) unlock(t *Task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.locked {
		panic("sched: Mutex.Unlock of an unlocked mutex")
	}
	m.event(t, "unlock")
	if m.waiters.wake(t.w) == nil {
		m.locked = false
	} // else the lock goes to the woken task, still locked
}

// RWMutex is a reader/writer lock between tasks, as sync.RWMutex: any
// number of readers or one writer. A writer waiting in Lock keeps new
// readers out (writer preference), so that a stream of readers cannot
// starve it; when the writer unlocks, the readers waiting then get the
// lock before the next writer. Its zero value is unlocked; it must not be
// copied after first use.
//
// Lock and RLock are checkpoints as Mutex.Lock is (one op, a step
// boundary, interrupted by cancellation); Unlock and RUnlock never fail
// and never observe cancellation, so a deferred unlock is always right.
// As with sync.RWMutex, a task that holds a read lock must not RLock
// again while a writer may be waiting: that is a deadlock, and the
// driver reports it as one.
type RWMutex struct {
	// Name names the lock in a trace and in a deadlock's waits, as
	// Mutex.Name does; unset, it is rwmutex#N.
	Name string

	mu       sync.Mutex // guards the fields below
	writing  bool       // a writer holds the lock
	readers  int        // readers holding it
	pendingW int        // writers in Lock that do not hold it yet: they keep readers out
	writers  waitList
	readersQ waitList
	id       uint64 // its name's number in a trace (Task.syncName), given at its first lock
}

// Lock locks rw for writing, waiting until no reader or writer holds it.
func (rw *RWMutex) Lock(t *Task) error {
	if err := t.pointOp(); err != nil {
		return err
	}
	rw.mu.Lock()
	if rw.freeLocked() {
		rw.writing = true
		rw.event(t, "lock")
		rw.mu.Unlock()
		return nil
	}
	rw.pendingW++
	rw.init(t)
	rw.mu.Unlock()
	for {
		done, err := t.waitOn(&rw.writers, 0)
		rw.mu.Lock()
		if done { // handed over by Unlock or RUnlock, which counted it
			rw.event(t, "lock")
			rw.mu.Unlock()
			return nil
		}
		if err != nil {
			rw.pendingW--
			rw.admitReaders(t.w) // the readers this writer kept out
			rw.mu.Unlock()
			return err
		}
		if rw.freeLocked() {
			rw.pendingW--
			rw.writing = true
			rw.event(t, "lock")
			rw.mu.Unlock()
			return nil
		}
		rw.mu.Unlock()
	}
}

// event records t's op on rw when the run tells its story. Called with
// rw.mu held.
func (rw *RWMutex) event(t *Task, op string) {
	if t.w.story() {
		t.lockEvent(op, t.syncName("rwmutex", rw.Name, &rw.id))
	}
}

// init makes the wait lists ready, at t's wait. Called with rw.mu held.
func (rw *RWMutex) init(t *Task) {
	if rw.writers.ready() {
		return
	}
	name := t.syncName("rwmutex", rw.Name, &rw.id)
	rw.writers.init(&rw.mu, "lock "+name, func(*Task) bool { return rw.freeLocked() })
	rw.readersQ.init(&rw.mu, "rlock "+name, func(*Task) bool { return rw.readable() })
}

// freeLocked: no one holds rw. Called with rw.mu held.
func (rw *RWMutex) freeLocked() bool { return !rw.writing && rw.readers == 0 }

// readable: a reader may take rw now. Called with rw.mu held.
func (rw *RWMutex) readable() bool { return !rw.writing && rw.pendingW == 0 }

// RLock locks rw for reading, waiting while a writer holds it or waits
// for it.
func (rw *RWMutex) RLock(t *Task) error {
	if err := t.pointOp(); err != nil {
		return err
	}
	for {
		rw.mu.Lock()
		if rw.readable() {
			rw.readers++
			rw.event(t, "rlock")
			rw.mu.Unlock()
			return nil
		}
		rw.init(t)
		rw.mu.Unlock()
		done, err := t.waitOn(&rw.readersQ, 0)
		if done { // a writer's Unlock counted this reader in
			rw.mu.Lock()
			rw.event(t, "rlock")
			rw.mu.Unlock()
		}
		if done || err != nil {
			return err
		}
	}
}

// TryLock locks rw for writing if no one holds it, and reports whether it
// did. A step boundary that costs nothing and never observes cancellation.
func (rw *RWMutex) TryLock(t *Task) bool {
	t.boundary()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !rw.freeLocked() {
		return false
	}
	rw.writing = true
	rw.event(t, "lock")
	return true
}

// TryRLock locks rw for reading if no writer holds it or waits for it,
// and reports whether it did. A step boundary, as TryLock.
func (rw *RWMutex) TryRLock(t *Task) bool {
	t.boundary()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !rw.readable() {
		return false
	}
	rw.readers++
	rw.event(t, "rlock")
	return true
}

// Unlock unlocks rw for writing: the readers waiting get it, or else the
// first waiting writer. A step boundary that never fails; unlocking an
// RWMutex not locked for writing panics.
func (rw *RWMutex) Unlock(t *Task) {
	t.boundary()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !rw.writing {
		panic("sched: RWMutex.Unlock of an RWMutex not locked for writing")
	}
	rw.event(t, "unlock")
	rw.writing = false
	if rw.readersQ.q.len() > 0 {
		for rw.readersQ.q.len() > 0 {
			rw.readers++
			rw.readersQ.wake(t.w)
		}
		return
	}
	rw.handWriter(t.w)
}

// RUnlock undoes one RLock; the last reader out hands the lock to the
// first waiting writer. A step boundary that never fails; RUnlock without
// a read lock held panics.
func (rw *RWMutex) RUnlock(t *Task) {
	t.boundary()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.readers <= 0 {
		panic("sched: RWMutex.RUnlock of an RWMutex not locked for reading")
	}
	rw.event(t, "runlock")
	rw.readers--
	if rw.readers == 0 {
		rw.handWriter(t.w)
	}
}

// handWriter gives the free lock to the first parked writer, if any.
// Called with rw.mu held.
func (rw *RWMutex) handWriter(w *worker) {
	if rw.writers.q.len() == 0 {
		return
	}
	rw.writing = true
	rw.pendingW--
	rw.writers.wake(w)
}

// admitReaders lets in the parked readers once no writer is pending (a
// waiting writer was cancelled). Called with rw.mu held.
func (rw *RWMutex) admitReaders(w *worker) {
	for rw.readable() && rw.readersQ.q.len() > 0 {
		rw.readers++
		rw.readersQ.wake(w)
	}
}
