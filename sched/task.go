package sched

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// Func is a task body. It returns nil to complete (ok), an error to fail, or
// the *CancelError a checkpoint gave it to end as cancelled. A panic is
// captured as the task's result.
type Func func(t *Task) error

// Why a task's fiber gave control back to its worker.
const (
	reasonCheckpoint fiber.Reason = iota + 1 // a step boundary; the task stays current
	reasonYield                              // explicit yield: requeue
	reasonInterval                           // forced yield every YieldInterval ops: requeue
	reasonBlock                              // blocked on the worker's blockOn
	reasonHosted                             // hosted the worker's loop, which acted on the suspension (inline.go)
	reasonParked                             // a lone worker's channel block, already parked (waitOnChannel)
)

// blocker is something a task can block on. park is called by the worker
// after the task's fiber has yielded, so the task is not running: it either
// registers the task as waiting (true) or reports that the wait is already
// over (false), all under the blocker's own lock. Registering only after the
// fiber is suspended is what makes a concurrent wake-up safe: nobody can
// resume a fiber that is still running.
type blocker interface {
	park(t *Task, w *worker) bool
	describe() string
}

// Task is a unit of execution with its own stack (a fiber), budget and
// capabilities, owned by exactly one nursery (the root task by none).
// Methods on Task are called only by the task's own body, while it runs.
type Task struct {
	// Ownership. A task runs on one worker at a time; "the task's own"
	// below means written by the task's code on its fiber or by the steps
	// of the worker running it (t.w), which are one goroutine while it
	// runs there. The task passes to the next worker through a queue (a
	// deque, the global queue, a next slot, a waker's push), whose
	// operations order everything written before. Fields others touch say
	// under which lock, or are atomic.

	// s, id, name, fn and parent are set by the spawner (or Start, for
	// the root) before the task is queued, and read-only until it ends; a
	// reused Task (free.go) gets new ones at its next spawn.
	s    *Scheduler
	id   uint64
	name string
	fn   Func
	// fib is the fiber the task runs on, nil before it starts and after
	// it ends: the task's own (its worker gives it and takes it back);
	// Abort closes it in the stepped modes.
	fib *fiber.Fiber
	// w is the worker running the task now: written by the worker that
	// takes it, before it resumes it.
	w      *worker
	parent *Nursery

	// state is a taskState: written by the owner of the task at the time
	// (or by the worker that retires it). Accessed atomically.
	state atomic.Uint32
	// mark is the cancellation reason, 0 while not marked: set once, by
	// compare-and-swap, by any worker (markCancel), or by the spawner of a
	// child created cancelled. Accessed atomically.
	mark atomic.Uint32

	// mu guards owned, credit, rechargeWaiting, the taskExt pointer and
	// ctxCancel against other workers.
	mu sync.Mutex
	// owned is the innermost nursery this task has open; each links to
	// the next outer one. Only the task changes it, under mu (no lock on
	// an unshared worker: worker.unshared); others read it under mu
	// (markCancel).
	owned *Nursery

	// taskExt holds what most tasks never need (nurseries, cleanups,
	// blocking, panics). It is allocated on first use by the task itself
	// (or its spawner, before the task is queued), under mu, so that a
	// plain spawn allocates one small Task.
	*taskExt

	// budget is the task's own: its checkpoints charge it, its exhaustion
	// refills it (the credit and the pool taken under their locks). The
	// spawner sets it.
	budget  Budget
	initial *Budget // the budget it started with (shared, never written)
	credit  *Budget // granted by a supervisor, not yet absorbed; guarded by mu
	// caps is set by the spawner (Start, for the root) before the task
	// is queued, and read-only afterwards.
	caps Caps
	// started is the task's own: set by the worker that starts it (begin),
	// read by the worker that takes it from a queue.
	started         bool
	ending          bool // in end: its cleanups are the task's last (see protect); the task's own
	rechargeWaiting bool // parked waiting for a supervisor; guarded by mu
	recycle         bool // spawned by Nursery.Go without a Sink: reused once done (see free.go); set by the spawner
	// wait is the record of the task's current or last blocking operation
	// (channel, sleep, recharge), with waitQpos and waitVal. Its three
	// bytes sit beside the flags above, in what was padding, and the two
	// other fields where the pointer to a record of their own was, so that
	// a task that blocks makes no allocation for it and Task stays in the
	// 240-byte size class (docs/performance.md#parked-task-memory).
	// Written by the task before it publishes the wait (setWait), then by
	// wakers and cancellers under the lock of what it waits on (the
	// channel's mu, the timers' mu, the task's own mu for a recharge).
	wait          waitSlot
	cleanupDepth  int32 // >0 while running a cleanup: not a cancellation checkpoint; the task's own
	opsSinceYield int32 // the task's own
	// child is the task's nursery.Child, or -1 for a child of a lean
	// nursery that has not enlisted; an int32 as the lean nursery's free
	// slots are, so that it pairs with waitQpos (see addSlot's bound).
	// Set by the spawner, or by the task as it enlists, under the parent
	// nursery's mu (no lock on an unshared worker: worker.unshared).
	child    int32
	waitQpos int32 // wait's slot in a channel's waitq (see waitqMax); as wait
	waitVal  int64 // wait's value: a sender's, or the one a receiver was given; as wait
	// result is the task's result once it has finished; before that, its
	// Value and HasValue hold what SetValue set (a field fewer keeps
	// Task in the 240-byte size class). Written once at the end by the
	// worker that ends or retires the task (for a child dropped before it
	// started, under its nursery's mu); read by its nursery under mu, and
	// by anyone once the task has finished.
	result Result
	// waitingOn is set while the task is parked in an interruptible wait,
	// under the wait's lock, and read by markCancel on any worker; it may
	// be stale after (channel.complete). Accessed atomically.
	waitingOn atomic.Pointer[waitRef]

	// Statistics: steps by the worker that runs the task, steals by the
	// thief that took it, yields by the task; read by Stats between steps
	// or once the run is over.
	steps          int64
	yields, steals int32 // int32 keeps Task in the 240-byte size class
}

