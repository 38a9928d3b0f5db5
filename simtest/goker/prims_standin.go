//go:build !goker_i27a

package goker

import "github.com/cbcsim/cbcsim/sched"

// Stand-ins for the synchronisation sched does not have yet, each made of
// Chans: the kernels call these lowercase methods, which prims_sched.go
// maps onto sched.Mutex, RWMutex, Cond and WaitGroup.

// mutex is sync.Mutex as a task sees it.
//
// Until sched has a Mutex it is a capacity-1 Chan: a send takes the
// lock, a receive gives it back.
type mutex struct{ c *sched.Chan[struct{}] }

func newMutex(t *sched.Task, name string) *mutex {
	return &mutex{sched.NewChan[struct{}](t.Scheduler(), name, 1)}
}

func (m *mutex) lock(t *sched.Task) error { return m.c.Send(t, struct{}{}) }

func (m *mutex) unlock(t *sched.Task) error {
	_, _, err := m.c.Recv(t)
	return err
}

// waitGroup is sync.WaitGroup as a task sees it.
//
// Until sched has a WaitGroup it is a counter under a mutex and a
// channel per waiter, closed when the counter reaches zero.
type waitGroup struct {
	mu      *mutex
	count   int
	waiters []*sched.Chan[struct{}]
}

func newWaitGroup(t *sched.Task, name string) *waitGroup {
	return &waitGroup{mu: newMutex(t, name)}
}

func (wg *waitGroup) add(t *sched.Task, delta int) error {
	if err := wg.mu.lock(t); err != nil {
		return err
	}
	wg.count += delta
	if wg.count < 0 {
		panic("goker: waitGroup: negative counter")
	}
	if wg.count == 0 {
		for _, w := range wg.waiters {
			if err := w.Close(t); err != nil {
				return err
			}
		}
		wg.waiters = nil
	}
	return wg.mu.unlock(t)
}

func (wg *waitGroup) done(t *sched.Task) error { return wg.add(t, -1) }

func (wg *waitGroup) wait(t *sched.Task) error {
	if err := wg.mu.lock(t); err != nil {
		return err
	}
	if wg.count == 0 {
		return wg.mu.unlock(t)
	}
	w := sched.NewChan[struct{}](t.Scheduler(), "wait_group_waiter", 0)
	wg.waiters = append(wg.waiters, w)
	if err := wg.mu.unlock(t); err != nil {
		return err
	}
	_, _, err := w.Recv(t)
	return err
}

// cond is sync.Cond as a task sees it, on the mutex l.
//
// Until sched has a Cond it is a queue of waiters, each with a
// capacity-1 channel that Signal or Broadcast sends on.
type cond struct {
	l       *mutex
	waiters []*sched.Chan[struct{}]
}

func newCond(l *mutex) *cond { return &cond{l: l} }

// wait releases c.l, waits for a signal and takes c.l again; the caller
// holds c.l.
func (c *cond) wait(t *sched.Task) error {
	w := sched.NewChan[struct{}](t.Scheduler(), "cond_waiter", 1)
	c.waiters = append(c.waiters, w)
	if err := c.l.unlock(t); err != nil {
		return err
	}
	if _, _, err := w.Recv(t); err != nil {
		return err
	}
	return c.l.lock(t)
}

func (c *cond) signal(t *sched.Task) error {
	if len(c.waiters) == 0 {
		return nil
	}
	w := c.waiters[0]
	c.waiters = c.waiters[1:]
	return w.Send(t, struct{}{})
}

func (c *cond) broadcast(t *sched.Task) error {
	ws := c.waiters
	c.waiters = nil
	for _, w := range ws {
		if err := w.Send(t, struct{}{}); err != nil {
			return err
		}
	}
	return nil
}

// rwMutex is sync.RWMutex as a task sees it: a writer waiting for the
// lock keeps new readers out (which is what makes a recursive read lock
// deadlock).
//
// Until sched has an RWMutex it is a mutex, a cond and counters.
type rwMutex struct {
	mu             *mutex
	c              *cond
	readers        int
	writer         bool
	writersWaiting int
}

func newRWMutex(t *sched.Task, name string) *rwMutex {
	mu := newMutex(t, name)
	return &rwMutex{mu: mu, c: newCond(mu)}
}

func (rw *rwMutex) rlock(t *sched.Task) error {
	if err := rw.mu.lock(t); err != nil {
		return err
	}
	for rw.writer || rw.writersWaiting > 0 {
		if err := rw.c.wait(t); err != nil {
			return err
		}
	}
	rw.readers++
	return rw.mu.unlock(t)
}

func (rw *rwMutex) runlock(t *sched.Task) error {
	if err := rw.mu.lock(t); err != nil {
		return err
	}
	rw.readers--
	if rw.readers == 0 {
		if err := rw.c.broadcast(t); err != nil {
			return err
		}
	}
	return rw.mu.unlock(t)
}

func (rw *rwMutex) lock(t *sched.Task) error {
	if err := rw.mu.lock(t); err != nil {
		return err
	}
	rw.writersWaiting++
	for rw.writer || rw.readers > 0 {
		if err := rw.c.wait(t); err != nil {
			return err
		}
	}
	rw.writersWaiting--
	rw.writer = true
	return rw.mu.unlock(t)
}

func (rw *rwMutex) unlock(t *sched.Task) error {
	if err := rw.mu.lock(t); err != nil {
		return err
	}
	rw.writer = false
	if err := rw.c.broadcast(t); err != nil {
		return err
	}
	return rw.mu.unlock(t)
}
