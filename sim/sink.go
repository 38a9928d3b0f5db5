package sim

import (
	"strconv"

	"github.com/cbcsim/cbcsim/sim/waits"

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
	tails      []runTail // by task id, under denseMax: the trace's run line tail of the task
	// story is a version-3 seeded run's: its run and block events carry
	// the op or Go line of the task (at=, from sites), and waits reads
	// every event but the run events to explain a run that ends stuck.
	story    bool
	sites    []string          // by task id under denseMax: where the task is (Site)
	siteMap  map[uint64]string // the same, for larger ids
	waits    *waits.Builder
	storyBuf []trace.Field     // Emit's fields with at= appended
	atFields map[string]string // atField's cache: by place, its at= field's text
	// decisions counts the policy decisions (decide events): at one
	// worker the only choices a seed makes (Run.Decisions).
	decisions int64
}

// runTail is a task's run line tail, "ACTOR run task=ID\n", encoded once
// for the worker that last ran it (sink.EmitRun).
type runTail struct {
	tail   trace.RunTail
	worker int // the worker tail is for, plus one; 0 before the first
}

func newSink(workers int, w *trace.Writer) *sink {
	s := &sink{w: w, hist: newHistory(), waits: waits.New()}
	s.waits.Story = true // read only when the run is a story run (finish)
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
	if kind == trace.KindBlock && s.story && len(fields) > 0 {
		if at := s.site(uint64(fields[0].Int)); at != "" {
			s.storyBuf = append(append(s.storyBuf[:0], fields...), trace.S(trace.KeyAt, at))
			fields = s.storyBuf
		}
	}
	s.ev = trace.Event{Step: s.step, Tick: s.tick, Actor: s.actor(worker), Kind: kind, Fields: fields}
	if kind == trace.KindDecide {
		s.decisions++
	}
	s.waits.Add(&s.ev)
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
// and looking its field up by key (docs/performance.md#the-seeded-step).
// The task's history record is found by its id in the history's slice (it
// keeps the table row), and its trace line is the writer's kept step and
// tick and the tail kept for the task, its worker and, on a story run,
// its place (trace.Writer.WriteRunTail).
func (s *sink) EmitRun(worker int, task uint64) {
	h := s.hist
	var t *taskHist
	if task < uint64(len(h.dense)) {
		t = h.dense[task]
	}
	if t == nil {
		t = h.runTask(int64(task))
	}
	if t.on != worker+1 {
		h.moved(t, worker)
	}
	h.ran(t)
	if s.tab != nil {
		r := t.row
		if r == nil {
			r = s.tab.task(int64(task))
			t.row = r
		}
		r.ran()
	}
	if s.w != nil && s.err == nil {
		var at string
		if s.story {
			at = s.site(task)
		}
		if task < uint64(len(s.tails)) {
			// A kept tail is for one worker and one place: a task's run
			// lines mostly repeat both (nine in ten of a story run's).
			if r := &s.tails[task]; r.worker == worker+1 && r.tail.At() == at {
				if err := s.w.WriteRunTail(s.step, s.tick, &r.tail); err != nil {
					s.err = err // stored only when set: an interface's two words and their write barrier a step
				}
				return
			}
		}
		s.writeRun(worker, task, at)
	}
}

// writeRun writes the run line of task on worker at at when no tail is
// kept for them: it keeps one, under denseMax.
func (s *sink) writeRun(worker int, task uint64, at string) {
	if task >= denseMax {
		s.err = s.w.WriteRunAt(s.step, s.tick, s.actor(worker), int64(task), at)
		return
	}
	for uint64(len(s.tails)) <= task {
		s.tails = append(s.tails, runTail{})
	}
	r := &s.tails[task]
	r.tail.ResetAt(s.actor(worker), int64(task), at, s.atField(at))
	r.worker = worker + 1
	s.err = s.w.WriteRunTail(s.step, s.tick, &r.tail)
}

// atFieldsMax bounds the sink's cache of encoded places: a run's places
// are its program's ops or Go lines, a few hundred, but a Go body's sites
// are not bounded by the scenario.
const atFieldsMax = 4096

// atField is the at= field's text of place at (trace.AtField), encoded
// once a run for the run lines' tails: a story run remakes a task's tail
// whenever the task moves to another place or worker, one run line in
// ten, and encoding the place was most of that.
func (s *sink) atField(at string) string {
	if f, ok := s.atFields[at]; ok {
		return f
	}
	f := trace.AtField(at)
	if s.atFields == nil {
		s.atFields = map[string]string{}
	}
	if len(s.atFields) < atFieldsMax {
		s.atFields[at] = f
	}
	return f
}

// Site implements driver.SiteSink, and is how the interpreter tells the
// op a task is at: where task is, for its next run and block events.
func (s *sink) Site(task uint64, site string) {
	if task < denseMax {
		for uint64(len(s.sites)) <= task {
			s.sites = append(s.sites, "")
		}
		s.sites[task] = site
		return
	}
	if s.siteMap == nil {
		s.siteMap = map[uint64]string{}
	}
	s.siteMap[task] = site
}

// site is where task is, "" when no one said.
func (s *sink) site(task uint64) string {
	if task < uint64(len(s.sites)) {
		return s.sites[task]
	}
	return s.siteMap[task]
}

// Now implements sched.Clock: the virtual clock, one tick per step plus
// the jumps to the next timer when no worker can act.
func (s *sink) Now() uint64 { return s.tick }

var _ driver.Stepper = (*sink)(nil)
var _ driver.RunSink = (*sink)(nil)
