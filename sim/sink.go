package sim

import (
	"strconv"
	"unsafe"

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
	// story is a version-3 seeded run's: its block events carry the op
	// or Go line of the task (at=, from sites), its run events too where
	// the task's place changed, and waits reads every event but the run
	// events to explain a run that ends stuck.
	story bool
	// atEvery is a story run that writes the place on every run line,
	// as version 3 did before a line said it only when it changed: a
	// replay of such a trace (ModeSeededAtEvery).
	atEvery bool
	sites   []string          // by task id under denseMax: where the task is (Site)
	siteMap map[uint64]string // the same, for larger ids
	siteRan map[uint64]string // for ids from denseMax: the place a task's last run line said (runTail.at)
	waits   *waits.Builder
	// waitsOn: the events go to waits as they come. Off, a run that ends
	// stuck is run again with it on, for its waits (Execute).
	waitsOn  bool
	storyBuf []trace.Field // Emit's fields with at= appended
	// decides is each worker's decide lines' texts, by decision and
	// answer (EmitDecide); decideBuf the fields of one that goes
	// through Emit.
	decides   [][decideHeads]trace.HeadInt
	decideBuf []trace.Field
	places    [placeSlots]trace.Place // place's cache of encoded at= fields
	// decisions counts the policy decisions (decide events): at one
	// worker the only choices a seed makes (Run.Decisions).
	decisions int64
}

// runTail is a task's run line tail, "ACTOR run task=ID\n" (on an atEvery
// run with " at=AT"), encoded once for the worker that last ran it and the
// place its last run line left it at (sink.EmitRun).
type runTail struct {
	tail   trace.RunTail // without a place, but on an atEvery run
	worker int           // the worker tail is for, plus one; 0 before the first
	at     string        // the task's place as its last run line left it
	moved  bool          // the task is at another place than at (Site)
}

func newSink(workers int, w *trace.Writer) *sink {
	s := &sink{w: w, hist: newHistory(), waits: waits.New(), waitsOn: true}
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
	if (kind == trace.KindBlock || kind == trace.KindResult) && len(fields) > 0 {
		fields = s.emitTask(kind, fields)
	}
	s.ev = trace.Event{Step: s.step, Tick: s.tick, Actor: s.actor(worker), Kind: kind, Fields: fields}
	if kind == trace.KindDecide {
		s.decisions++
	}
	if s.waitsOn && waits.Wants(kind) {
		s.waits.Add(&s.ev)
	}
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

// EmitDecide implements driver's decide path (link.DecideSink): what Emit
// does with the decide event of d's answer yes about task, without its
// fields. The history only counts it (history.add), and neither the
// tables nor the waits take it in; its line is written from a text kept
// per worker, decision and answer (trace.HeadInt). While the history
// follows a leaving task (which reads every event), or for a decision or
// worker past the kept texts, it goes through Emit.
func (s *sink) EmitDecide(worker int, d driver.Decision, yes bool, task uint64) {
	i := int(d) << 1
	if yes {
		i |= 1
	}
	if s.hist.leaving > 0 || uint(worker) >= uint(len(s.actors)) || i >= decideHeads {
		s.decideBuf = append(s.decideBuf[:0], d.Field(yes), trace.I(trace.KeyTask, int64(task)))
		s.Emit(worker, trace.KindDecide, s.decideBuf)
		return
	}
	s.decisions++
	s.hist.n++ // history.add of an event it only counts
	s.counted = true
	if s.w != nil && s.err == nil {
		for len(s.decides) <= worker {
			s.decides = append(s.decides, [decideHeads]trace.HeadInt{})
		}
		h := &s.decides[worker][i]
		if *h == (trace.HeadInt{}) {
			*h = trace.NewHeadInt(s.actors[worker], trace.KindDecide, []trace.Field{d.Field(yes)}, trace.KeyTask)
		}
		s.err = s.w.WriteHeadInt(s.step, s.tick, h, int64(task))
	}
}

// decideHeads is the room of a worker's kept decide texts: two answers of
// decisions up to 7.
const decideHeads = 16

// emitTask is Emit's care of a block or result event: a story run's
// block says where its task waits, and an ended task with a large id
// loses its places. Out of Emit, so that the code of the commoner events
// stays short (the instruction cache). It returns the fields to write.
//
//go:noinline
func (s *sink) emitTask(kind trace.Kind, fields []trace.Field) []trace.Field {
	if kind == trace.KindBlock && s.story {
		if at := s.site(uint64(fields[0].Int)); at != "" {
			s.storyBuf = append(append(s.storyBuf[:0], fields...), trace.S(trace.KeyAt, at))
			fields = s.storyBuf
		}
	}
	if kind == trace.KindResult && uint64(fields[0].Int) >= denseMax {
		// An ended task's places are not needed again: the maps of the
		// large ids keep only the tasks that may still run.
		delete(s.siteMap, uint64(fields[0].Int))
		delete(s.siteRan, uint64(fields[0].Int))
	}
	return fields
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
		// A kept tail is for one worker and one place, and a task's run
		// lines mostly repeat both (nine in ten of a story run's).
		if task < uint64(len(s.tails)) {
			if r := &s.tails[task]; r.worker == worker+1 && !r.moved {
				if err := s.w.WriteRunTail(s.step, s.tick, &r.tail); err != nil {
					s.err = err // stored only when set: an interface's two words and their write barrier a step
				}
				return
			}
		}
		s.writeRun(worker, task)
	}
}

