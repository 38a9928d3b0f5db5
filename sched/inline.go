package sched

import (
	"fmt"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// Running a task on the worker's own stack (real mode).
//
// Most tasks never suspend: they run to their end in one go. Such a task
// has no need of a stack of its own, and giving it one costs two coroutine
// switches (into its fiber and back) and the fiber's take, rebind and
// return, about a third of an empty task's cost. So in real mode a worker
// runs a task that has no fiber yet on the fiber its own loop runs on,
// directly, and the task keeps that fiber only if it must suspend
// (Task.suspend: a yield, a block, a budget's forced yield), as the Go
// runtime hands its processor off in a system call:
//
//   - The worker's loop runs on a fiber of its own, the loop fiber, which
//     its carry goroutine resumes (carry, below). A step that takes a task
//     with no fiber gives it the loop fiber as t.fib (run) and returns it
//     up to the loop fiber's body (workerLoop.RunFiber), which calls the
//     task's function one frame above its own, with the task's deferred
//     recover in its own frame.
//   - If the body returns without suspending, the loop fiber is the
//     loop's again and the loop goes on: no switch at all.
//   - When the task suspends, it yields its fiber, the loop fiber, as any
//     task does. carry's Resume returns: carry acts on the suspension as
//     a worker does for any task (drive; the task is suspended by then),
//     takes another fiber from the worker's cache and resumes the loop on
//     it. The suspended task is from then on a task like any other with
//     a fiber: any worker resumes it, on whatever goroutine that worker's
//     loop runs.
//   - When such a task ends, its body returns into the old loop fiber's
//     body, which returns without touching the worker, which another
//     goroutine now steps: the worker that resumed the task sees its fiber
//     end (Done), as it sees any fiber end, and puts the fiber back.
//
// A task's first suspension thus costs two switches (the loop fiber's
// yield to carry, and carry's resume of the next loop fiber), as before
// (the switch into a new fiber at its first run, and the yield); every
// later suspension costs what it costs any task. A Goexit or an escaped
// panic of a task before it suspended ends the loop fiber, and carry ends
// the task and starts the loop on another (lostLoop). The scheduler's
// decisions do not depend on the goroutine a body runs on, so events and
// results are the same; a driver that steps the workers itself (the
// seeded simulator) has no loop fiber, and there every task runs on a
// fiber of its own, as before. Running a nursery owner's children inline
// in its await (help while waiting) is not done: a child's Goexit would
// unwind the owner's frames too (docs/performance.md#inline-runs).
//
// The fibers involved are the scheduler's, from the same caches and pool:
// a loop fiber that a task took is a task's fiber until it ends, and then
// idle like any other. So the fibers held at once are the suspended
// tasks' and one loop fiber a worker, as before plus the workers, and at
// most relayMax a worker waiting for a relay (below), within the pool's
// bound (fiber.Pool).
//
// Hosting. A hand-over from one task to the next through the loop fiber
// is two coroutine switches: the task yields to the loop fiber, which
// resumes the next task. But an iter.Pull coroutine may be resumed from
// any goroutine, and its yield returns to whoever resumed it. So when a
// task that the loop fiber resumed yields (Task.turn: an explicit yield
// or a budget's forced one), it runs the loop's steps itself, on its own
// stack (worker.host): it acts on its own yield as drive would (it goes
// to the back of the global queue), and resumes the task the loop takes
// next, which suspends back to it; when the loop takes the yielder again,
// its yield returns without any switch. Two tasks yielding in turn thus
// cost one switch a hand-over. A block on a channel hosts likewise
// (Task.blockTurn: the host parks itself as drive would, and the loop
// takes it again once a task it resumed has woken it). What makes it
// safe:
//
//   - Only a run's lone worker hosts (worker.solo). The yielder is in the
//     global queue while its goroutine runs the host, as a yielder is;
//     with one worker the only code that takes a task from a queue and
//     resumes it is that worker's step, which runs on one stack at a
//     time, here the host's, and which, taking the host, returns to it
//     instead of resuming it. With a second worker, that worker could
//     take the host and resume a coroutine that is running.
//   - Depth one: while a task hosts, w.loopFib is nil, so no task the
//     host resumes hosts in turn, and none is given the loop fiber (which
//     waits in drive for the host). Every task the host resumes has a
//     fiber of its own and suspends, ends, panics or Goexits back to the
//     host's stack as to any resumer (a Goexit parks its coroutine, as
//     package fiber does for every resumer).
//   - The host stops, and hands the loop back to its fiber, when the next
//     task has no fiber (the loop runs it inline, at no switch at all),
//     when there is no work (the loop parks, on its own goroutine), and
//     when the run is over: the yielder then yields with reasonHosted,
//     its suspension already acted on. A host parked on a channel may
//     be woken by anyone meanwhile (a task it resumed, a timeout on the
//     clock's goroutine): a wake only queues it, for the same lone
//     worker's step to take. Other blocks (a nursery's await, a sleep,
//     Blocking, a recharge) do not host, not tried: an awaiting owner's
//     children mostly start without a fiber, where a host stops at once.
//     A channel's waitOnChannel decides (blockTurn) and Send and Recv
//     suspend for the reason it returns, so that suspend stays inlined
//     there: a frame more under every parked task is what a million
//     parked tasks pay for at each collection. On a lone worker the
//     block parks under the lock the operation already holds
//     (reasonParked, channel.go), the host's as well as a hosted task's.
//   - The decisions are the loop's own (suspended, step, counted), in
//     the same order: the same tasks run in the same order, with the
//     same events and the same step counts; Yield's fairness (every other
//     ready task runs before the yielder again) is the global queue's.
//     One difference is where the loop's accounting of the step that
//     takes the host back happens: before the host runs on, not after,
//     so a timer check or the MaxSteps bound comes a task's run earlier.
//     Another is where a panic of the scheduler's own code (a bug) goes
//     while a task hosts: the host's body recovers it, as it recovers a
//     scheduler bug inside its fiber, where the loop fiber would crash.
//
// A lone worker also keeps the global queue's head out of the queue
// (worker.held, yieldHeld), since no other worker pops it: two tasks
// yielding in turn then swap the head and the yielder without the
// queue's lock. The seeded driver has no loop fiber and is never solo:
// nothing of this runs there.

// carrier carries a worker loop on fibers: the loop fiber it resumes
// runs the loop, a task that loop takes without a fiber runs right above
// it, and a task that suspends takes the fiber with it. In real mode every
// worker has its own, which its carry goroutine runs (Run), and the loop
// is the worker's (worker.loop). Under a driver the run has one (the
// scheduler's), which the driver runs on its own goroutine (Carry), and
// the loop is the driver's: it steps whichever worker it chooses until a
// step leaves a task to run inline (next), so that the seeded simulator
// runs, relays and ends tasks on loop fibers as real mode does. Only the
// goroutine that runs the carrier's loop touches it: the worker's (real
// mode) or the driver's, one step at a time.
type carrier struct {
	// loopFib is the fiber the loop runs on, nil while a task hosts it
	// (real mode) or when no one carries the loop (a driver that steps
	// the workers itself). Written by carry before it resumes that fiber
	// (the switch orders it), and by relay and relayBack.
	loopFib *fiber.Fiber
	// took is the task the loop fiber was given last (run): the one that
	// holds it when the fiber yields to carry or relayBack.
	took *Task
	// relays is how many loop fibers wait in drive for a fiber that took
	// the loop over from them (relay); relayLoops[i] is the loop fiber of
	// the resumer at depth i, which takes the loop back when the fiber it
	// resumed gives it back.
	relays     int
	relayLoops [relayMax]*fiber.Fiber
	fibs       *fiber.Cache // where carry takes loop fibers from
	// w is the worker whose loop this is (real mode); nil for a driver's.
	w *worker
	// next is a driver's loop (Carry): it steps workers until one step
	// leaves a task to run inline, in inline, and reports true, or the
	// run is over.
	next   func() bool
	inline *Task
	// host is a driver's loop while a task hosts it (Carry): it steps
	// workers with StepHosted until one resumes the host (true) or hands
	// the loop back (false).
	host func(t *Task) bool
	s    *Scheduler // a driver's: whose stepper panic take raises
}

// loop runs the loop until it takes a task to run inline, and returns
// it, nil once the run is over: the worker's loop (real mode) or take (a
// driver's). A call, not a func field: a method value's wrapper was ten
// instructions a spawn. Called only on a loop fiber.
func (c *carrier) loop() *Task {
	if c.w != nil {
		return c.w.loop()
	}
	return c.take()
}

// take is a driver's carrier's loop: the driver's loop (next) until it
// leaves a task to run inline, which take returns, nil once the run is
// over. Called only on the loop fiber.
func (c *carrier) take() *Task {
	if p := c.s.stepperPanic; p != nil {
		// The driver's own code panicked on the fiber of the task that
		// ran inline (Task.endStep): the driver's bug, raised on its side
		// of the step, as StepInline does.
		c.s.stepperPanic = nil
		panic(p)
	}
	if !c.next() {
		return nil
	}
	t := c.inline
	c.inline = nil
	return t
}

// RunFiber runs the carrier's loop, and on this stack, right above this
// frame, the bodies of the tasks the loop takes that have no fiber, with
// the deferred recover that taskBody.RunFiber has for a task on a fiber of
// its own: a task that suspends keeps this stack, and the shallower the
// frames below its body, the cheaper its stack is for the collector to
// walk at each cycle and the likelier it stays the runtime's smallest (a
// parked task's bytes). The deferred call is the frame's, not the loop's
// (a defer in a loop runs at the frame's end): a task that panics ends
// from it, and since the recovered panic ends this frame, the fiber runs
// the body again at once (fiber.Fiber.Again) to go on with the loop
// (docs/performance.md#parked-stacks). When a task that suspended, kept
// this fiber and was resumed on it ends, its body returns here, on the
// goroutine of the worker that resumed it, whose loop this fiber
// then takes over (relay, below) or, when it may not, this body ends and
// that worker sees the fiber end (Done) and finishes the task (run,
// ended). A task that panics on a relayed loop ends this body too after
// its end: its worker's resumer takes the loop back (relayBack). A
// runtime.Goexit of a task goes on to the fiber once the deferred call
// has ended the task, and carry or relayBack finishes it (lost).
// Called only by a loop fiber.
func (c *carrier) RunFiber(f *fiber.Fiber) {
	// The frame's state is one variable, so that the deferred call
	// captures one pointer into the frame: a variable a closure captures
	// by reference is a stack object, which the collector records, and
	// reaches through each pointer to it, at every scan of every parked
	// task's stack (docs/performance.md#parked-stacks).
	var run inlineRun
	run.c = c
	defer func() {
		if !run.inBody {
			return // a panic of end, or of the loop, goes on to the fiber
		}
		t := run.t
		if r := recover(); r != nil {
			if t.s.aborting.Load() {
				panic(r)
			}
			t.endPanicked(r)
			// The recovered panic ends this frame. On the carrier's own
			// loop fiber the body runs again (carry would take an end for
			// the run's); on a relayed one it ends, and the resumer,
			// suspended in drive, takes the loop back (relayBack,
			// fiber.Done).
			if t.w.finished(t, f) && !run.relayed {
				f.Again()
			}
		} else if !t.s.aborting.Load() {
			t.end(nil, goexitError())
		}
	}()
	for run.t = run.c.loop(); run.t != nil; run.t = run.c.loop() {
		t := run.t
		run.inBody = true
		err := t.fn(t)
		run.inBody = false
		t = run.t // not kept across the call: a pointer fewer in a parked task's frame
		t.end(err, nil)
		if !t.w.finished(t, f) {
			// t suspended, kept this fiber, and was resumed on it (each run
			// counts a step): the loop went on on another fiber. This
			// fiber takes over the loop of the worker that resumed t, if
			// it may (relay), or ends.
			if run.c = relay(t, f); run.c == nil {
				return
			}
			run.relayed = true
		}
	}
}

// inlineRun is carrier.RunFiber's state, which its deferred call reads.
type inlineRun struct {
	c       *carrier // the carrier whose loop this is (relay changes it)
	t       *Task    // the task the loop took last
	inBody  bool     // t's function is running
	relayed bool     // this body took over a resumer's loop (relay)
}

// finished follows the end of t, which carrier.RunFiber ran inline on
// f: unless t suspended on the way (the loop went on on another fiber, so
// f is not its worker's loop fiber: t kept f, see RunFiber), the fiber is
// the loop's again, w finishes t and finished reports true. (A count of
// t's runs would not tell: under a driver a task goes on from one step
// to the next without suspending, Task.endStep.)
// Called only by carrier.RunFiber, on a loop fiber.
func (w *worker) finished(t *Task, f *fiber.Fiber) bool {
	if w.c.loopFib != f {
		return false
	}
	t.fib = nil // the loop's again
	w.cur = nil
	w.finish(t)
	return true
}

// Relays. A task that suspended ends on the fiber it started on, whose
// body is the loop fiber body above, resumed by a worker's step (drive).
// Returning from that body would switch back to the resumer, which would
// put the fiber back and step on; and the next task it runs inline that
// suspends would take the resumer's fiber with it, and carry would switch
// to yet another fiber for the loop. Instead, the ending task's fiber
// finishes the task as the resumer would and takes over the resumer's
// worker's loop (relay): one switch fewer at the end. The resumer stays
// where it is, suspended in drive's Resume, until the fiber that took
// over gives the loop back, which it does the one way a loop fiber hands
// anything to its resumer: a task it runs inline suspends and takes the
// fiber with it (or the run ends, or a Goexit ends the fiber). drive,
// seeing that the fiber it resumed relayed (w.relays moved), acts on that
// suspension as carry would and goes on with the loop on its own fiber,
// without the switch carry would make to a new loop fiber. A fan-out
// tree's inner node thus costs two switches where it cost four: its
// await's suspension and its resumption (docs/performance.md#inline-runs).
//
// A worker's relays nest: the fiber that took over may resume a task
// that ends and relays in turn, and each fiber gives the loop back to
// its own resumer, so they form a stack, w.relays deep, each level a
// fiber suspended in drive. relayMax bounds it: past it a task's end
// returns as before, so a worker holds at most relayMax fibers more than
// it did (a thousand woken tasks ending in a row do not pile up a
// thousand suspended resumers). There is no relay while a task hosts the
// loop (w.loopFib is nil) nor under a driver that steps the workers
// itself (no loop fiber).

// relayMax bounds a worker's nested relays: in a fan-out tree of depth 10
// (its ends come in runs as deep as the tree) 8 keeps all but a few
// relays of a tree.
const relayMax = 8

// relay is called on f, the fiber task t started on (its loop fiber
// then), once t, which suspended and was resumed since, has ended. It
// finishes t as t's worker would have (ended) and returns the carrier of
// that worker, whose loop f now runs, or nil when f may not take the loop
// over (no loop fiber, or relayMax reached): f's body then returns as
// before.
func relay(t *Task, f *fiber.Fiber) *carrier {
	w := t.w
	c := w.c
	if c.loopFib == nil || c.relays >= relayMax {
		return nil
	}
	c.relayLoops[c.relays] = c.loopFib // the resumer's
	c.relays++
	w.relayed++
	c.loopFib = f
	t.fib = nil // f is the loop fiber now: not put back
	w.cur = nil
	if !mutant.On(mutant.RelaySkipsFinish) {
		w.finish(t)
	}
	if c.w != nil {
		w.counted() // the step that resumed t ends here, as in loop; a driver's loop ends its own
	}
	return c
}

// relayBack is drive's, once the fiber it resumed for a task took the
// loop over (relay) and has given it back with status st: it undoes the
// relay and acts as carry would. It returns the task to act on, one the
// relayed loop ran inline, suspended on that fiber, or nil when there is
// none: the fiber's loop ended (the run is over), or the fiber ended in
// a Goexit or a panic (lost).
func (w *worker) relayBack(st fiber.Status) *Task {
	c := w.c
	f := c.loopFib // the relayed loop's: a nested relay gave it back
	c.relays--
	loop := c.relayLoops[c.relays]
	c.relayLoops[c.relays] = nil
	switch st {
	case fiber.Suspended:
		t := c.took
		if t == nil || t.fib != f {
			panic(fmt.Sprintf("sched: relayBack: worker %d's relayed loop fiber yielded, and no task took it", w.id))
		}
		c.loopFib = loop
		return t
	case fiber.Done:
		w.fibs.Put(f)
	default:
		c.lost(f)
	}
	c.loopFib = loop
	return nil
}

// carry runs the carrier's loop until the run ends, on a fiber that carry
// resumes; each time a task takes that fiber with it, carry starts the
// loop on another. It runs on the goroutine Run gives the worker, which
// does nothing else, or on the driver's (Carry).
func (c *carrier) carry() {
	for {
		f := c.fibs.Get(c)
		c.loopFib = f
		why, st := f.Resume()
		if st == fiber.Done {
			c.loopFib = nil
			c.fibs.Put(f)
			return
		}
		if st == fiber.Suspended {
			// The task the loop ran inline took the loop fiber: it is
			// that task's fiber now, and the task is suspended on it. The
			// loop goes on on another fiber.
			t := c.took
			if t == nil || t.fib != f {
				panic("sched: carry: the loop fiber yielded, and no task took it")
			}
			c.loopFib = nil // t's now: should t go on at once and end, it ends as any task that took it
			t.w.drive(t, why)
			continue
		}
		c.lost(f)
	}
}

// lost ends the task that was running inline on loop fiber f, whose body
// ended abnormally: a runtime.Goexit in the task (taskBody.RunFiber has
// ended it already, as ErrGoexit), or a panic that escaped the task's
// body, which is a scheduler bug reported as the task's panic, as run does
// for a task on a fiber of its own. A panic of the loop itself, outside
// any task, is one as well, and goes on: in real mode with the worker's
// id and the stack, under a driver as it was raised, so that the driver
// reports it as the run's crash.
func (c *carrier) lost(f *fiber.Fiber) {
	pe := f.Panic()
	t := c.took
	if t == nil || t.fib != f {
		if c.w == nil {
			panic(pe.Value)
		}
		panic(fmt.Sprintf("sched: worker %d: %v\n%s", c.w.id, pe, pe.Stack))
	}
	if !pe.Goexited() {
		t.result = nursery.Panic("sched: " + pe.Error())
		t.ext().panicStack = pe.Stack
	}
	w := t.w
	c.loopFib, c.took, t.fib = nil, nil, nil
	w.fibs.Put(f) // a Goexited fiber is dropped, its goroutine let go
	w.cur = nil
	w.finish(t)
}

// Carry runs the driver's loop, next, on the fibers of the run's carrier
// until it reports the run over: next steps the workers it chooses
// (Worker.StepInline) and reports true when a step leaves a task to run
// inline, which the carrier then runs on next's own stack. It runs on the
// calling goroutine (the driver's), and may be called once, after Start.
func (view *driverView) Carry(next func() bool, host func(t *Task) bool) {
	s := (*Scheduler)(view)
	if !s.cfg.Mode.Stepped() || s.carrier.next != nil {
		panic("sched: Carry: not a stepped run, or called twice")
	}
	s.carrier.next, s.carrier.host = next, host
	s.carrier.carry()
}

// StepInline is Step under Carry: it reports too whether the step left a
// task to run inline on the loop's fiber, which the driver's loop must
// then report to the carrier (Carry) before it takes another step.
func (w *worker) StepInline() (did, inline bool) {
	did, t := w.step()
	if p := w.s.stepperPanic; p != nil {
		w.s.stepperPanic = nil
		panic(p) // the driver's own code panicked on a task's fiber
	}
	if t != nil {
		w.c.inline = t
		return did, true
	}
	return did, false
}

// hostStep is what a step taken while a task hosts came to (stepHosted).
type hostStep uint8

const (
	hostStepped  hostStep = iota // a step like any other
	hostResumes                  // it resumed the host, which goes on
	hostHandBack                 // none taken: the loop fiber must take it
)

// stepHosted takes w's next step while t hosts a driver's loop (host),
// on t's stack (real mode's host loop, in worker.host, writes the same steps out
// in one loop): the step that resumes t is counted here and reported
// (hostResumes), t running already; a step that would start a task
// without a fiber (which the loop fiber runs inline) or find no work at
// all (the loop parks on its own) is not taken (hostHandBack); any other
// is w's step as ever, a task with a fiber resumed from here.
func (w *worker) stepHosted(t *Task) (did bool, r hostStep) {
	c := w.cur
	switch {
	case c == t:
		// The step that resumes t, written out: t is running already.
		w.stats.Steps++
		t.storeStepped(stateRunning)
		t.steps++
		w.stats.Runs++
		if w.em.on() {
			w.em.emitRun(t.id)
		}
		return true, hostResumes
	case c != nil && c.fib == nil:
		return false, hostHandBack // the loop runs c on its own fiber, inline
	case c != nil:
		// step's resumption of c, written out.
		w.stats.Steps++
		c.w = w
		w.drive(c, 0)
		return true, hostStepped
	case c == nil && len(w.stack) > 0 && w.stack[len(w.stack)-1].fib != nil:
		// step's take of a started task off the stack (find), written
		// out: a woken task, which was blocked.
		w.stats.Steps++
		w.cur = w.popStack()
		w.stats.Pops++
		if w.em.on() {
			w.em.emit(trace.KindPop, trace.I(trace.KeyTask, int64(w.cur.id)))
		}
		return true, hostStepped
	case c == nil && w.queued() == 0 && w.held == nil && w.s.global.len() == 0:
		return false, hostHandBack // the loop parks (a lone worker has no one to steal from)
	}
	did, _ = w.step()
	return did, hostStepped
}

// StepHosted is stepHosted for a driver (Carry's host): resumes and
// handBack report hostResumes and hostHandBack.
func (w *worker) StepHosted(host *Task) (did, resumes, handBack bool) {
	did, r := w.stepHosted(host)
	if p := w.s.stepperPanic; p != nil {
		w.s.stepperPanic = nil
		panic(p) // the driver's own code panicked on a task's fiber
	}
	return did, r == hostResumes, r == hostHandBack
}
