package sched

import (
	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/trace"
)

// Now is the scheduler's current time in ticks.
func (view *driverView) Now() uint64 {
	s := (*Scheduler)(view)
	if s.clock == nil {
		return 0
	}
	return s.clock.Now()
}

// Sleep blocks t until the clock has advanced ticks. It is a checkpoint
// and costs no budget; cancellation interrupts it.
func (t *Task) Sleep(ticks int64) error {
	if err := t.point(Cost{}); err != nil {
		return err
	}
	if ticks <= 0 {
		return nil
	}
	t.enlist() // a cancellation must be able to interrupt this sleep (lean.go)
	s := t.s
	tm := s.timers.add(s.drv().Now()+uint64(ticks), timerSleep, t, nil)
	t.setWait(t.cleanupDepth == 0, 0)
	sw := &sleepWait{t: t, tm: tm, interruptible: t.wait.interruptible}
	sw.ref.b = sw
	for {
		t.w.blockOn = sw
		t.siteHere()
		t.suspend(reasonBlock)
		switch {
		case t.wait.state == waitDone:
			return nil
		case t.wait.state == waitCancelled || (t.wait.interruptible && t.cancelled() != 0):
			s.timers.kill(tm)
			return t.observe()
		}
	}
}

// sleepWait is the blocker of a sleeping task (see chanWait for why it
// carries its timer).
type sleepWait struct {
	ref           waitRef // points back here: one allocation per sleep
	t             *Task
	tm            *timer
	interruptible bool
}

func (b *sleepWait) describe() string { return "sleep" }

func (b *sleepWait) park(t *Task, w *worker) bool {
	ts := &t.s.timers
	ts.mu.Lock()
	defer ts.mu.Unlock()
	tm := b.tm
	if tm.fired {
		t.wait.state = waitDone
		return false
	}
	if t.wait.interruptible && t.cancelled() != 0 {
		return false
	}
	tm.waiting = true
	if !t.publishWait(stateBlocked, &b.ref) {
		tm.waiting = false
		return false
	}
	return true
}

func (b *sleepWait) cancelWait(t *Task) bool {
	ts := &t.s.timers
	ts.mu.Lock()
	defer ts.mu.Unlock()
	tm := b.tm
	if !tm.waiting || tm.fired || !b.interruptible {
		return false
	}
	if mutant.On(mutant.SleepTimerSurvivesCancel) {
		tm = &timer{} // the sleeper's own timer stays armed and waiting
	}
	tm.waiting, tm.dead = false, true
	t.wait.state = waitCancelled
	t.waitingOn.Store(nil)
	return true
}

// NextTimer reports when the earliest pending timer that can wake a task
// fires (timers.nextWaking): the driver's clock jumps there when no
// worker can act, and a run with none is deadlocked.
func (view *driverView) NextTimer() (uint64, bool) {
	s := (*Scheduler)(view)
	return s.timers.nextWaking()
}

// FireTimers fires every timer due at now, in (time, creation) order:
// sleepers wake, nursery timeouts cancel. The seeded driver calls it before
// each step; in real mode the clock goroutine does.
func (view *driverView) FireTimers(now uint64) {
	s := (*Scheduler)(view)
	if s.timers.nextAt.Load() > now {
		// Nothing due, not even a dead timer to drop: the common case,
		// without the lock (the seeded driver asks before every step).
		return
	}
	for {
		ts := &s.timers
		ts.mu.Lock()
		tm := ts.popDue(now)
		if tm == nil {
			ts.mu.Unlock()
			return
		}
		tm.fired = true
		wake := tm.kind == timerSleep && tm.waiting
		tm.waiting = false
		if wake {
			tm.task.wait.state = waitDone
			tm.task.waitingOn.Store(nil)
		}
		ts.mu.Unlock()
		switch tm.kind {
		case timerSleep:
			if wake {
				s.wakeFrom(nil, tm.task)
			}
		case timerFunc:
			tm.fn(now)
		case timerTimeout:
			if em := s.emitter(nil); em.on() {
				em.emit(trace.KindNote, trace.I(trace.KeyNursery, int64(tm.n.id)), trace.S(trace.KeyTimeout, tm.n.label))
			}
			tm.n.timeout(nil)
		}
	}
}

// startTimeout arms n's timeout.
func (n *Nursery) startTimeout(ticks int64) {
	n.timer = n.owner.s.timers.add(n.owner.s.drv().Now()+uint64(ticks), timerTimeout, nil, n)
}
