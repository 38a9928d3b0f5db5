package htmlreport

// The model of a run read from its trace: what the page draws. Build reads
// the events once, in order; nothing depends on map iteration order (the
// maps are indexes, never ranged over), so the same trace gives the same
// model and the same bytes.

import (
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/sim/waits"
	"github.com/cbcsim/cbcsim/trace"
)

// Model is one run, ready to draw.
type Model struct {
	Name    string        // the scenario's name from the header ("trace" when it has none)
	Header  []trace.Field // the header's fields, for the summary
	Version int           // the trace format version
	Steps   uint64        // one past the last step of any event
	Events  int

	Workers   []string // worker actors, "w0", "w1", ... by number
	Tasks     []*Task  // in order of first appearance
	Nurseries []*Nursery
	Slices    []Slice  // in trace order
	Arrows    []Arrow  // in trace order
	ChanOps   []ChanOp // completed channel operations, in trace order

	Outcome string // the outcome event's fields ("outcome=deadlock result=pending"), "" if none
	Finding string // a deadlock or livelock event, as "deadlock live=2"; "" if none
	// Waits explains the unfinished tasks (a deadlock, a livelock, a
	// trace cut short): what each waits on, who could wake it, the
	// wait-for cycle. Package waits reads the same events.
	Waits *waits.Analysis

	taskOf    map[string]int // task id text -> index into Tasks; never ranged over
	nurseryOf map[string]int
	workerOf  map[string]int
	current   []int // per worker, the task it last took or ran, or -1
	open      []int // per worker, the slice in progress, or -1
	lastActor string
}

// Task is one task of the run.
type Task struct {
	ID      string // as the tables write it: "t3"
	Name    string // from its spawn event; "main" for the root
	Parent  int    // index into Model.Tasks, or -1
	Nursery int    // index into Model.Nurseries, or -1
	Spawn   uint64 // the step of its spawn (or first appearance)
	Result  string // its result ("ok:1", "err:Failed"); "" while unfinished
	Done    uint64 // the step of its result
	Blocks  []Block
}

// Block is a span in which a task was blocked.
type Block struct {
	From, To uint64 // To is the step of the wake, or Model.Steps when none came
	On       string // what it waited on: "recv c", "nursery n (n1)"
	Woken    bool
}

// Nursery is one nursery of the run.
type Nursery struct {
	ID      string // "n1"
	Label   string
	Mode    string
	Owner   int    // index into Model.Tasks, or -1
	Open    uint64 // the step it opened
	End     uint64 // the step of its outcome, or Model.Steps
	Outcome string // "success", "child_failed ...", "" while open
	State   string // its last state
}

// Slice is a stretch of consecutive run steps of one task on one worker
// that no other worker's step interrupts: [First, Last] in steps.
type Slice struct {
	Worker, Task int
	First, Last  uint64
}

// Arrow is a spawn (parent to child) or a wake (the waking task, -1 when
// it is not known, to the woken one) at a step.
type Arrow struct {
	Kind     string // "spawn" or "wake"
	Step     uint64
	From, To int // task indexes
}

// ChanOp is a completed channel operation (a chan event): Task sent or
// received on Chan at Step, with Peer (-1 when the event names none).
type ChanOp struct {
	Step       uint64
	Task, Peer int
	Op, Chan   string // "send" or "recv"; the channel's name
	Via        string // "buffer", "handoff", ... as the trace says
}

// Build reads t into a Model.
func Build(t *trace.Trace) *Model {
	m := &Model{
		Name: "trace", Header: t.Header.Fields, Version: t.Version, Events: len(t.Events),
		taskOf: map[string]int{}, nurseryOf: map[string]int{}, workerOf: map[string]int{},
	}
	if f, ok := t.Header.Get("name"); ok {
		m.Name = fieldText(f)
	}
	m.addWorkers(t)
	for i := range t.Events {
		m.event(&t.Events[i])
	}
	m.finish()
	m.Waits = waits.FromEvents(t.Events)
	return m
}

