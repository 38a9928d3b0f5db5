package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// history is the event log digested per task and per nursery, as the run
// goes: the invariants read it afterwards instead of a list of events.
// Each event costs O(1) amortised here (a cleanup that runs out of order
// costs the length of its task's cleanup stack, once: after the first
// such event the stack is no longer tracked).
type history struct {
	tasks     map[int64]*taskHist
	nurseries map[int64]*nurseryHist
	order     []int64     // nursery ids in open order
	n         int         // events seen
	runs      int         // run events seen: what happened in one step has none between
	last      *taskHist   // the task of the last run event: runs come in streaks
	dense     []*taskHist // tasks[id] for ids under denseMax, nil where unseen
	leaving   int         // tasks whose leaving is being followed (taskHist.leaving)
	// twice is the first run of a task on a worker while another was in
	// the middle of it (InvExclusive), "" while there is none.
	twice string
}

type taskHist struct {
	id        int64
	nursery   int64 // 0 for the root
	spawnAt   int   // event index
	firstRun  int   // -1 if it never ran
	markAt    int   // -1 if never marked
	markWhy   string
	resultAt  int // -1 if no result
	result    string
	results   int // how many result events (must be 1)
	lastEvent int
	pushed    []int64 // cleanup seqs pushed and not yet run
	lifoBad   string
	// unpaid is the index of the task's last budget exhaustion that no
	// recharge and no wait for one followed, -1 if none (InvExhaustion).
	unpaid int
	owned  []int64 // nurseries it opened, in open order
	// leaving is the nursery the task owns that has just ended
	// child_failed without catch, until the task's next own act shows
	// that Task.Nursery returned an error; wentOn is the first act that
	// showed otherwise.
	leaving *nurseryHist
	wentOn  string
	// on is the worker in the middle of the task, plus one: set by its
	// run events (sink.EmitRun), cleared when it yields, blocks or ends.
	on int
	// row is the task's row in the sink's tables, kept here once a run
	// event looked it up, so that a run event finds both with one lookup
	// (sink.EmitRun).
	row *taskRowHist
}

type nurseryHist struct {
	id       int64
	label    string
	catch    bool // a child error does not propagate to the owner
	owner    int64
	ownedAt  int // index in the owner's owned list
	openAt   int
	state    nursery.State
	termAt   int // -1 until terminal
	outcome  string
	errText  string
	children []int64
	cancelAt int // first transition to Cancelling, -1 if none
	reason   string
	mode     string
	bodyAt   int // the scope cancel of the owner's code in the body, -1 if none
	// cancelRuns and bodyRuns are history.runs at cancelAt and bodyAt:
	// two events with the same count happened in one step.
	cancelRuns, bodyRuns int
	badTrans             string
	afterTerm            string
}

// field returns the event's field named key. It returns a pointer into
// the event, not a copy: copying each Field (56 bytes) as the loop went
// was a sixth of a seeded step (docs/performance.md#the-seeded-step).
func field(e *trace.Event, key string) (*trace.Field, bool) {
	for i := range e.Fields {
		if f := &e.Fields[i]; f.Key == key {
			return f, true
		}
	}
	return &noField, false
}

// noField is what field returns for a missing key: the zero Field, never
// written.
var noField trace.Field

func intField(e *trace.Event, key string) int64 {
	f, _ := field(e, key)
	return f.Int
}

func strField(e *trace.Event, key string) string {
	f, _ := field(e, key)
	return f.Str
}

func newHistory() *history {
	return &history{tasks: map[int64]*taskHist{}, nurseries: map[int64]*nurseryHist{}}
}

// task returns the record of task id, created on first sight. The seeded
// scheduler numbers tasks densely from 1, so ids up to denseMax are also
// kept in a slice: consecutive run events are of different tasks as often
// as not (the driver picks a worker at random), and the map lookup was a
// thirtieth of a seeded step (docs/performance.md#the-seeded-step). The map
// stays the
// table the checkers read.
func (h *history) task(id int64) *taskHist {
	if uint64(id) < uint64(len(h.dense)) {
		if t := h.dense[id]; t != nil {
			return t
		}
	}
	t := h.tasks[id]
	if t == nil {
		t = &taskHist{id: id, firstRun: -1, markAt: -1, resultAt: -1, spawnAt: -1, unpaid: -1}
		h.tasks[id] = t
	}
	if id >= 0 && id < denseMax {
		for int64(len(h.dense)) <= id {
			h.dense = append(h.dense, nil)
		}
		h.dense[id] = t
	}
	return t
}

// denseMax bounds history.dense: MaxTasks tasks and their ids, with room.
const denseMax = 4 * MaxTasks