// taskExt is the rarely used part of a Task. Its fields are the task's own
// unless they say otherwise.
type taskExt struct {
	cleanups      []cleanup
	cleanupSeq    int64
	panicStack    []byte // written as the task ends; read once it has (PanicStack)
	selfRecharged bool
	// overrun is the component a cleanup overran (exhausted), CompNone if
	// none: written by the task itself, read as it ends.
	overrun Component
	// as is the name a supervisor recharges it by: set by the spawner,
	// read by the supervisor under the task's mu.
	as string
	// err is the error value behind an error result: written as the task
	// ends, read by its nursery under the nursery's mu.
	err error

	sel       *selWaiter              // the task's Select waiter, made at its first wait (select.go); only the task itself uses it
	ctx       context.Context         // see Context; nil until the task asks for it
	ctxCancel context.CancelCauseFunc // written under mu: markCancel reads it from other workers
}

// ext returns t's taskExt, allocating it on first use. Only the task itself
// (or its spawner, before the task is published) calls it.
func (t *Task) ext() *taskExt {
	if t.taskExt == nil {
		e := &taskExt{}
		t.mu.Lock()
		t.taskExt = e
		t.mu.Unlock()
	}
	return t.taskExt
}

// cleanup is one entry of a task's cleanup stack: a defer or a using release.
type cleanup struct {
	seq   int64
	label string
	using bool // a using release: it also marks the end of its block
	fn    func(t *Task) error
}

// ID is the task's id, unique within its scheduler (1 for the root). Ids
// follow creation order when the scheduler keeps its tasks (a Mode that
// keeps); otherwise each worker hands out ids from blocks it reserves.
func (t *Task) ID() uint64 { return t.id }

// Scheduler is the scheduler the task runs on (for NewChan and
// NewChannel from inside a task).
func (t *Task) Scheduler() *Scheduler { return t.s }

// Name is the name the task was spawned with.
func (t *Task) Name() string { return t.name }

// Parent is the nursery the task belongs to, nil for the root.
func (view *taskOps) Parent() *Nursery {
	t := (*Task)(view)
	return t.parent
}

// State is the task's current state.
func (view *taskOps) State() taskState {
	t := (*Task)(view)
	return taskState(t.state.Load())
}

// Result is the task's result once it has finished.
func (t *Task) Result() Result { return t.result }

// PanicStack is the stack of the panic that ended the task, if any.
func (t *Task) PanicStack() []byte {
	if t.taskExt == nil {
		return nil
	}
	return t.panicStack
}

// Stats reports how many steps the task ran, how often it yielded and how
// often it was stolen.
func (view *taskOps) Stats() (steps, yields, steals int64) {
	t := (*Task)(view)
	return t.steps, int64(t.yields), int64(t.steals)
}