// addWorkers makes a lane for each worker the header counts, and for any
// other worker actor, in the order of their numbers.
func (m *Model) addWorkers(t *trace.Trace) {
	n := 0
	if f, ok := t.Header.Get("workers"); ok && f.IsInt && f.Int > 0 && f.Int <= workersMax {
		n = int(f.Int)
	}
	for i := range t.Events {
		if w, ok := workerNumber(t.Events[i].Actor); ok && w < workersMax {
			n = max(n, w+1)
		}
	}
	for i := range n {
		a := "w" + strconv.Itoa(i)
		m.workerOf[a] = i
		m.Workers = append(m.Workers, a)
		m.current = append(m.current, -1)
		m.open = append(m.open, -1)
	}
}

// workersMax bounds the worker lanes, as the CLI bounds --workers.
const workersMax = 256

func workerNumber(actor string) (int, bool) {
	digits, ok := strings.CutPrefix(actor, "w")
	if !ok || digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n >= 0
}

// event adds one event to the model.
func (m *Model) event(e *trace.Event) {
	m.Steps = max(m.Steps, e.Step+1)
	w, isWorker := m.workerOf[e.Actor]
	task := -1
	if f, ok := get(e, "task"); ok {
		task = m.task(f, e.Step)
	}
	switch e.Kind {
	case trace.KindRun:
		if isWorker && task >= 0 {
			m.run(w, task, e)
		}
	case trace.KindPop, trace.KindGlobal, trace.KindSteal:
		if isWorker {
			m.open[w], m.current[w] = -1, task
		}
	case trace.KindStealFail, trace.KindPark:
		if isWorker {
			m.open[w], m.current[w] = -1, -1
		}
	case trace.KindSpawn:
		m.spawn(e, task)
	case trace.KindBlock:
		m.block(e, task, w, isWorker)
	case trace.KindWake:
		m.wake(e, task, w, isWorker)
	case trace.KindResult:
		m.result(e, task, w, isWorker)
	case trace.KindNursery:
		m.nursery(e, task)
	case trace.KindChan:
		m.chanOp(e, task)
	case trace.KindOutcome:
		m.Outcome = fieldsText(e)
	case trace.KindDeadlock, trace.KindLivelock:
		m.Finding = strings.TrimSpace(e.Kind.String() + " " + fieldsText(e))
	}
	if isWorker {
		m.lastActor = e.Actor
	}
}

// run extends the worker's open slice when the same task ran its previous
// step there and no other worker stepped since; otherwise a new slice
// starts (the task was preempted, or is new on the worker).
func (m *Model) run(w, task int, e *trace.Event) {
	if s := m.open[w]; s >= 0 && m.Slices[s].Task == task && m.lastActor == e.Actor {
		m.Slices[s].Last = e.Step
		return
	}
	m.open[w] = len(m.Slices)
	m.current[w] = task
	m.Slices = append(m.Slices, Slice{Worker: w, Task: task, First: e.Step, Last: e.Step})
}

// task returns the index of the task f names, adding it at step.
func (m *Model) task(f trace.Field, step uint64) int {
	key := fieldText(f)
	if i, ok := m.taskOf[key]; ok {
		return i
	}
	id := key
	if f.IsInt {
		id = "t" + key
	}
	m.taskOf[key] = len(m.Tasks)
	m.Tasks = append(m.Tasks, &Task{ID: id, Parent: -1, Nursery: -1, Spawn: step})
	if len(m.Tasks) == 1 {
		m.Tasks[0].Name = "main" // the driver starts the root before the first event
	}
	return len(m.Tasks) - 1
}

func (m *Model) spawn(e *trace.Event, task int) {
	if task < 0 {
		return
	}
	t := m.Tasks[task]
	t.Spawn = e.Step
	if f, ok := get(e, "name"); ok {
		t.Name = fieldText(f)
	}
	if f, ok := get(e, "parent"); ok {
		t.Parent = m.task(f, e.Step)
		m.Arrows = append(m.Arrows, Arrow{Kind: "spawn", Step: e.Step, From: t.Parent, To: task})
	}
	if f, ok := get(e, "nursery"); ok {
		t.Nursery = m.nurseryIndex(f, e.Step)
	}
}

