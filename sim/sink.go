package sim

import (
	"strconv"

	"github.com/cbcsim/cbcsim/sched/driver"

	"github.com/cbcsim/cbcsim/trace"
)

// sink numbers steps, stamps virtual time and actors on the scheduler's
// events, digests them for the checkers and writes them to the trace file.
type sink struct {
	step, tick uint64
	actors     []string
	hist       *history // the checkers' digest, fed as events happen
	tab        *tables  // the task and nursery tables from the same events; nil while the scheduler keeps its tasks
	w          *trace.Writer
	err        error // the first write error
	cleanups   int   // cleanups pushed and not yet run, for limit
	ev         trace.Event
	loop       *stepLoop // the driver's loop while it runs (NextStep, in drive.go)
	counted    bool      // an event other than a run came since limit last looked
	runs       []runRec  // by task id, under denseMax: what a run event of the task writes to
}

// runRec is what a run event of one task writes to, found with one
// lookup by task id (sink.EmitRun): its history record, its table row,
// and its trace line's tail for the worker that last ran it.
type runRec struct {
	hist    *taskHist
	row     *taskRowHist  // nil without tables
	tailFor int           // the worker tail is for, plus one; 0 before the first traced run
	tail    trace.RunTail // "ACTOR run task=ID\n", encoded once
}

func newSink(workers int, w *trace.Writer) *sink {
	s := &sink{w: w, hist: newHistory()}
	for i := 0; i < workers; i++ {
		s.actors = append(s.actors, "w"+strconv.Itoa(i))
	}
	return s
}

func (s *sink) actor(worker int) string {
	if worker < 0 || worker >= len(s.actors) {
		return "sim"
	}
	return s.actors[worker]
}

// Emit implements sched.Sink.
func (s *sink) Emit(worker int, kind trace.Kind, fields []trace.Field) {
	s.ev = trace.Event{Step: s.step, Tick: s.tick, Actor: s.actor(worker), Kind: kind, Fields: fields}
	s.hist.add(&s.ev)
	if s.tab != nil {
		s.tab.add(&s.ev)
	}
	s.count(kind, fields)
	s.counted = true
	if s.w != nil && s.err == nil {
		s.err = s.w.WriteEvent(&s.ev)
	}
}

// EmitRun implements the scheduler's path for the run event, one a step
// (driver.RunSink): the history and the tables take the task id as it is,
// and the trace writes the line without an Event, instead of building one
// and looking its field up by key (docs/performance.md). The task's
// history record, table row and line tail are found with one lookup
// (runRec), and the line is the tail kept for the task and its worker
// after the writer's kept step and tick (trace.Writer.WriteRunTail).
func (s *sink) EmitRun(worker int, task uint64) {
	var r *runRec
	if task < uint64(len(s.runs)) {
		r = &s.runs[task]
	}
	if r == nil || r.hist == nil {
		if r = s.runRec(task); r == nil {
			s.emitRunFar(worker, task)
			return
		}
	}
	s.hist.ran(r.hist)
	if r.row != nil {
		r.row.ran()
	}
	if s.w != nil && s.err == nil {
		if r.tailFor != worker+1 {
			r.tail, r.tailFor = trace.NewRunTail(s.actor(worker), int64(task)), worker+1
		}
		if err := s.w.WriteRunTail(s.step, s.tick, &r.tail); err != nil {
			s.err = err // stored only when set: an interface's two words and their write barrier a step
		}
	}
}

// runRec returns the run record of task, made on its first run event, or
// nil for an id past denseMax.
func (s *sink) runRec(task uint64) *runRec {
	if task >= denseMax {
		return nil
	}
	for uint64(len(s.runs)) <= task {
		s.runs = append(s.runs, runRec{})
	}
	r := &s.runs[task]
	r.hist = s.hist.task(int64(task))
	if s.tab != nil {
		r.row = s.tab.task(int64(task))
	}
	return r
}

// emitRunFar is EmitRun for a task id past denseMax, without a record.
func (s *sink) emitRunFar(worker int, task uint64) {
	s.hist.addRun(int64(task))
	if s.tab != nil {
		s.tab.run(int64(task))
	}
	if s.w != nil && s.err == nil {
		s.err = s.w.WriteRun(s.step, s.tick, s.actor(worker), int64(task))
	}
}

// Now implements sched.Clock: the virtual clock, one tick per step plus
// the jumps to the next timer when no worker can act.
func (s *sink) Now() uint64 { return s.tick }

var _ driver.Stepper = (*sink)(nil)
var _ driver.RunSink = (*sink)(nil)
