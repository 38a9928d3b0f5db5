package sched

import (
	"sync"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/nursery"
)

// LimitHit reports whether a real-mode run passed Config.MaxSteps.
func (s *Scheduler) LimitHit() bool { return s.limitHit.Load() }

// Run runs fn as the root task on the scheduler's workers, one goroutine
// each (real mode), and returns the root's result when it and therefore
// every task has finished. The scheduler is spent afterwards.
func (s *Scheduler) Run(name string, fn Func) Result {
	return s.RunWith(name, fn, nil)
}

// RunWith is Run with a hook that sees the root task before any worker
// starts (to set its capabilities, say).
func (s *Scheduler) RunWith(name string, fn Func, before func(root *Task)) Result {
	root := s.Start(name, fn)
	if before != nil {
		before(root)
	}
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop()
		}()
	}
	wg.Wait()
	s.fibers.Close()
	return root.result
}

// loop is a real-mode worker: step until the root has finished, parking
// when there is nothing to do.
func (w *Worker) loop() {
	s := w.s
	for !s.rootDone.Load() {
		if s.cfg.MaxSteps > 0 && s.steps.Add(1) > s.cfg.MaxSteps && s.limitHit.CompareAndSwap(false, true) {
			s.root.markCancel(nursery.ResourceExhausted, w)
		}
		if w.Step() {
			continue
		}
		w.s.park.wait(w)
	}
}

// parking puts idle real-mode workers to sleep without losing wake-ups.
//
// A worker that found nothing reads epoch, registers itself as idle under
// mu, and sleeps only if epoch has not moved. A producer bumps epoch after
// making work visible and then, if anyone is idle, broadcasts under mu.
// Both sides use sequentially consistent atomics: either the producer sees
// idle > 0 and its broadcast (taken under mu) reaches the sleeper, or the
// sleeper's epoch check, made after its idle increment, sees the bump.
type parking struct {
	epoch atomic.Uint64 // bumped by every producer
	idle  atomic.Int32  // workers inside wait
	mu    sync.Mutex
	cond  *sync.Cond
	done  atomic.Bool
}

func (p *parking) init() { p.cond = sync.NewCond(&p.mu) }

func (p *parking) notify() {
	p.epoch.Add(1) // seq-cst: ordered before the idle load below
	if p.idle.Load() > 0 {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

// wait sleeps until work may be available. The worker's failed Step read
// the queues after seen was loaded, so a push since then moved epoch.
func (p *parking) wait(w *Worker) {
	seen := p.epoch.Load()
	// Look once more with seen already taken: a push that raced with the
	// failed step either moved epoch or is visible now.
	if w.hasWork() {
		return
	}
	p.mu.Lock()
	p.idle.Add(1) // seq-cst: ordered before the epoch load below
	for p.epoch.Load() == seen && !p.done.Load() {
		p.cond.Wait()
	}
	p.idle.Add(-1)
	p.mu.Unlock()
}

func (p *parking) shutdown() {
	p.done.Store(true)
	p.epoch.Add(1)
	p.mu.Lock()
	p.cond.Broadcast()
	p.mu.Unlock()
}

// hasWork reports whether any queue w could take from is non-empty.
func (w *Worker) hasWork() bool {
	if w.dq.Len() > 0 || w.s.global.len() > 0 {
		return true
	}
	for _, v := range w.s.workers {
		if v.dq.Len() > 0 {
			return true
		}
	}
	return false
}