// Budget is the task's remaining budget.
func (t *Task) Budget() Budget { return t.budget }

// Caps is the set of capabilities the task holds.
func (t *Task) Caps() Caps { return t.caps }

// SetValue sets the value the task completes with (ok:VALUE).
func (view *taskOps) SetValue(v int64) {
	t := (*Task)(view)
	t.result.Value, t.result.HasValue = v, true
}

// IsCancelled reports whether the task has been marked cancelled
// (docs/spec.md#cancellation); unlike Checkpoint it never ends the task.
//
// Inside a nursery whose scope is cancelled (an explicit cancel, a
// timeout) it reports true too, until the task leaves that nursery
// (docs/semantics.md#cancellation-and-unwinding).
func (t *Task) IsCancelled() bool { return t.cancelled() != 0 }

// taskBody is a Task seen as its fiber's body. It is a type of its own
// so that RunFiber, which only the fiber calls, stays out of Task's
// documented methods; converting a *Task to it costs nothing, and a
// pointer in an interface allocates nothing, so starting a task allocates
// no closure.
type taskBody Task

// RunFiber is the fiber body of every task that runs on a fiber of its own
// (carrier.RunFiber runs the others, inline, the same way): run the
// task's function, then its remaining cleanups in LIFO order, and record
// the result.
//
// It captures a panic of the function as protect does, in one frame with
// the call of the function rather than a frame of its own: every parked
// task's stack holds this frame, and the collector walks each frame of
// every parked stack at each cycle (docs/performance.md#parked-stacks). A
// runtime.Goexit
// cannot be stopped or captured: the deferred call sees it (no panic, yet
// the function did not return) and ends the task from there, in the
// middle of the Goexit, as if the body had panicked with ErrGoexit; the
// fiber then hands control back to the worker (package fiber). A Goexit in
// a cleanup is handled likewise by protect. After a panic the task ends
// from the deferred call too, once the panic is recovered.
func (b *taskBody) RunFiber(_ *fiber.Fiber) {
	t := (*Task)(b)
	returned := false
	defer func() {
		if returned {
			return // a panic of end itself goes on to the fiber
		}
		if r := recover(); r != nil {
			if t.s.aborting.Load() {
				panic(r)
			}
			t.endPanicked(r)
		} else if !t.s.aborting.Load() {
			t.end(nil, goexitError())
		}
	}()
	err := t.fn(t)
	returned = true
	t.end(err, nil)
}

// endPanicked ends t after its function panicked with r, which the
// caller's deferred call has recovered (RunFiber, carrier.RunFiber).
func (t *Task) endPanicked(r any) {
	t.stepperPanicked(r)
	t.end(nil, capture(r))
}

// goexitError is the panic a runtime.Goexit in a task stands for.
func goexitError() *PanicError {
	return &PanicError{Value: ErrGoexit, Stack: debug.Stack()}
}

// end runs t's remaining cleanups and records its result, given what its
// body returned or raised.
//
// A body that returned nil from a task without a taskExt (no cleanups, no
// context, nothing recorded) is the common end: its result is written in
// place, without resultOf's 48-byte Result returned and copied and the
// call of runCleanups, about 90 instructions a task.
func (t *Task) end(err error, p *PanicError) {
	t.ending = true
	if err == nil && p == nil && t.taskExt == nil {
		if !t.result.HasValue {
			t.result = nursery.OK()
		} else {
			t.result = nursery.OKValue(t.result.Value)
		}
		return
	}
	res := resultOf(err, t.result.Value, t.result.HasValue)
	if p != nil {
		res, err = t.panicResult(p), p
	}
	cp, cerr := t.runCleanups(0)
	switch {
	case cp != nil:
		res, err = t.panicResult(cp), cp
	case cerr != nil && res.Kind == nursery.KindOK:
		res, err = resultOf(cerr, 0, false), cerr
	}
	if t.taskExt != nil && t.overrun != CompNone && !res.IsError() {
		// A cleanup overran the budget and ran on uncharged: the
		// exhaustion is the task's result, before a cancellation or an ok
		// (an error outranks a cancellation); an error or a panic stays.
		err = t.overrunErr()
		res = resultOf(err, 0, false)
	}
	if res.IsError() {
		t.ext().err = err
	}
	t.result = res
	if t.taskExt != nil && t.ctxCancel != nil {
		t.ctxCancel(nil) // the task has ended: so has its context
	}
}

