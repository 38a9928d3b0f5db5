package sim

import (
	"fmt"
	"slices"

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
	order     []int64   // nursery ids in open order
	n         int       // events seen
	last      *taskHist // the task of the last run event: runs come in streaks
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
	owned     []int64 // nurseries it opened, in open order
}

type nurseryHist struct {
	id        int64
	label     string
	owner     int64
	ownedAt   int // index in the owner's owned list
	openAt    int
	state     nursery.State
	termAt    int // -1 until terminal
	outcome   string
	errText   string
	children  []int64
	cancelAt  int // first transition to Cancelling, -1 if none
	reason    string
	badTrans  string
	afterTerm string
}

func field(e *trace.Event, key string) (trace.Field, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return trace.Field{}, false
}

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

func (h *history) task(id int64) *taskHist {
	t := h.tasks[id]
	if t == nil {
		t = &taskHist{id: id, firstRun: -1, markAt: -1, resultAt: -1, spawnAt: -1}
		h.tasks[id] = t
	}
	return t
}

// add takes in the next event. The simulator feeds it every event as the
// run goes, so no event list has to be kept.
func (h *history) add(e *trace.Event) {
	i := h.n
	h.n++
	switch e.Kind {
	case trace.KindRun:
		h.run(e, i)
	case trace.KindSpawn:
		t := h.task(intField(e, trace.KeyTask))
		t.nursery, t.spawnAt = intField(e, trace.KeyNursery), i
		if n := h.nurseries[t.nursery]; n != nil {
			n.children = append(n.children, t.id)
		}
	case trace.KindCancel:
		t := h.task(intField(e, trace.KeyTask))
		if t.markAt < 0 {
			t.markAt, t.markWhy = i, strField(e, trace.KeyReason)
		}
	case trace.KindResult:
		t := h.task(intField(e, trace.KeyTask))
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

// run is the hot path: one run event per step, mostly the same task.
func (h *history) run(e *trace.Event, i int) {
	id := intField(e, trace.KeyTask)
	t := h.last
	if t == nil || t.id != id {
		t = h.task(id)
		h.last = t
	}
	if t.firstRun < 0 {
		t.firstRun = i
	}
	t.lastEvent = i
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
			state: nursery.Open, termAt: -1, cancelAt: -1}
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
		n.cancelAt, n.reason = i, strField(e, trace.KeyReason)
	}
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
