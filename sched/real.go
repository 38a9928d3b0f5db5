package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// LimitHit reports whether a real-mode run passed Config.MaxSteps.
func (view *driverView) LimitHit() bool {
	s := (*Scheduler)(view)
	return s.limitHit.Load()
}

// Run runs fn as the root task on the scheduler's workers, one goroutine
// each (real mode), and returns the root's result when it and therefore
// every task has finished. The scheduler is spent afterwards: a second
// Run returns the result err:SchedulerUsed. RunContext is Run with a
// context and an error value.
func (s *Scheduler) Run(name string, fn Func) Result {
	return s.drv().RunWith(name, fn, nil)
}

// RunWith is Run with a hook that sees the root task before any worker
// starts (to set its capabilities, say).
func (view *driverView) RunWith(name string, fn Func, before func(root *Task)) Result {
	s := (*Scheduler)(view)
	if !s.used.CompareAndSwap(false, true) {
		return nursery.Err(CodeSchedulerUsed)
	}
	return view.runWith(name, fn, before)
}

// runWith is RunWith once the scheduler is known to be unused.
func (view *driverView) runWith(name string, fn Func, before func(root *Task)) Result {
	s := (*Scheduler)(view)
	if s.clock == nil {
		s.clock = &wallClock{start: time.Now()}
	}
	s.timers.wake = make(chan struct{}, 1)
	s.real.Store(true)
	stop := make(chan struct{})
	clockDone := make(chan struct{})
	go func() {
		defer close(clockDone)
		s.runClock(stop)
	}()
	root := s.drv().Start(name, fn)
	if before != nil {
		before(root)
	}
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.c.carry() // the loop, on a fiber of its own (inline.go)
		}()
	}
	wg.Wait()
	close(stop)
	<-clockDone
	if !s.rootDone.Load() {
		// Stuck even after cancelling everything: the fibers still
		// suspended are abandoned (see Deadlocked).
		return nursery.Err("deadlock")
	}
	// Closing a fiber switches to it, which the runtime forbids (a fatal
	// error) from a goroutine locked to its OS thread when the fiber was
	// made on an unlocked one: a caller under runtime.LockOSThread (a GUI
	// or cgo main thread) closes them from a goroutine of its own.
	closed := make(chan struct{})
	go func() { s.closeFibers(); close(closed) }()
	<-closed
	return root.result
}

// RealTickNanos is the length of one virtual tick in real mode: sleeps and
// timeouts written in ticks take this many nanoseconds each.
const RealTickNanos = 1000

// wallClock is real mode's Clock: ticks of RealTickNanos since Run began.
type wallClock struct{ start time.Time }

func (c *wallClock) Now() uint64 { return uint64(time.Since(c.start) / RealTickNanos) }

// runClock fires timers on time in real mode. It is the only goroutine of
// real mode besides the workers, and it belongs to the driver (Run), not to
// the core.
func (s *Scheduler) runClock(stop <-chan struct{}) {
	for {
		next, ok := s.timers.next()
		if !ok {
			select {
			case <-s.timers.wake:
				continue
			case <-stop:
				return
			}
		}
		now := s.clock.Now()
		if next <= now {
			s.fireAndRecheck(now)
			continue
		}
		tm := time.NewTimer(time.Duration(next-now) * RealTickNanos)
		select {
		case <-tm.C:
		case <-s.timers.wake:
			tm.Stop()
		case <-stop:
			tm.Stop()
			return
		}
	}
}

// Deadlocked reports whether a real-mode run found every worker idle with
// no timer pending while tasks remained; the run was then cancelled
// (Deadlock) so that it could end.
func (view *driverView) Deadlocked() bool {
	s := (*Scheduler)(view)
	return s.deadlocked.Load()
}

// deadlock handles a real-mode deadlock: the first time, cancel the root so
// that every interruptible wait unwinds; if the run is stuck again, give up.
func (s *Scheduler) deadlock(w *worker) {
	if s.deadlocked.CompareAndSwap(false, true) {
		s.root.markCancel(nursery.Deadlock, w)
		s.park.notify()
		return
	}
	s.park.shutdown()
}