func (m *Model) block(e *trace.Event, task, w int, isWorker bool) {
	if task < 0 {
		return
	}
	on := ""
	if f, ok := get(e, "on"); ok {
		on = fieldText(f)
	}
	t := m.Tasks[task]
	t.Blocks = append(t.Blocks, Block{From: e.Step, On: on})
	if isWorker && m.open[w] >= 0 && m.Slices[m.open[w]].Task == task {
		m.open[w] = -1 // the task leaves the worker
	}
}

func (m *Model) wake(e *trace.Event, task, w int, isWorker bool) {
	if task < 0 {
		return
	}
	t := m.Tasks[task]
	if n := len(t.Blocks); n > 0 && !t.Blocks[n-1].Woken {
		t.Blocks[n-1].To, t.Blocks[n-1].Woken = e.Step, true
	}
	from := -1
	if isWorker {
		from = m.current[w]
	}
	if from != task {
		m.Arrows = append(m.Arrows, Arrow{Kind: "wake", Step: e.Step, From: from, To: task})
	}
}

func (m *Model) result(e *trace.Event, task, w int, isWorker bool) {
	if task < 0 {
		return
	}
	t := m.Tasks[task]
	if t.Result == "" {
		if f, ok := get(e, "result"); ok {
			t.Result, t.Done = fieldText(f), e.Step
		}
	}
	if isWorker && m.open[w] >= 0 && m.Slices[m.open[w]].Task == task {
		m.open[w] = -1
	}
}

func (m *Model) chanOp(e *trace.Event, task int) {
	if task < 0 {
		return
	}
	op := ChanOp{Step: e.Step, Task: task, Peer: -1}
	for _, f := range []struct {
		key string
		to  *string
	}{{"op", &op.Op}, {"ch", &op.Chan}, {"via", &op.Via}} {
		if v, ok := get(e, f.key); ok {
			*f.to = fieldText(v)
		}
	}
	if v, ok := get(e, "peer"); ok {
		op.Peer = m.task(v, e.Step)
	}
	m.ChanOps = append(m.ChanOps, op)
}

func (m *Model) nurseryIndex(f trace.Field, step uint64) int {
	key := fieldText(f)
	if i, ok := m.nurseryOf[key]; ok {
		return i
	}
	id := key
	if f.IsInt {
		id = "n" + key
	}
	m.nurseryOf[key] = len(m.Nurseries)
	m.Nurseries = append(m.Nurseries, &Nursery{ID: id, Owner: -1, Open: step})
	return len(m.Nurseries) - 1
}

func (m *Model) nursery(e *trace.Event, task int) {
	f, ok := get(e, "nursery")
	if !ok {
		return
	}
	n := m.Nurseries[m.nurseryIndex(f, e.Step)]
	if v, ok := get(e, "label"); ok {
		n.Label = fieldText(v)
	}
	if v, ok := get(e, "mode"); ok {
		n.Mode = fieldText(v)
	}
	if v, ok := get(e, "to"); ok {
		n.State = fieldText(v)
		if _, hasFrom := get(e, "from"); !hasFrom && task >= 0 && n.Owner < 0 {
			n.Owner, n.Open = task, e.Step
		}
	}
	if v, ok := get(e, "outcome"); ok {
		n.Outcome, n.End = fieldText(v), e.Step
		if er, ok := get(e, "error"); ok {
			n.Outcome += " " + fieldText(er)
		}
	}
}

// finish closes the blocks and nurseries the run left open.
func (m *Model) finish() {
	for _, t := range m.Tasks {
		for bi := range t.Blocks {
			if !t.Blocks[bi].Woken {
				t.Blocks[bi].To = m.Steps
			}
		}
	}
	for _, n := range m.Nurseries {
		if n.Outcome == "" {
			n.End = m.Steps
		}
	}
}

// Label is a task's id and name: "t3 slow_success".
func (t *Task) Label() string {
	if t.Name == "" {
		return t.ID
	}
	return t.ID + " " + t.Name
}

func get(e *trace.Event, key string) (trace.Field, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return trace.Field{}, false
}

func fieldText(f trace.Field) string {
	if f.IsInt {
		return strconv.FormatInt(f.Int, 10)
	}
	return f.Str
}

func fieldsText(e *trace.Event) string {
	parts := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		parts = append(parts, f.Key+"="+fieldText(f))
	}
	return strings.Join(parts, " ")
}