// add takes in the next event. The simulator feeds it every event as the
// run goes, so no event list has to be kept.
func (h *history) add(e *trace.Event) {
	i := h.n
	h.n++
	if h.leaving > 0 && e.Kind != trace.KindRun {
		h.follow(e)
	}
	switch e.Kind {
	case trace.KindRun:
		h.run(intField(e, trace.KeyTask), i)
	case trace.KindSpawn:
		t := h.task(intField(e, trace.KeyTask))
		t.nursery, t.spawnAt = intField(e, trace.KeyNursery), i
		if n := h.nurseries[t.nursery]; n != nil {
			n.children = append(n.children, t.id)
		}
	case trace.KindCancel:
		if nid, scoped := field(e, trace.KeyNursery); scoped {
			// The owner's code inside the nursery's body is cancelled
			// (docs/trace-format.md), not the owner itself.
			if n := h.nurseries[nid.Int]; n != nil && n.bodyAt < 0 {
				n.bodyAt, n.bodyRuns = i, h.runs
			}
			break
		}
		t := h.task(intField(e, trace.KeyTask))
		if t.markAt < 0 {
			t.markAt, t.markWhy = i, strField(e, trace.KeyReason)
		}
	case trace.KindYield, trace.KindBlock:
		t := h.task(intField(e, trace.KeyTask))
		t.on = 0
		if e.Kind == trace.KindBlock && strField(e, trace.KeyOn) == "recharge" {
			t.unpaid = -1 // waits for a supervisor: a recharge, or a cancellation, ends it
		}
	case trace.KindExhausted:
		h.task(intField(e, trace.KeyTask)).unpaid = i
	case trace.KindObserve:
		// The task observed a cancellation where it ran out of budget:
		// the operation it could not pay for is not done, and the
		// cancellation (not a recharge) ends the exhaustion. Leaving a
		// cancelled scope, it may then end ok.
		h.task(intField(e, trace.KeyTask)).unpaid = -1
	case trace.KindRecharge:
		if _, own := field(e, trace.KeyFrom); own { // not a supervisor's grant to a target
			h.task(intField(e, trace.KeyTask)).unpaid = -1
		}
	case trace.KindResult:
		t := h.task(intField(e, trace.KeyTask))
		t.on = 0
		t.results++
		if t.resultAt < 0 {
			t.resultAt, t.result = i, strField(e, trace.KeyResult)
		}
	case trace.KindCleanup:
		h.cleanup(e)
	case trace.KindNursery:
		h.nursery(e, i)
	}
}

// ran takes in a run event of the task whose record is t, which the
// caller found (sink.EmitRun, which also notes the worker: moved):
// addRun without the lookup.
func (h *history) ran(t *taskHist) {
	i := h.n
	h.n++
	h.runs++
	if t.firstRun < 0 {
		t.firstRun = i
	}
	t.lastEvent = i
}

// moved notes that t runs on worker, which was not in the middle of it:
// a break of InvExclusive if another was. Out of ran, which stays small
// enough to be inlined in the sink's EmitRun.
func (h *history) moved(t *taskHist, worker int) {
	if t.on != 0 && h.twice == "" {
		h.ranTwice(t, worker)
	}
	t.on = worker + 1
}

// ranTwice notes the first break of InvExclusive: t runs on worker while
// another is in the middle of it. Out of moved, so that moved stays
// short (the instruction cache).
//
//go:noinline
func (h *history) ranTwice(t *taskHist, worker int) {
	h.twice = fmt.Sprintf("task t%d ran on w%d at event %d while w%d was in the middle of it", t.id, worker, h.n, t.on-1)
}

// run takes in a run event of task id, the event's index i.
func (h *history) run(id int64, i int) {
	h.runs++
	t := h.runTask(id)
	if t.firstRun < 0 {
		t.firstRun = i
	}
	t.lastEvent = i
}

// runTask returns the record of task id for a run event: the last run
// event's when it is the same task (runs come in streaks, and an id past
// denseMax is not in the slice), else task's.
func (h *history) runTask(id int64) *taskHist {
	t := h.last
	if t == nil || t.id != id {
		t = h.task(id)
		h.last = t
	}
	return t
}

// cleanup tracks each task's cleanup stack: a cleanup that runs must be
// the one pushed last. After the first that is not, the task's report is
// written and its stack is no longer kept, so a scheduler that runs every
// cleanup out of order costs one pass, not one per cleanup.
func (h *history) cleanup(e *trace.Event) {
	t := h.task(intField(e, trace.KeyTask))
	if t.lifoBad != "" {
		return
	}
	seq := intField(e, trace.KeySeq)
	if strField(e, trace.KeyDo) == "push" {
		t.pushed = append(t.pushed, seq)
		return
	}
	if len(t.pushed) == 0 || t.pushed[len(t.pushed)-1] != seq {
		t.lifoBad = fmt.Sprintf("task t%d ran cleanup #%d (%s) while #%v were pushed later", t.id, seq, strField(e, trace.KeyLabel), t.pushed)
		t.pushed = nil
		return
	}
	t.pushed = t.pushed[:len(t.pushed)-1]
}

