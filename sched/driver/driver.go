package driver

import (
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// The vocabulary shared with sched, defined in sched/internal/link.
type (
	Sink            = link.Sink
	RunSink         = link.RunSink
	DecideSink      = link.DecideSink
	Stepper         = link.Stepper
	Clock           = link.Clock
	VictimSource    = link.VictimSource
	DecisionSource  = link.DecisionSource
	Decision        = link.Decision
	TaskState       = link.TaskState
	WorkerStats     = link.WorkerStats
	NurserySnapshot = link.NurserySnapshot
	Xoshiro         = link.Xoshiro
	Mode            = link.Mode
)

// The modes (Mode).
const (
	// Real: sched's Run steps the workers, one goroutine each; nothing is
	// kept. A Go program's scheduler.
	Real = link.Real
	// RealKeep: Run, keeping every task and nursery for Tasks and
	// Nurseries.
	RealKeep = link.RealKeep
	// Seeded: the driver steps one worker at a time and every checkpoint
	// ends a step; nothing is kept, so the code path is a Go program's
	// (lean nurseries, task and nursery reuse, per-worker id blocks).
	Seeded = link.Seeded
	// SeededKeep: Seeded, keeping every task and nursery. Lean nurseries,
	// reuse and id blocks are off.
	SeededKeep = link.SeededKeep
)

// Task states (State).
const (
	StateReady     = link.StateReady
	StateRunning   = link.StateRunning
	StateBlocked   = link.StateBlocked
	StateExhausted = link.StateExhausted
	StateCompleted = link.StateCompleted
	StateCancelled = link.StateCancelled
)

// The policy decisions (Decision; docs/explore.md, "Policy decisions").
const (
	DecideNextSlot  = link.DecideNextSlot
	DecideStealNext = link.DecideStealNext
	DecideHandOff   = link.DecideHandOff
	DecideOwnerNext = link.DecideOwnerNext
	DecideCredit    = link.DecideCredit
	DecideSelect    = link.DecideSelect
)

// ParseDecision returns the decision named s (a decide event's key).
func ParseDecision(s string) (Decision, bool) { return link.ParseDecision(s) }

// StealBatchMax bounds the tasks one StealHalf steal moves.
const StealBatchMax = link.StealBatchMax

// NewXoshiro returns a xoshiro256** generator seeded from seed.
func NewXoshiro(seed uint64) *Xoshiro { return link.NewXoshiro(seed) }

// SplitMix64 advances *state and returns the next output; it derives
// sub-seeds from one seed.
func SplitMix64(state *uint64) uint64 { return link.SplitMix64(state) }

// Config is a sched.Config plus what only a driver sets.
type Config struct {
	sched.Config

	// Mode says who steps the workers and whether every task and nursery
	// is kept (Tasks, Nurseries). The zero Mode is Real: sched's Run, as a
	// Go program runs it.
	Mode Mode

	// Sink receives every scheduling event. Nil means no events. A Sink
	// observes: it keeps no task alive and changes no decision.
	Sink Sink

	// Clock gives the time in ticks for sleeps and timeouts. Nil means the
	// real-mode wall clock started by Run.
	Clock Clock

	// Victims, when set, chooses every steal victim instead of the
	// strategy (schedule-driven replay of a recorded trace).
	Victims VictimSource

	// Decisions, when set, makes every policy decision (Decision)
	// instead of the workers' seeded generators: an explorer, or a
	// replay that follows a recorded schedule.
	Decisions DecisionSource

	// Legacy2 replays a trace of format version 2: every policy takes
	// the way that version did, and no decision is recorded.
	Legacy2 bool

	// LegacyCancel replays a trace of format version 1 or 2 with the
	// cancellation of those versions: no cancel scopes, and a nursery
	// cancelled from outside cancels every child.
	LegacyCancel bool

	// StealHalf makes a successful steal take half of the victim's deque
	// (at most StealBatchMax tasks) instead of one task.
	StealHalf bool

	// Story makes the run write the events that tell its story:
	// completed channel operations with their peer, a sleep's wake-up
	// tick (docs/trace-format.md). Sites, with Story, tells a Sink that
	// implements SiteSink the Go source line each task suspends at.
	Story, Sites bool
}

// SiteSink is a Sink told the Go source line of the sched call each task
// suspends in (Config.Sites).
type SiteSink = link.SiteSink

// Worker is one of the scheduler's workers, stepped by the driver.
type Worker interface {
	ID() int
	// Step runs one step: it resumes the current task up to its next
	// checkpoint, or takes a task (local pop, global queue, steal), or
	// parks. It reports whether the worker did anything.
	Step() bool
	// StepInline is Step for a driver whose loop the scheduler carries
	// (Scheduler.Carry): inline reports that the step left a task to run
	// inline on the loop's fiber, which the loop must then report to the
	// carrier (its next returns true) before it takes another step.
	StepInline() (did, inline bool)
	// StepHosted is the step a driver's host loop takes while task host
	// runs the loop on its own stack (Scheduler.Carry): resumes reports
	// that the step resumed host, which goes on; handBack that no step
	// was taken, for the loop's fiber must take it (the host hands the
	// loop back: the driver takes that step next, with the same worker).
	StepHosted(host *sched.Task) (did, resumes, handBack bool)
	// Parked reports whether the worker found no work at its last step
	// and nothing has been queued since.
	Parked() bool
	Stats() WorkerStats
	// Idle reports whether the next step can only look for work and park:
	// the worker is Vacant and no work is queued (WorkQueued). It takes a
	// pass over the workers; a driver that asks about every worker at
	// every step asks WorkQueued once and Vacant of each (sim.Useful).
	Idle() bool
	// Vacant reports whether the worker has nothing of its own to do: no
	// current task, nothing in its own queues. A worker that is not
	// vacant is not idle. O(1).
	Vacant() bool
	// WorkQueued reports whether a task waits where any vacant worker
	// could take it (the global queue, a deque, a next slot). The same
	// answer for every worker of the scheduler.
	WorkQueued() bool
	// QueueLen is the length of the worker's local deque.
	QueueLen() int
	// Running reports whether the worker is in the middle of a task.
	Running() bool
	// CurrentID is the id of the task the worker is in the middle of, 0 if
	// none; Current is that task, nil if none.
	CurrentID() uint64
	Current() *sched.Task
}

// Channel is a channel of int64 tokens between tasks, the scenario
// format's channel (a Go program uses sched.Chan).
type Channel interface {
	Name() string
	String() string
}

// schedView is the method set of sched's driver view of a Scheduler.
type schedView interface {
	Sched() *sched.Scheduler
	Start(name string, fn sched.Func) *sched.Task
	NumWorkers() int
	WorkerAt(i int) any
	Abort()
	Carry(next func() bool, host func(t *sched.Task) bool)
	Live() int64
	Root() *sched.Task
	Tasks() []*sched.Task
	Nurseries() []*sched.Nursery
	FireTimers(now uint64)
	NextTimer() (uint64, bool)
	Deadlocked() bool
	LimitHit() bool
	Now() uint64
	Log() []string
	MakeChannel(name string, capacity int) any
	ParkEpoch() *uint64
	TimerDue() *atomic.Uint64
}

// taskView is the method set of sched's view of a Task.
type taskView interface {
	Compute(n int64) error
	Call() error
	Alloc(bytes int64) error
	Syscall(n int64) error
	SetValue(v int64)
	Log(text string)
	Recharge(name string, amount sched.Budget) (bool, error)
	CloseChan(c any) error
	State() TaskState
	Stats() (steps, yields, steals int64)

	Parent() *sched.Nursery
}

// nurseryView is the method set of sched's view of a Nursery.
type nurseryView interface {
	Snapshot() NurserySnapshot
}

// The registration slots, asserted once: a mismatch with what sched
// registers panics here, at init, never at a call (and TestLink fails).
var (
	newSched    = link.New.(func(sched.Config, link.Options) (*sched.Scheduler, error))
	viewSched   = link.Driver.(func(*sched.Scheduler) any)
	viewTask    = link.Task.(func(*sched.Task) any)
	viewNursery = link.Nursery.(func(*sched.Nursery) any)
	sendOn      = link.Send.(func(*sched.Task, any, int64) error)
	recvOn      = link.Recv.(func(*sched.Task, any) (int64, bool, error))
	yieldsOf    = link.Yields.(func(*sched.Task) int64)
)

// Yields is how many times t has yielded: Stats' second figure, for a
// driver that reads it at every step.
func Yields(t *sched.Task) int64 { return yieldsOf(t) }

// Scheduler is a scheduler under a driver.
type Scheduler struct {
	v       schedView
	s       *sched.Scheduler // v.Sched(), for the calls of every step without an interface call
	epoch   *uint64          // v.ParkEpoch()
	due     *atomic.Uint64   // v.TimerDue()
	workers []Worker
}

// New returns a scheduler for cfg, its workers created but idle. A wholly
// zero Budget means sched.DefaultBudget here (the scenario format's
// default), where a Go program's sched.New gives sched.Unlimited.
func New(cfg Config) (*Scheduler, error) {
	if cfg.Budget == (sched.Budget{}) {
		cfg.Budget = sched.DefaultBudget
	}
	s, err := newSched(cfg.Config, link.Options{
		Mode: cfg.Mode, Sink: cfg.Sink,
		Clock: cfg.Clock, Victims: cfg.Victims, Decisions: cfg.Decisions, Legacy2: cfg.Legacy2, LegacyCancel: cfg.LegacyCancel, StealHalf: cfg.StealHalf,
		Story: cfg.Story, Sites: cfg.Sites,
	})
	if err != nil {
		return nil, err
	}
	v := viewSched(s).(schedView)
	d := &Scheduler{v: v, s: v.Sched(), epoch: v.ParkEpoch(), due: v.TimerDue(), workers: make([]Worker, v.NumWorkers())}
	for i := range d.workers {
		d.workers[i] = v.WorkerAt(i).(Worker)
	}
	return d, nil
}

// Sched is the scheduler itself: its Run drives the workers with one
// goroutine each under this configuration (sim's real mode).
func (d *Scheduler) Sched() *sched.Scheduler { return d.s }

// Start creates the root task running fn and queues it. It may be called
// once, before any worker steps.
func (d *Scheduler) Start(name string, fn sched.Func) *sched.Task { return d.v.Start(name, fn) }

// Workers returns the workers, by index.
func (d *Scheduler) Workers() []Worker { return d.workers }

// Worker is worker i.
func (d *Scheduler) Worker(i int) Worker { return d.workers[i] }

// Done reports whether the root task has finished.
func (d *Scheduler) Done() bool { return d.s.Done() }

// ParkEpoch moves whenever a worker parks or a parked worker may act
// again: a driver that keeps its list of unparked workers rebuilds it only
// when the epoch moved. Between steps only.
func (d *Scheduler) ParkEpoch() uint64 { return *d.epoch }

// Abort unwinds every task that is still suspended, so that their fibers
// are released. The scheduler is unusable afterwards.
func (d *Scheduler) Abort() { d.v.Abort() }

// Carry runs the driver's loop, next, on the scheduler's loop fibers, as
// real mode runs each worker's loop: next steps the workers it chooses
// with StepInline, and returns true when a step left a task to run
// inline, which the scheduler then runs on next's own stack, or false
// once the run is over. A task that starts without a fiber of its own
// thus runs on the loop's, and takes it with it when it suspends, as in
// real mode (docs/policies.md). Carry returns when next has returned
// false and every fiber running the loop has given it back. It may be
// called once, after Start, on a stepped scheduler. host is the driver's
// loop while a task hosts it, on the task's stack, on a run with one
// worker: it steps with StepHosted until a step resumes the host (true)
// or hands the loop back (false), as real mode's lone worker does.
func (d *Scheduler) Carry(next func() bool, host func(t *sched.Task) bool) { d.v.Carry(next, host) }

// Live is the number of tasks created and not yet finished.
func (d *Scheduler) Live() int64 { return d.v.Live() }

// Root is the root task.
func (d *Scheduler) Root() *sched.Task { return d.v.Root() }

// Tasks returns every task created, in creation order, when the scheduler
// keeps them (RealKeep, SeededKeep); nil otherwise.
func (d *Scheduler) Tasks() []*sched.Task { return d.v.Tasks() }

// Nurseries returns every nursery opened, in creation order, when the
// scheduler keeps them.
func (d *Scheduler) Nurseries() []*sched.Nursery { return d.v.Nurseries() }

// FireTimers fires every timer due at now, in (time, creation) order.
func (d *Scheduler) FireTimers(now uint64) {
	if d.due.Load() > now {
		return // nothing due: the seeded driver asks before every step
	}
	d.v.FireTimers(now)
}

// NextTimer reports when the earliest pending timer fires.
func (d *Scheduler) NextTimer() (uint64, bool) { return d.v.NextTimer() }

// Deadlocked reports whether a real-mode run found every worker idle
// while tasks were left.
func (d *Scheduler) Deadlocked() bool { return d.v.Deadlocked() }

// LimitHit reports whether a real-mode run passed MaxSteps.
func (d *Scheduler) LimitHit() bool { return d.v.LimitHit() }

// Now is the scheduler's current time in ticks.
func (d *Scheduler) Now() uint64 { return d.v.Now() }

// Log returns a copy of the lines written by Log, in order.
func (d *Scheduler) Log() []string { return d.v.Log() }

// NewChannel creates a channel of int64 tokens with the given capacity
// (0: rendezvous).
func NewChannel(d *Scheduler, name string, capacity int) Channel {
	return d.v.MakeChannel(name, capacity).(Channel)
}

func ops(t *sched.Task) taskView { return viewTask(t).(taskView) }

// Compute charges n ops of work, yielding every YieldInterval ops.
func Compute(t *sched.Task, n int64) error { return ops(t).Compute(n) }

// Call charges a function call (one op); it is a checkpoint.
func Call(t *sched.Task) error { return ops(t).Call() }

// Alloc charges an allocation of bytes; it is a checkpoint.
func Alloc(t *sched.Task, bytes int64) error { return ops(t).Alloc(bytes) }

// Syscall charges n syscalls; it is a checkpoint.
func Syscall(t *sched.Task, n int64) error { return ops(t).Syscall(n) }

// SetValue sets the value the task's result carries (ok:VALUE).
func SetValue(t *sched.Task, v int64) { ops(t).SetValue(v) }

// Log appends a line to the scheduler's log (and the trace).
func Log(t *sched.Task, text string) { ops(t).Log(text) }

// Recharge adds amount to the budget of the task named name (supervisor
// recharge); it reports whether such a task was found.
func Recharge(t *sched.Task, name string, amount sched.Budget) (bool, error) {
	return ops(t).Recharge(name, amount)
}

// Send sends the token v on c. It calls sched's send directly, not
// through the task's view: one call, which inlines into the caller, so
// that a task parked in it has no frame of this function.
func Send(t *sched.Task, c Channel, v int64) error { return sendOn(t, c, v) }

// Recv receives a token from c; ok is false once c is closed and drained.
// Like Send, it calls sched's receive directly.
func Recv(t *sched.Task, c Channel) (v int64, ok bool, err error) { return recvOn(t, c) }

// Close closes c.
func Close(t *sched.Task, c Channel) error { return ops(t).CloseChan(c) }

// State is the task's state.
func State(t *sched.Task) TaskState { return ops(t).State() }

// Stats is the task's steps, yields and steals.
func Stats(t *sched.Task) (steps, yields, steals int64) { return ops(t).Stats() }

// Result is the task's result, valid once it has ended.
func Result(t *sched.Task) sched.Result { return t.Result() }

// Parent is the nursery the task was spawned into, nil for the root.
func Parent(t *sched.Task) *sched.Nursery { return ops(t).Parent() }

// Snapshot reports the nursery's state, outcome, first error and per-child
// results (those it keeps).
func Snapshot(n *sched.Nursery) NurserySnapshot { return viewNursery(n).(nurseryView).Snapshot() }