// failure is the error value behind an error result (see ChildError.Err).
func (t *Task) failure() error {
	if t.taskExt == nil {
		return nil
	}
	return t.err
}

func (t *Task) panicResult(p *PanicError) Result {
	t.ext().panicStack = p.Stack
	return nursery.Panic(fmt.Sprint(p.Value))
}

// protect runs fn and captures a panic from it. While the scheduler aborts a
// run (deadlock or livelock in the simulator), panics pass through so that
// the fiber can be unwound.
//
// A runtime.Goexit in one of the task's last cleanups (run by end) ends
// the task from the deferred call: end runs again, the remaining cleanups
// first, and records ErrGoexit. Elsewhere (a Using body, a cleanup a
// Using block runs) the Goexit goes on to the enclosing nursery or to
// RunFiber, which unwind in the program's order.
//
//lint:ignore ST1008 the panic is a second result beside the error, not the error itself
func (t *Task) protect(fn func() error) (err error, p *PanicError) {
	returned := false
	defer func() {
		if r := recover(); r != nil {
			if t.s.aborting.Load() {
				panic(r)
			}
			t.stepperPanicked(r)
			p = capture(r)
		} else if !returned && t.ending && !t.s.aborting.Load() {
			t.cleanupDepth = 0
			t.end(nil, goexitError())
		}
	}()
	err = fn()
	returned = true
	return err, nil
}

// suspend gives control back to the worker with a reason. A task running
// on its worker's own stack runs on that worker's loop fiber and keeps it
// (see inline.go).
func (t *Task) suspend(why fiber.Reason) { t.fib.Yield(why) }

// siteHere records where t suspends next, in a run that wants Go sites
// (modeSites): called before a block that no checkpoint of the same call
// preceded (a checkpoint records its own, in endStep). suspend itself
// stays one call, which the compiler inlines
// (docs/performance.md#parked-stacks).
func (t *Task) siteHere() {
	if t.w.mode&modeSites != 0 {
		t.site()
	}
}

// Checkpoint observes cancellation: it returns a *CancelError if the task has
// been marked, nil otherwise. In the seeded simulator it is also a step
// boundary. Inside a cleanup it never reports cancellation.
func (t *Task) Checkpoint() error { return t.point(Cost{}) }

// point is a checkpoint that first charges c.
func (t *Task) point(c Cost) error {
	if !c.none() {
		if err := t.charge(c); err != nil {
			return err
		}
	}
	if t.s.cfg.Mode.Stepped() {
		t.endStep()
	}
	return t.observe()
}

// pointOp is point(Cost{Ops: 1}), the checkpoint of a spawn, of opening a
// nursery and of a Compute iteration, without the generic charge: when the
// budget can pay one op (Ops at least 1, no component below zero, which
// is exactly short's CompNone for this cost) it takes the op itself, and
// leaves every other case, and the mutants, to point. A spawn paid 73
// instructions for charge, most of them short and sub walking the five
// components of a cost that has one
// (docs/performance.md#the-budgets-fast-charge).
func (t *Task) pointOp() error {
	b := &t.budget
	if b.Ops < 1 || b.Memory|b.SpawnCount|b.ChannelOps|b.Syscalls < 0 || mutant.Enabled {
		return t.point(Cost{Ops: 1})
	}
	b.Ops--
	t.opsSinceYield++
	if int(t.opsSinceYield) >= t.s.cfg.YieldInterval {
		t.opsSinceYield = 0
		t.yields++
		t.turn(reasonInterval)
	}
	if t.s.cfg.Mode.Stepped() {
		t.endStep()
	}
	if t.cleanupDepth > 0 || t.uncancelled() {
		return nil // observe's test, in line: nothing to observe
	}
	return t.observe()
}

// observe reports the cancellation mark unless inside a cleanup.
func (t *Task) observe() error {
	if t.cleanupDepth > 0 {
		return nil
	}
	if r := t.cancelled(); r != 0 {
		t.emit(trace.KindObserve)
		return &CancelError{Reason: nursery.Reason(r)}
	}
	return nil
}