// loop is a real-mode worker: step until the root has finished, parking
// when there is nothing to do. It returns a task to run on the calling
// stack when a step takes one that has no fiber (inline.go), and nil once
// the run is over.
func (w *worker) loop() *Task {
	s := w.s
	for !s.rootDone.Load() && !s.park.done.Load() {
		did, inline := w.step()
		if !did {
			w.foldLive()
			w.idle()
			continue
		}
		w.counted()
		if inline != nil {
			return inline
		}
	}
	w.foldLive() // Live is exact once the run is over
	return nil
}

// counted follows a step that did something: the run's step count and,
// now and then, the timers. The test is inlined; the rest is countedRare.
func (w *worker) counted() {
	if w.s.cfg.MaxSteps > 0 || uint64(w.stats.Steps)%timerCheck == 0 {
		w.countedRare()
	}
}

// countedRare is counted's work, when there is some.
func (w *worker) countedRare() {
	s := w.s
	// Only steps that did something count against MaxSteps: an idle
	// worker looking for work is not a livelock.
	if s.cfg.MaxSteps > 0 && s.steps.Add(1) > s.cfg.MaxSteps && s.limitHit.CompareAndSwap(false, true) {
		s.root.markCancel(nursery.ResourceExhausted, w)
	}
	// When every processor runs a worker, the clock goroutine waits for
	// Go's 10 ms preemption to fire a timer. So a busy worker looks at
	// the earliest deadline now and then and fires due timers itself
	// (yielding the processor instead measured 50 ns a step).
	if uint64(w.stats.Steps)%timerCheck == 0 {
		s.fireDue()
	}
}

// timerCheck is how many steps a busy worker takes between looks at the
// earliest timer deadline.
const timerCheck = 256

// fireDue fires the timers that are due, if any, from a worker.
func (s *Scheduler) fireDue() {
	due := s.timers.nextAt.Load()
	if due == noTimer {
		return
	}
	if now := s.clock.Now(); now >= due {
		s.fireAndRecheck(now)
	}
}

// fireAndRecheck fires the timers due at now. If that left no timer
// pending, it wakes a sleeping worker: a worker decides that the run is
// deadlocked only as it goes to sleep, and while a timer was pending every
// worker may have gone to sleep without deciding it; a timer that fires
// and makes no task runnable (a nursery timeout whose owner's body waits
// on a channel, say) would otherwise leave them asleep for ever.
func (s *Scheduler) fireAndRecheck(now uint64) {
	s.firing.Add(1)
	s.drv().FireTimers(now)
	s.firing.Add(-1)
	if !s.timersPending() {
		s.park.notify()
	}
}

// spinMax is where backoff stops yielding the processor and starts parking
// with a timeout: below it a timed sleep costs more than it saves.
const spinMax = 64 * time.Microsecond

// idle waits for work after a failed step: exponential backoff from 1 us to
// 1 ms (docs/spec.md#idle-workers), then an indefinite park. The short rounds
// spin: they yield the processor (and the core) and look for work; the
// long ones are timed parks that a push cuts short, so backing off never
// delays a wake-up.
func (w *worker) idle() {
	s := w.s
	if w.spin() {
		return
	}
	for d := spinMax; d <= time.Millisecond; d *= 2 {
		w.stats.Backoffs++
		if s.park.wait(w, d) {
			return
		}
	}
	s.park.wait(w, 0)
}

