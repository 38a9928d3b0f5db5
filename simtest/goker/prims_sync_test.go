package goker

import "github.com/cbcsim/cbcsim/sched"

// The kernels' locks, conditions and wait groups are sched's; these
// lowercase methods keep the kernels' error handling uniform (sched's
// Unlock, Signal and Done cannot fail, so theirs return nil).

// mutex is sync.Mutex as a task sees it: sched.Mutex.
type mutex struct{ m sched.Mutex }

func newMutex(*sched.Task, string) *mutex { return &mutex{} }

func (m *mutex) lock(t *sched.Task) error   { return m.m.Lock(t) }
func (m *mutex) unlock(t *sched.Task) error { m.m.Unlock(t); return nil }

// rwMutex is sync.RWMutex as a task sees it: sched.RWMutex, whose waiting
// writer keeps new readers out as sync.RWMutex's does.
type rwMutex struct{ m sched.RWMutex }

func newRWMutex(*sched.Task, string) *rwMutex { return &rwMutex{} }

func (rw *rwMutex) lock(t *sched.Task) error    { return rw.m.Lock(t) }
func (rw *rwMutex) unlock(t *sched.Task) error  { rw.m.Unlock(t); return nil }
func (rw *rwMutex) rlock(t *sched.Task) error   { return rw.m.RLock(t) }
func (rw *rwMutex) runlock(t *sched.Task) error { rw.m.RUnlock(t); return nil }

// cond is sync.Cond on a mutex: sched.Cond.
type cond struct{ c *sched.Cond }

func newCond(l *mutex) *cond { return &cond{sched.NewCond(&l.m)} }

func (c *cond) wait(t *sched.Task) error      { return c.c.Wait(t) }
func (c *cond) signal(t *sched.Task) error    { c.c.Signal(t); return nil }
func (c *cond) broadcast(t *sched.Task) error { c.c.Broadcast(t); return nil }

// waitGroup is sync.WaitGroup: sched.WaitGroup.
type waitGroup struct{ wg sched.WaitGroup }

func newWaitGroup(*sched.Task, string) *waitGroup { return &waitGroup{} }

func (wg *waitGroup) add(_ *sched.Task, delta int) error { wg.wg.Add(delta); return nil }
func (wg *waitGroup) done(t *sched.Task) error           { wg.wg.Done(t); return nil }
func (wg *waitGroup) wait(t *sched.Task) error           { return wg.wg.Wait(t) }