// CancelSelf marks t cancelled (ExplicitCancel), as a cancellation from
// outside would at this point: every nursery t has open is cancelled
// (from outside, in its own mode), and t observes the cancellation at its
// next checkpoint. It is not a checkpoint itself. Only t calls it.
func (t *Task) CancelSelf() { t.markCancel(nursery.ExplicitCancel, t.w) }

// Yield is an explicit yield: the task goes to the back of the global queue.
// It is a checkpoint and costs no budget (docs/spec.md#yield-points).
//
// Only t's own body may call it, while it runs: Yield on a task that has
// finished panics with a message that says so (there is no fiber left to
// suspend), as does a call from another goroutine while t is not running
// (blocked, or ready and waiting for a worker). A call from another
// goroutine while t runs cannot be told apart.
func (t *Task) Yield() error {
	if t.fib == nil || t.w == nil || taskState(t.state.Load()) != stateRunning {
		t.notRunning("Yield")
	}
	t.yields++
	t.turn(reasonYield)
	return t.observe()
}

// notRunning panics for a call of op on t that only t's running body may
// make.
func (t *Task) notRunning(op string) {
	panic(fmt.Sprintf("sched: Task.%s: task %d (%s) is not running: it has finished, or the call is not made by its own body", op, t.id, t.name))
}

// turn is suspend for a yield (why is reasonYield or reasonInterval): when
// t's worker is alone and its loop fiber resumed t, t hosts the loop on
// its own stack instead of switching back to it, and goes on without a
// switch if the loop takes t again (inline.go). Blocks keep suspend,
// which stays inlined: a frame more under every parked task is what a
// million of them pay for at each collection.
func (t *Task) turn(why fiber.Reason) {
	t.siteHere()
	if w := t.w; w.alone() && w.c.loopFib != nil && t.fib != w.c.loopFib {
		if w.host(t, why) {
			return
		}
		why = reasonHosted
	}
	t.fib.Yield(why)
}

// blockTurn is turn for a channel's block, in two halves so that suspend
// stays inlined in the channel's Send and Recv (the frames under a parked
// task): it hosts when turn would, and returns what t must suspend for
// then, 0 when it goes on at once (its wait is over and the loop took it
// again), reasonHosted when the host handed the loop back; reasonBlock
// when it did not host. Called by waitOnChannel, once w.blockOn is set.
func (t *Task) blockTurn() fiber.Reason {
	if w := t.w; w.alone() && w.c.loopFib != nil && t.fib != w.c.loopFib {
		if w.host(t, reasonBlock) {
			return 0
		}
		return reasonHosted
	}
	return reasonBlock
}

// Compute runs n loop iterations, each costing one op and each a checkpoint.
func (view *taskOps) Compute(n int64) error {
	t := (*Task)(view)
	for i := int64(0); i < n; i++ {
		if err := t.pointOp(); err != nil {
			return err
		}
	}
	return nil
}

// Call charges a function call (one op); it is a checkpoint.
func (view *taskOps) Call() error {
	t := (*Task)(view)
	return t.pointOp()
}

// Alloc charges an allocation of bytes; it is a checkpoint.
func (view *taskOps) Alloc(bytes int64) error {
	t := (*Task)(view)
	return t.point(Cost{Ops: 1, Memory: bytes})
}

// Syscall charges n I/O operations; each is a checkpoint.
func (view *taskOps) Syscall(n int64) error {
	t := (*Task)(view)
	for i := int64(0); i < n; i++ {
		if err := t.point(Cost{Ops: 1, Syscalls: 1}); err != nil {
			return err
		}
	}
	return nil
}

// charge takes c from the budget and forces a yield every YieldInterval ops.
func (t *Task) charge(c Cost) error {
	if mutant.On(mutant.BudgetNotCharged) {
		return nil
	}
	if comp := t.budget.short(c); comp != CompNone {
		if err := t.exhausted(comp, c); err == errOverrun {
			c = t.budget.payable(c) // a cleanup's overrun: what is left pays, the rest is not charged
		} else if err != nil {
			return err
		}
	}
	t.budget.sub(c)
	t.opsSinceYield += int32(c.Ops)
	if int(t.opsSinceYield) >= t.s.cfg.YieldInterval {
		t.opsSinceYield = 0
		t.yields++
		t.turn(reasonInterval)
	}
	return nil
}

// Log appends text to the scheduler's log (the scenario log).
func (view *taskOps) Log(text string) {
	t := (*Task)(view)
	t.s.appendLog(text)
	t.emit(trace.KindLog, trace.S(trace.KeyText, text))
}