// spin is idle's short rounds, 1 us doubling up to spinMax: it reports
// whether work appeared (or the run ended) meanwhile.
func (w *worker) spin() bool {
	s := w.s
	start := time.Now()
	seen := w.othersProgress()
	for d := time.Microsecond; d < spinMax; d *= 2 {
		w.stats.Backoffs++
		for time.Since(start) < d {
			// Gosched lets the process's other goroutines (the clock,
			// Blocking's) have the processor, and what they queued is
			// looked at at once.
			runtime.Gosched()
			w.stats.Spins++
			if w.hasWork() || s.rootDone.Load() || w.nextDue() {
				return true
			}
			// When no other worker moved since the last look, they
			// are idle too or their threads are not running, perhaps
			// waiting for this very core: osYield lets the machine's
			// other threads have it. A worker that moves keeps this
			// one spinning on its core, which another process's
			// thread would otherwise take (docs/performance.md#idle-workers).
			if p := w.othersProgress(); p != seen {
				seen = p
				continue
			}
			if int(s.park.idle.Load()) == len(s.workers)-1 {
				continue // every other worker sleeps: none waits for a core
			}
			osYield()
			if w.hasWork() {
				return true
			}
		}
	}
	return false
}

// othersProgress is a sum that changes whenever another worker ends a task
// or moves its deque: what spin compares from one look to the next.
func (w *worker) othersProgress() int64 {
	var sum int64
	for _, v := range w.s.workers {
		if v != w {
			sum += v.live.Load()<<20 + int64(v.dq.Len())
		}
	}
	return sum
}

// parking puts idle real-mode workers to sleep without losing wake-ups.
//
// A worker that found nothing registers itself as a sleeper under mu (idle
// first), then looks at every queue once more, and only if all are empty
// does it block on its own wake channel. A producer makes its work visible
// first and then loads idle; if anyone is idle, it signals one sleeper
// under mu. Both sides use sequentially consistent atomics (the queues'
// lengths are atomics too), so either the producer sees idle > 0 and,
// taking mu after the sleeper registered, signals it (the channel keeps the
// signal until it is received), or the sleeper's look at the queues, made
// after its idle increment, sees the work. A producer whose workers are all
// busy thus pays one load of a line nobody writes, not a shared atomic add:
// a counter bumped on every push was a third of the fan-out tree's time on
// two workers, its cache line bouncing between them.
type parking struct {
	idle     atomic.Int32 // workers registered as sleepers
	mu       sync.Mutex   // guards sleepers
	sleepers []*worker
	done     atomic.Bool
}

func (p *parking) notify() {
	if p.idle.Load() > 0 { // seq-cst: ordered after the push that called notify
		// One pushed task needs one worker: wake one sleeper, not all.
		p.mu.Lock()
		if n := len(p.sleepers); n > 0 {
			w := p.sleepers[n-1]
			p.sleepers = p.sleepers[:n-1]
			w.signal()
		}
		p.mu.Unlock()
	}
}

