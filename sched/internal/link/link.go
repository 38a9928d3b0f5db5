// Package link joins package sched to package sched/driver without an
// import cycle and without showing the driver's surface on sched's page
// (docs/api-split.md). It imports nothing from sched. It holds:
//
//   - the types both sides name (Sink, Clock, VictimSource, Options,
//     TaskState, WorkerStats, NurserySnapshot, Xoshiro), which
//     sched/driver re-exports under aliases;
//   - registration slots, typed any, that sched fills in its init with
//     functions returning its unexported views; sched/driver asserts each
//     slot once, at its own init, to the function type it expects.
//
// Nobody outside sched/... can import it, so the views are reachable only
// through sched/driver.
package link

import (
	"fmt"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// Registration slots, filled by sched's init.
var (
	// New is func(sched.Config, link.Options) (*sched.Scheduler, error).
	New any
	// Driver is func(*sched.Scheduler) any: the scheduler's driver view.
	Driver any
	// Task is func(*sched.Task) any: the task's scenario-operations view.
	Task any
	// Nursery is func(*sched.Nursery) any: the nursery's inspection view.
	Nursery any
	// Send is func(*sched.Task, any, int64) error and Recv is
	// func(*sched.Task, any) (int64, bool, error): a channel's send and
	// receive themselves, which the driver calls directly rather than
	// through the task view, so that a task parked in one has no frame
	// of the driver's or of the view's on its stack
	// (docs/performance.md#parked-stacks).
	Send, Recv any
	// Yields is func(*sched.Task) int64: how many times the task has
	// yielded, which a strategy reads at every step (sim.Yielded), so a
	// plain call rather than the task view's interface.
	Yields any
)

// Options are the configuration fields only a driver sets.
type Options struct {
	// Mode says who steps the workers and whether every task is kept.
	Mode Mode

	// Sink receives every scheduling event. Nil means no events. It is an
	// observer: it changes no decision and keeps no task alive.
	Sink Sink

	// Clock gives the time in ticks for sleeps and timeouts; nil means the
	// real-mode wall clock started by Run.
	Clock Clock

	// Victims, when set, chooses every steal victim instead of the
	// strategy (schedule-driven replay of a recorded trace).
	Victims VictimSource

	// Decisions, when set, makes every policy decision of a stepped run
	// (Decision) instead of the workers' seeded generators: the
	// explorer, or a replay following a recorded schedule.
	Decisions DecisionSource

	// Legacy2 replays a trace of format version 2, recorded before the
	// policies were decisions: every policy takes the way version 2
	// took (the slower one) and no decision is recorded.
	Legacy2 bool

	// LegacyCancel replays a trace of format version 1 or 2 with the
	// cancellation those were recorded with: no cancel scopes, and a
	// nursery cancelled from outside cancels every child
	// (sched/scope.go).
	LegacyCancel bool

	// StealHalf makes a successful steal take half of the victim's deque
	// (at most StealBatchMax tasks) instead of one task: the thief runs
	// the first and queues the rest on its own deque. Off by default:
	// docs/performance.md#steal-policy has the measurement that decided it.
	StealHalf bool

	// Story makes a stepped run write the events that tell its story
	// (sched/story.go, docs/trace-format.md): completed channel
	// operations with their peer, a sleep's wake-up tick. A replay of a
	// version-1 or version-2 trace leaves it off.
	Story bool

	// Sites, with Story, tells a Sink that implements SiteSink the Go
	// source line of the sched call each task suspends in: a Go body's
	// sites (a scenario's interpreter names its ops itself).
	Sites bool
}

// SiteSink is a Sink told where each task suspends (Options.Sites): site
// is the file's base name and the line of the task's sched call.
type SiteSink interface {
	Sink
	Site(task uint64, site string)
}

// Mode is how a scheduler is run: who steps its workers (Run's goroutines,
// or a driver one step at a time) and whether it keeps every task and
// nursery for inspection (which switches off lean nurseries, the reuse of
// tasks and nurseries and per-worker id blocks: the code path a Go
// program's scheduler takes is the one that keeps nothing).
type Mode uint8

const (
	// Real: Run's goroutines step the workers, nothing is kept (a Go
	// program's scheduler; the zero Mode).
	Real Mode = iota
	// RealKeep: Run, keeping every task and nursery.
	RealKeep
	// Seeded: a driver steps one worker at a time, every checkpoint ends
	// a step, nothing is kept: the Go program's code path, one step at a
	// time (lean nurseries, reuse, id blocks).
	Seeded
	// SeededKeep: Seeded, keeping every task and nursery for tables read
	// from the tasks themselves.
	SeededKeep
)

var modeNames = [...]string{"real", "real-keep", "seeded", "seeded-keep"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Stepped reports whether a driver steps the workers one at a time, with
// a step ending at every checkpoint.
func (m Mode) Stepped() bool { return m == Seeded || m == SeededKeep }

// Keeps reports whether every task and nursery is kept.
func (m Mode) Keeps() bool { return m == RealKeep || m == SeededKeep }

// StealBatchMax bounds the tasks one StealHalf steal moves.
const StealBatchMax = 64

// Sink receives the scheduler's events. The seeded driver implements it to
// number steps, stamp virtual time and record or write the trace. Calls come
// from the worker goroutine that caused the event; fields is scratch memory
// that is reused after Emit returns, so a Sink that keeps events copies them.
// worker is -1 for events caused outside any worker (the driver).
type Sink interface {
	Emit(worker int, kind trace.Kind, fields []trace.Field)
}

// RunSink is a Sink with a path of its own for the run event, the one
// event of every seeded step (kind run, one field: task=ID). A Sink that
// implements it receives run events through EmitRun instead of Emit, so
// that it need not build an event and look its field up by key.
type RunSink interface {
	Sink
	EmitRun(worker int, task uint64)
}

// DecideSink is a Sink with a path of its own for the decide event (kind
// decide, fields DECISION=yes|no and task=ID), a policy decision's record:
// EmitDecide receives it instead of Emit, so that no fields are built.
type DecideSink interface {
	Sink
	EmitDecide(worker int, d Decision, yes bool, task uint64)
}

// Stepper is a Sink whose driver can take its decisions between two
// seeded steps from inside a task (docs/performance.md#the-seeded-step). At a
// checkpoint, where worker's step ends with its task
// still current, the scheduler calls NextStep on the task's own fiber
// instead of switching back to the driver. NextStep does what the driver
// does after that step and before the next, in the same order (timers,
// limits, the choice of the next worker): it reports true when that next
// step is worker's own, which resumes the same task, so the task goes on
// without a fiber switch; false ends the step as a switch back to the
// driver would, and the driver goes on from what NextStep decided.
type Stepper interface {
	Sink
	NextStep(worker int) bool
}

// Clock is the scheduler's source of time, in ticks. The seeded driver
// injects a virtual clock (one tick per step, jumping to the next timer when
// no worker can act); real mode uses wall time.
type Clock interface {
	Now() uint64
}

// VictimSource chooses steal victims. NextVictim returns the index of the
// worker that worker w attempts to steal from next; it must not be w.
type VictimSource interface {
	NextVictim(w int) int
}

// Decision names a scheduling policy that real mode decides by timing or
// by a cheap local test, and that a stepped driver decides through its
// chooser, so that the seeded simulator runs and explores the same paths
// (docs/explore.md, "Policy decisions"). Each is a yes or a no; yes is
// what real mode does in the common case.
type Decision uint8

const (
	// DecideNextSlot: a task woken by the running task goes to its
	// worker's next slot (yes) rather than the worker's deque (no).
	// Several workers only.
	DecideNextSlot Decision = iota + 1
	// DecideStealNext: an idle worker that found nothing to steal takes
	// the task in another worker's next slot, its grace over (yes), or
	// leaves it to its worker (no). Real mode: after nextGrace.
	DecideStealNext
	// DecideHandOff: a task yields from a worker whose deque is empty,
	// and the worker takes the global queue's head in the same step
	// (yes), or leaves the queue to the next step (no).
	DecideHandOff
	// DecideOwnerNext: a nursery owner woken while its worker is between
	// two tasks becomes that worker's current task (yes), or is queued
	// on its deque (no).
	DecideOwnerNext
	// DecideCredit: the owner of a lean nursery admits its spawns ahead,
	// in a batch (yes), or one spawn at a time under the lock (no).
	DecideCredit
	// DecideSelect: a Select with several cases ready takes the next of
	// them, in the order of its cases (yes), or passes it over (no); the
	// last ready case takes no decision. Real mode draws the case uniform
	// from the worker's generator.
	DecideSelect
	decisionEnd
)

var decisionNames = [...]string{DecideNextSlot: "next-slot", DecideStealNext: "steal-next", DecideHandOff: "hand-off", DecideOwnerNext: "owner-next", DecideCredit: "credit", DecideSelect: "select"}

// String is the decision's name in a trace's decide event.
func (d Decision) String() string {
	if d > 0 && d < decisionEnd {
		return decisionNames[d]
	}
	return fmt.Sprintf("Decision(%d)", uint8(d))
}

// Field is the decide event's field of d's answer yes: DECISION=yes or
// DECISION=no (its other field is the task's).
func (d Decision) Field(yes bool) trace.Field {
	if yes {
		return trace.S(d.String(), "yes")
	}
	return trace.S(d.String(), "no")
}

// ParseDecision returns the decision named s.
func ParseDecision(s string) (Decision, bool) {
	for d := DecideNextSlot; d < decisionEnd; d++ {
		if decisionNames[d] == s {
			return d, true
		}
	}
	return 0, false
}

// DecisionSource makes policy decisions for a stepped run. Decide
// returns worker w's answer to d.
type DecisionSource interface {
	Decide(w int, d Decision) bool
}

// TaskState is a task's place in the task state machine (docs/semantics.md).
type TaskState uint32

const (
	StateReady TaskState = iota
	StateRunning
	StateBlocked
	StateExhausted
	StateCompleted
	StateCancelled
)

var taskStateNames = [...]string{"Ready", "Running", "Blocked", "BudgetExhausted", "Completed", "Cancelled"}

func (s TaskState) String() string {
	if int(s) < len(taskStateNames) {
		return taskStateNames[s]
	}
	return fmt.Sprintf("TaskState(%d)", uint32(s))
}

// WorkerStats counts what a worker did.
type WorkerStats struct {
	Steps        int64 // steps taken
	Pops         int64 // tasks taken from the local deque
	Globals      int64 // tasks taken from the global queue
	Steals       int64 // tasks stolen from other workers
	StealsFailed int64 // steal attempts that found nothing
	Parks        int64 // times the worker found no work
	Runs         int64 // steps that ran a task
	Completed    int64 // tasks that finished on this worker
	Cancelled    int64 // tasks retired as cancelled without running
	Backoffs     int64 // real mode: backoff rounds before parking
	Spins        int64 // real mode: processor yields while backing off
	Sleeps       int64 // real mode: parks that blocked the worker's goroutine
	Woken        int64 // real mode: of those, the ones another worker or the clock cut short
}

// NurserySnapshot is a copy of a nursery's observable state. Results (per
// child, in spawn order) and Children are kept only when the nursery keeps
// per-child records (lean nurseries do not, except under cancel_remaining
// or max_concurrent, which need them).
type NurserySnapshot struct {
	Label      string
	Mode       nursery.Mode
	State      nursery.State
	Outcome    nursery.Outcome
	FirstError string
	HasError   bool
	Results    []nursery.Result
	Children   []uint64
}