// Defer pushes a cleanup that runs when the task exits (or, inside a Using
// body, when that block exits), after every cleanup pushed later.
func (t *Task) Defer(label string, fn func(t *Task) error) {
	t.pushCleanup(label, false, fn)
}

// Using logs "acquire R", runs body, and logs "release R" on every way out,
// after running the cleanups the body pushed (LIFO).
func (t *Task) Using(resource string, body func() error) error {
	t.ops().Log("acquire " + resource)
	floor := len(t.ext().cleanups)
	t.pushCleanup(resource, true, nil)
	err, p := t.protect(body)
	cp, cerr := t.runCleanups(floor)
	switch {
	case cp != nil:
		panic(cp)
	case p != nil:
		panic(p)
	case err != nil:
		return err
	}
	return cerr
}

func (t *Task) pushCleanup(label string, using bool, fn func(t *Task) error) {
	t.ext().cleanupSeq++
	t.cleanups = append(t.cleanups, cleanup{seq: t.cleanupSeq, label: label, using: using, fn: fn})
	if t.emitting() {
		t.emit(trace.KindCleanup, trace.S(trace.KeyDo, "push"), trace.I(trace.KeySeq, t.cleanupSeq), trace.S(trace.KeyLabel, label))
	}
}

// runCleanups pops and runs the cleanups above index floor in LIFO order.
// It returns the last panic a cleanup raised and the first error one
// returned; every remaining cleanup runs either way: a panic during cleanup
// is captured and unwinding continues
// (docs/semantics.md#cancellation-and-unwinding).
func (t *Task) runCleanups(floor int) (p *PanicError, err error) {
	if t.taskExt == nil {
		return nil, nil
	}
	for len(t.cleanups) > floor {
		i := len(t.cleanups) - 1
		if mutant.On(mutant.CleanupFIFO) {
			i = floor
		}
		c := t.cleanups[i]
		t.cleanups = append(t.cleanups[:i], t.cleanups[i+1:]...)
		if t.emitting() {
			t.emit(trace.KindCleanup, trace.S(trace.KeyDo, "run"), trace.I(trace.KeySeq, c.seq), trace.S(trace.KeyLabel, c.label))
		}
		if c.using {
			t.ops().Log("release " + c.label)
			continue
		}
		t.cleanupDepth++
		cerr, cp := t.protect(func() error { return c.fn(t) })
		t.cleanupDepth--
		if cp != nil {
			p = cp
		}
		if cerr != nil && err == nil {
			err = cerr
		}
	}
	return p, err
}

func (t *Task) emitting() bool { return t.w != nil && t.w.em.on() }

// emit writes an event about t from the worker running it.
func (t *Task) emit(kind trace.Kind, fields ...trace.Field) {
	if t.w == nil || !t.w.em.on() {
		return
	}
	t.w.em.buf = append(t.w.em.buf[:0], trace.I(trace.KeyTask, int64(t.id)))
	t.w.em.buf = append(t.w.em.buf, fields...)
	t.w.em.sink.Emit(t.w.id, kind, t.w.em.buf)
}

// markCancel marks t cancelled with reason r (once; the first reason stays)
// and propagates the cancellation to every nursery t has open, with the same
// reason (docs/spec.md#transitive-cancellation). w is the worker doing it.
func (t *Task) markCancel(r nursery.Reason, w *worker) {
	if !t.mark.CompareAndSwap(0, uint32(r)) {
		return
	}
	if em := t.s.emitter(w); em.on() {
		em.emit(trace.KindCancel, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyReason, r.String()))
	}
	if mutant.On(mutant.TransitiveSkipsLevel) {
		return
	}
	t.mu.Lock()
	for n := t.owned; n != nil; n = n.outer {
		if mutant.On(mutant.CancelSkipsAwaiting) && n.m.Awaiting() {
			continue
		}
		n.cancelOutside(r, w)
	}
	cancelCtx := t.contextCancel()
	t.mu.Unlock()
	if cancelCtx != nil {
		cancelCtx(&CancelError{Reason: r})
	}
	// A task blocked on a channel or asleep is interrupted; it observes
	// the cancellation when it runs again. (Dekker with park: mark was
	// stored before waitingOn is loaded.)
	if ref := t.waitingOn.Load(); ref != nil && ref.b.cancelWait(t) {
		t.s.wakeFrom(w, t)
	}
}