// signal wakes w if it sleeps; a signal sent before it blocks is kept.
func (w *worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// wait sleeps until work may be available, or for at most timeout when it
// is positive. It reports whether it was woken or found work (false: the
// timeout passed).
func (p *parking) wait(w *worker, timeout time.Duration) bool {
	s := w.s
	p.mu.Lock()
	idle := p.idle.Add(1) // seq-cst: ordered before the looks at the queues below
	// A task in another worker's next slot counts here (not in hasWork,
	// which the spin looks at: that one waits for its grace, stealNext):
	// its waker's notify may have come before the idle count went up, and
	// no other look would find it if its waker runs on.
	if w.hasWork() || w.othersNext() || p.done.Load() {
		p.idle.Add(-1)
		p.mu.Unlock()
		return true
	}
	// Every worker idle, no timer pending or firing, no Blocking call in
	// flight, and no work: no task can ever run again. The order of the
	// looks matters: a timer leaves the heap only after firing went up,
	// and firing goes down only after the tasks it woke were queued, so
	// one of the three sees it; a Blocking call likewise queues its task
	// before it leaves blockingN.
	if int(idle) == len(s.workers) && !s.timersPending() && s.firing.Load() == 0 && s.blockingN.Load() == 0 && !w.hasWork() {
		p.idle.Add(-1)
		p.mu.Unlock()
		s.deadlock(w)
		return true
	}
	p.sleepers = append(p.sleepers, w)
	p.mu.Unlock()

	w.stats.Sleeps++
	woken := true
	if timeout > 0 {
		if w.timer == nil {
			w.timer = time.NewTimer(timeout)
		} else {
			w.timer.Reset(timeout)
		}
		select {
		case <-w.wake:
		case <-w.timer.C:
			woken = false
		}
		w.timer.Stop()
	} else {
		<-w.wake
	}
	if woken {
		w.stats.Woken++
	}

	p.mu.Lock()
	for i, x := range p.sleepers {
		if x == w {
			p.sleepers = append(p.sleepers[:i], p.sleepers[i+1:]...)
			break
		}
	}
	p.idle.Add(-1)
	p.mu.Unlock()
	// A signal that raced with the timeout stays in the channel; drop it
	// (this worker is awake and looks for work anyway).
	select {
	case <-w.wake:
	default:
	}
	return woken
}

func (p *parking) shutdown() {
	p.done.Store(true)
	p.mu.Lock()
	for _, w := range p.sleepers {
		w.signal()
	}
	p.sleepers = p.sleepers[:0]
	p.mu.Unlock()
}

// othersNext reports whether another worker's next slot holds a task.
func (w *worker) othersNext() bool {
	for _, v := range w.s.workers {
		if v != w && v.next.Load() != nil {
			return true
		}
	}
	return false
}

// hasWork reports whether any queue w could take from is non-empty.
func (w *worker) hasWork() bool {
	if w.queued() > 0 || w.s.global.len() > 0 || w.held != nil {
		return true
	}
	for _, v := range w.s.workers {
		if v.dq.Len() > 0 {
			return true
		}
	}
	return false
}

func (s *Scheduler) timersPending() bool {
	_, ok := s.timers.nextWaking()
	return ok
}

// host runs w's loop on t's stack: t, resumed by the loop fiber, is
// about to suspend for why, a yield or a channel block, and w is its
// run's only worker (see "Hosting" above). host acts on t's suspension as
// drive would once t's fiber had yielded, and then steps w as the loop
// would, resuming the tasks it takes from here, until the loop takes t
// again (or at once, a block whose wait was over): host then reports
// true, and t goes on without a switch. It reports false when the loop
// must go on on its own fiber (it takes a task without a fiber, which the
// loop runs inline, or finds no work, or the run is over): t then yields
// with reasonHosted, on which drive acts no further. In real mode the
// steps are w's loop's, written out below (a call a step, to a loop of
// its own, was a tenth of a YieldPingPong hand-over); under a driver they
// are the driver's (Carry's host), each taken by stepHosted, so that the
// driver chooses and records them as every other step.
// TestHostedSameUnderBothDrivers checks that the two stay in step. It is
// here, with real mode's loop, rather than in inline.go.
//
// While t hosts, the loop fiber is nil: no task the host resumes hosts
// in turn (each returns to this stack when it suspends), and none is
// given the loop fiber, which waits in drive for t.
func (w *worker) host(t *Task, why fiber.Reason) bool {
	c := w.c
	loop := c.loopFib
	c.loopFib = nil
	w.hosted++
	goesOn := true
	switch {
	case w.suspended(t, why):
		w.running(t) // a block whose wait was already over: t runs on, within the same step, as in drive
	case c.w == nil:
		goesOn = c.host(t) // a driver's loop
	default:
		// Real mode's loop, on t's stack, until a step resumes t or the
		// loop must go on on its own fiber: stepHosted's steps, written
		// out.
		goesOn = false
		s := w.s
	steps:
		for !s.rootDone.Load() && !s.park.done.Load() {
			cur := w.cur
			if cur == t {
				// The step that resumes t, written out: t is running already.
				w.stats.Steps++
				t.state.Store(uint32(stateRunning))
				t.steps++
				w.stats.Runs++
				if w.em.on() {
					w.em.emitRun(t.id)
				}
				w.counted()
				goesOn = true
				break
			}
			switch {
			case cur != nil && cur.fib == nil:
				break steps // the loop runs cur on its own fiber, inline
			case cur != nil:
				// step's resumption of cur, written out.
				w.stats.Steps++
				cur.w = w
				w.drive(cur, 0)
			case len(w.stack) > 0 && w.stack[len(w.stack)-1].fib != nil:
				// step's take of a started task off the stack (find),
				// written out: a woken task, which was blocked.
				w.stats.Steps++
				w.cur = w.popStack()
				w.stats.Pops++
				if w.em.on() {
					w.em.emit(trace.KindPop, trace.I(trace.KeyTask, int64(w.cur.id)))
				}
			case w.queued() == 0 && w.held == nil && s.global.len() == 0:
				break steps // the loop parks (a lone worker has no one to steal from)
			default:
				if did, _ := w.step(); !did {
					w.foldLive()
					w.idle()
					continue
				}
			}
			w.counted()
		}
	}
	c.loopFib = loop
	return goesOn
}

// realGrace is graceOver in real mode, by the clock: t has sat in worker
// i's next slot nextGrace since w first saw it there; a task w has not
// seen there before starts its grace now.
func (w *worker) realGrace(i int, t *Task) bool {
	if w.seen == nil {
		w.seen = make([]seenNext, len(w.s.workers))
	}
	seen := &w.seen[i]
	if t != seen.t {
		seen.t, seen.at = t, time.Now()
		return false
	}
	return time.Since(seen.at) >= nextGrace
}

// wakeClock tells real mode's clock goroutine (runClock) that a timer
// was added, which may be due before the one it sleeps for.
func (ts *timers) wakeClock() {
	select {
	case ts.wake <- struct{}{}:
	default:
	}
}

// unsee forgets what w saw in worker i's next slot (realGrace); a no-op
// in a stepped run, which sees nothing.
func (w *worker) unsee(i int) {
	if w.seen != nil {
		w.seen[i].t = nil
	}
}

// nextDue reports whether another worker's next slot holds a task whose
// grace is over (realGrace): what the idle loop's spin looks for, without
// taking it (stealNext takes).
func (w *worker) nextDue() bool {
	for i, v := range w.s.workers {
		t := v.next.Load()
		if v == w || t == nil {
			w.unsee(i)
		} else if w.realGrace(i, t) {
			return true
		}
	}
	return false
}

// The parking protocol's producer side and the channel lock's contended
// case are here, with the rest of the machinery of concurrent workers:
// under a driver a step never finds a lock taken (nothing runs beside it)
// and no worker sleeps on a channel.

// notify tells idle workers that work may be available.
func (s *Scheduler) notify() {
	if s.cfg.Mode.Stepped() {
		// Seeded mode: every parked worker may act again.
		for _, w := range s.workers {
			if w.parked {
				w.parked = false
				s.parkEpoch++
			}
		}
		return
	}
	s.park.notify()
}

// lockContended takes c.mu, which another holds. Under a stepped mode one
// goroutine runs every worker, so a lock already held when a step takes
// it is never released: an earlier panic left it held inside a critical
// section (a scheduler bug). lockContended panics then, which the seeded
// driver reports as a crash, rather than wait for ever. The mode is the
// channel's stepped, kept at its making.
func (c *channel) lockContended() {
	if c.stepped {
		panic("sched: " + c.String() + ": its lock is still held at a step (an earlier panic left it held)")
	}
	c.mu.Lock()
}

// ownEmitter is an emitter of actor "sim" with a scratch space of its
// own. Real mode with a sink uses one per event caused outside a worker:
// the clock goroutine, any worker's fireDue and a Blocking call's
// goroutine emit those at once, and a shared scratch space (s.em) would
// be written by all of them. It allocates; only real mode with a sink
// (tests: the simulator's real mode has none) comes here, never a run without one.
func (s *Scheduler) ownEmitter() *emitter {
	e := newEmitter(s.cfg.Sink, -1)
	return &e
}