// nursery records an open, a state transition or an end.
func (h *history) nursery(e *trace.Event, i int) {
	id := intField(e, trace.KeyNursery)
	n := h.nurseries[id]
	if _, ok := field(e, trace.KeyMode); ok { // open
		n = &nurseryHist{id: id, label: strField(e, trace.KeyLabel), owner: intField(e, trace.KeyTask), openAt: i,
			state: nursery.Open, termAt: -1, cancelAt: -1, bodyAt: -1, catch: strField(e, trace.KeyCatch) == "true",
			mode: strField(e, trace.KeyMode)}
		h.nurseries[id] = n
		h.order = append(h.order, id)
		o := h.task(n.owner)
		n.ownedAt = len(o.owned)
		o.owned = append(o.owned, id)
		return
	}
	if n == nil {
		return
	}
	if out, ok := field(e, trace.KeyOutcome); ok {
		n.outcome, n.errText = out.Str, strField(e, trace.KeyError)
		if n.termAt < 0 {
			n.termAt = i
			if o := h.tasks[n.owner]; n.passesError(o) && o.leaving == nil && o.wentOn == "" {
				o.leaving = n
				h.leaving++
			}
		}
		return
	}
	from, to := parseState(strField(e, trace.KeyFrom)), parseState(strField(e, trace.KeyTo))
	if n.state.Terminal() && n.afterTerm == "" {
		n.afterTerm = fmt.Sprintf("nursery %s (n%d) moved %s -> %s after it was terminal", n.label, n.id, from, to)
	}
	if (from != n.state || !nursery.Allowed(from, to)) && n.badTrans == "" {
		n.badTrans = fmt.Sprintf("nursery %s (n%d) moved %s -> %s while in %s", n.label, n.id, from, to, n.state)
	}
	n.state = to
	if to == nursery.Cancelling && n.cancelAt < 0 {
		n.cancelAt, n.reason, n.cancelRuns = i, strField(e, trace.KeyReason), h.runs
	}
}

// passesError reports whether n ended with a child error its owner o must
// fail with: child_failed, and n passes errors on (passesOn).
func (n *nurseryHist) passesError(o *taskHist) bool {
	return n.outcome == nursery.ChildFailed.String() && n.passesOn(o)
}

// passesOn reports whether a child error of n must reach its owner o: n
// does not catch, and was not opened by a cleanup of an owner already
// cancelled. A task opens a nursery after its cancel mark only in a
// cleanup (elsewhere the nursery's entry observes the mark), and a
// cleanup's error gives way to a cancelled result
// (docs/semantics.md#cancellation-and-unwinding).
func (n *nurseryHist) passesOn(o *taskHist) bool {
	return !n.catch && !(o.markAt >= 0 && n.openAt > o.markAt)
}

// follow watches what a task does first after a nursery of its own ended
// with an error it must pass on (taskHist.leaving): Task.Nursery returned
// that error, so the task leaves. Leaving shows as a cleanup running, an
// event of an enclosing nursery of its own (cancelled by the exit, or
// awaited), a wait for one, or an error result. Going on shows as an act
// of its body: a spawn, a nursery opened, a cleanup pushed, a yield, a
// block on anything but a nursery, a cancellation observed, a log, a budget
// event, or a result that is not an error. Scheduling events (run, pop,
// wake, a cancel mark set by another task) show neither. O(1) an event.
func (h *history) follow(e *trace.Event) {
	id, act := intField(e, trace.KeyTask), ""
	switch e.Kind {
	case trace.KindSpawn:
		id, act = intField(e, trace.KeyParent), fmt.Sprintf("spawned t%d", intField(e, trace.KeyTask))
	case trace.KindNursery:
		if _, open := field(e, trace.KeyMode); open {
			act = "opened nursery " + strField(e, trace.KeyLabel)
			break
		}
		n := h.nurseries[intField(e, trace.KeyNursery)]
		if n == nil {
			return
		}
		id = n.owner
	case trace.KindCleanup:
		if strField(e, trace.KeyDo) == "push" {
			act = "pushed a cleanup"
		}
	case trace.KindBlock:
		if on := strField(e, "on"); !strings.HasPrefix(on, "nursery ") {
			act = "blocked on " + on
		}
	case trace.KindResult:
		if r, err := nursery.ParseResult(strField(e, trace.KeyResult)); err == nil && !r.IsError() {
			act = "ended " + strField(e, trace.KeyResult)
		}
	case trace.KindYield, trace.KindObserve, trace.KindLog, trace.KindExhausted, trace.KindRecharge:
		act = e.Kind.String()
	default:
		return
	}
	t := h.tasks[id]
	if t == nil || t.leaving == nil {
		return
	}
	if act != "" {
		n := t.leaving
		t.wentOn = fmt.Sprintf("owner t%d %s right after its nursery %s (n%d) ended child_failed with %q: Task.Nursery returned no error",
			t.id, act, n.label, n.id, n.errText)
	}
	t.leaving = nil
	h.leaving--
}

func parseState(s string) nursery.State {
	for st := nursery.Open; st <= nursery.Cancelled; st++ {
		if st.String() == s {
			return st
		}
	}
	return 255
}

// ids returns the map's keys in ascending order, so that the first broken
// invariant reported is the same on every run.
func ids[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