// writeRun writes the run line of task on worker when the kept tail is
// not that line's: the task moved to another worker or place, or has no
// tail yet (one is kept under denseMax). On a story run the line has an
// at= field when the place changed (an explicit at="" when the task left
// its places), or on an atEvery run whenever the task has a place; the
// kept tail then goes on without it.
func (s *sink) writeRun(worker int, task uint64) {
	at := ""
	if s.story {
		at = s.site(task)
	}
	if task >= denseMax {
		s.writeRunLarge(worker, task, at)
		return
	}
	for uint64(len(s.tails)) <= task {
		s.tails = append(s.tails, runTail{})
	}
	r := &s.tails[task]
	changed := r.at != at // a new tail's place is "", as a task's is before its first op
	r.at, r.moved = at, false
	if s.atEvery {
		// The tail carries the place, so it is remade when either moves.
		if r.worker != worker+1 || changed {
			r.tail.ResetAt(s.actor(worker), int64(task), at)
			r.worker = worker + 1
		}
		s.err = s.w.WriteRunTail(s.step, s.tick, &r.tail)
		return
	}
	if r.worker != worker+1 {
		r.tail.ResetAt(s.actor(worker), int64(task), "")
		r.worker = worker + 1
	}
	if changed {
		s.err = s.w.WriteRunTailAt(s.step, s.tick, &r.tail, s.place(at))
		return
	}
	s.err = s.w.WriteRunTail(s.step, s.tick, &r.tail)
}

// placeSlots is the size of the sink's cache of encoded places: more than
// most programs' places.
const (
	placeBits  = 6
	placeSlots = 1 << placeBits
)

// writeRunLarge is writeRun for a task id past denseMax, which keeps no
// tail: its line is encoded afresh, and its place is kept in a map. Out
// of writeRun, so that the code of the common lines stays short (the
// instruction cache).
//
//go:noinline
func (s *sink) writeRunLarge(worker int, task uint64, at string) {
	changed := at != s.siteRan[task]
	if at == "" {
		delete(s.siteRan, task)
	} else {
		if s.siteRan == nil {
			s.siteRan = map[uint64]string{}
		}
		s.siteRan[task] = at
	}
	switch {
	case s.atEvery:
		t := trace.NewRunTailAt(s.actor(worker), int64(task), at)
		s.err = s.w.WriteRunTail(s.step, s.tick, &t)
	case changed:
		t := trace.NewRunTail(s.actor(worker), int64(task))
		p := trace.PlaceOf(at)
		s.err = s.w.WriteRunTailAt(s.step, s.tick, &t, &p)
	default:
		t := trace.NewRunTail(s.actor(worker), int64(task))
		s.err = s.w.WriteRunTail(s.step, s.tick, &t)
	}
}

// place is at with its at= field encoded (trace.PlaceOf), from a small
// cache indexed by the address of at's bytes: encoding the place was most
// of what the run line of a task that moved to another place cost, and a
// task's places are the interpreter's op paths (or Go lines), the same
// strings at each visit. The address only picks the slot: a slot holding
// another string, or the same text elsewhere, is encoded again, so the
// line never depends on it.
func (s *sink) place(at string) *trace.Place {
	if at == "" {
		return &noPlace // the cache's empty slots hold none
	}
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(at)))) ^ uint64(len(at))
	p := &s.places[(h*0xbf58476d1ce4e5b9)>>(64-placeBits)]
	if p.String() != at {
		*p = trace.PlaceOf(at)
	}
	return p
}

// noPlace is the place of a task that left its places, at="". Read only.
var noPlace = trace.PlaceOf("")

// Site implements driver.SiteSink, and is how the interpreter tells the
// op a task is at: where task is, for its next run and block events.
func (s *sink) Site(task uint64, site string) {
	if task < denseMax {
		for uint64(len(s.sites)) <= task {
			s.sites = append(s.sites, "")
		}
		s.sites[task] = site
		if task < uint64(len(s.tails)) {
			// Moved unless the same string: the same text elsewhere
			// takes writeRun's slower path, which compares the text.
			r := &s.tails[task]
			r.moved = len(site) != len(r.at) || unsafe.StringData(site) != unsafe.StringData(r.at)
		}
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
var _ driver.DecideSink = (*sink)(nil)
