package sim

import (
	"fmt"
	"sort"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// The invariants checked after every run, by name. Each is checked on the
// recorded events (seeded mode), so a scheduler bug that the final state
// would hide still shows up.
const (
	InvNoOrphan        = "no-orphan"
	InvBarrier         = "completion-barrier"
	InvLIFOCleanup     = "lifo-cleanup"
	InvInnerFirst      = "inner-before-outer"
	InvFirstError      = "first-error-wins"
	InvErrorOverCancel = "error-outranks-cancel"
	InvTerminal        = "terminal-states-final"
	InvSpawnOrder      = "results-in-spawn-order"
	InvQueuedCancel    = "cancelled-in-queue-never-runs"
	InvTransitive      = "transitive-cancellation"
	InvNoCrash         = "scheduler-no-panic"
)

// history is the event log digested per task and per nursery.
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
	owned     []int64 // nurseries it opened
}

type nurseryHist struct {
	id        int64
	label     string
	owner     int64
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
	task := h.task
	if e.Kind == trace.KindRun {
		// The hot path: one run event per step, mostly the same task.
		id := intField(e, "task")
		t := h.last
		if t == nil || t.id != id {
			t = task(id)
			h.last = t
		}
		if t.firstRun < 0 {
			t.firstRun = i
		}
		t.lastEvent = i
		return
	}
	switch e.Kind {
	case trace.KindSpawn:
		t := task(intField(e, "task"))
		t.nursery, t.spawnAt = intField(e, "nursery"), i
		if n := h.nurseries[t.nursery]; n != nil {
			n.children = append(n.children, t.id)
		}
	case trace.KindCancel:
		t := task(intField(e, "task"))
		if t.markAt < 0 {
			t.markAt, t.markWhy = i, strField(e, "reason")
		}
	case trace.KindResult:
		t := task(intField(e, "task"))
		t.results++
		if t.resultAt < 0 {
			t.resultAt, t.result = i, strField(e, "result")
		}
	case trace.KindCleanup:
		t := task(intField(e, "task"))
		seq := intField(e, "seq")
		if strField(e, "do") == "push" {
			t.pushed = append(t.pushed, seq)
			break
		}
		if len(t.pushed) == 0 || t.pushed[len(t.pushed)-1] != seq {
			if t.lifoBad == "" {
				t.lifoBad = fmt.Sprintf("task t%d ran cleanup #%d (%s) while #%v were pushed later", t.id, seq, strField(e, "label"), t.pushed)
			}
			for j, s := range t.pushed {
				if s == seq {
					t.pushed = append(t.pushed[:j], t.pushed[j+1:]...)
					break
				}
			}
			break
		}
		t.pushed = t.pushed[:len(t.pushed)-1]
	case trace.KindNursery:
		id := intField(e, "nursery")
		n := h.nurseries[id]
		if _, ok := field(e, "mode"); ok { // open
			n = &nurseryHist{id: id, label: strField(e, "label"), owner: intField(e, "task"), openAt: i,
				state: nursery.Open, termAt: -1, cancelAt: -1}
			h.nurseries[id] = n
			h.order = append(h.order, id)
			task(n.owner).owned = append(task(n.owner).owned, id)
			break
		}
		if n == nil {
			break
		}
		if out, ok := field(e, "outcome"); ok {
			n.outcome, n.errText = out.Str, strField(e, "error")
			if n.termAt < 0 {
				n.termAt = i
			}
			break
		}
		from, to := parseState(strField(e, "from")), parseState(strField(e, "to"))
		if n.state.Terminal() && n.afterTerm == "" {
			n.afterTerm = fmt.Sprintf("nursery %s (n%d) moved %s -> %s after it was terminal", n.label, n.id, from, to)
		}
		if (from != n.state || !nursery.Allowed(from, to)) && n.badTrans == "" {
			n.badTrans = fmt.Sprintf("nursery %s (n%d) moved %s -> %s while in %s", n.label, n.id, from, to, n.state)
		}
		n.state = to
		if to == nursery.Cancelling && n.cancelAt < 0 {
			n.cancelAt, n.reason = i, strField(e, "reason")
		}
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
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// checkInvariants checks every invariant on the run's recorded events.
func checkInvariants(run *Run, h *history) []Check {
	finished := run.Outcome != OutcomeDeadlock && run.Outcome != OutcomeLivelock
	var checks []Check
	add := func(name, bad string) {
		checks = append(checks, Check{Kind: "invariant", Name: name, OK: bad == "", Detail: bad})
	}
	add(InvNoCrash, run.Crash)
	finished = finished && run.Crash == ""

	// No orphan: every task but the root was spawned into a nursery that
	// exists, and (when the run finished) every task has a result.
	bad := ""
	for _, id := range ids(h.tasks) {
		t := h.tasks[id]
		if id != 1 && (t.spawnAt < 0 || h.nurseries[t.nursery] == nil) && bad == "" {
			bad = fmt.Sprintf("task t%d belongs to no nursery", id)
		}
		if finished && t.resultAt < 0 && bad == "" {
			bad = fmt.Sprintf("task t%d never finished though the run did", id)
		}
	}
	add(InvNoOrphan, bad)

	// Completion barrier: a nursery is terminal only after all its children
	// finished, and it is terminal when the run finished.
	bad = ""
	for _, id := range h.order {
		n := h.nurseries[id]
		if finished && n.termAt < 0 && bad == "" {
			bad = fmt.Sprintf("nursery %s (n%d) never ended though the run did", n.label, n.id)
		}
		for _, c := range n.children {
			ct := h.tasks[c]
			if n.termAt >= 0 && (ct.resultAt < 0 || ct.resultAt > n.termAt) && bad == "" {
				bad = fmt.Sprintf("nursery %s (n%d) ended before its child t%d finished", n.label, n.id, c)
			}
		}
		if n.termAt >= 0 {
			if o := h.tasks[n.owner]; o.resultAt >= 0 && o.resultAt < n.termAt && bad == "" {
				bad = fmt.Sprintf("owner t%d of nursery %s (n%d) finished before the nursery ended", o.id, n.label, n.id)
			}
		}
	}
	add(InvBarrier, bad)

	// LIFO cleanup per task.
	bad = ""
	for _, id := range ids(h.tasks) {
		if t := h.tasks[id]; t.lifoBad != "" {
			bad = t.lifoBad
			break
		}
		if t := h.tasks[id]; finished && len(t.pushed) > 0 {
			bad = fmt.Sprintf("task t%d finished with cleanups %v never run", id, t.pushed)
			break
		}
	}
	add(InvLIFOCleanup, bad)

	// Inner before outer: a nursery opened by a child of N, or by N's owner
	// while N was open, ends before N.
	bad = ""
	for _, id := range h.order {
		n := h.nurseries[id]
		for _, c := range n.children {
			for _, inner := range h.tasks[c].owned {
				in := h.nurseries[inner]
				if n.termAt >= 0 && (in.termAt < 0 || in.termAt > n.termAt) && bad == "" {
					bad = fmt.Sprintf("inner nursery %s (n%d) ended after outer %s (n%d)", in.label, in.id, n.label, n.id)
				}
			}
		}
		for _, other := range h.tasks[n.owner].owned {
			in := h.nurseries[other]
			if in.id != n.id && in.openAt > n.openAt && (n.termAt < 0 || in.openAt < n.termAt) {
				if n.termAt >= 0 && (in.termAt < 0 || in.termAt > n.termAt) && bad == "" {
					bad = fmt.Sprintf("inner nursery %s (n%d) ended after outer %s (n%d)", in.label, in.id, n.label, n.id)
				}
			}
		}
	}
	add(InvInnerFirst, bad)

	// First error wins, and an error outranks a cancellation.
	badFirst, badRank := "", ""
	for _, id := range h.order {
		n := h.nurseries[id]
		if n.termAt < 0 {
			continue
		}
		first, firstAt := "", -1
		for _, c := range n.children {
			ct := h.tasks[c]
			r, err := nursery.ParseResult(ct.result)
			if err == nil && r.IsError() && (firstAt < 0 || ct.resultAt < firstAt) {
				first, firstAt = r.ErrorText(), ct.resultAt
			}
		}
		if firstAt >= 0 && n.errText != first && badFirst == "" {
			badFirst = fmt.Sprintf("nursery %s (n%d) reports error %q but the first child error was %q", n.label, n.id, n.errText, first)
		}
		if firstAt >= 0 && n.outcome != nursery.ChildFailed.String() && badRank == "" {
			badRank = fmt.Sprintf("nursery %s (n%d) ended %s though a child failed (%s)", n.label, n.id, n.outcome, first)
		}
	}
	add(InvFirstError, badFirst)
	add(InvErrorOverCancel, badRank)

	// Terminal states never change: no transition out of a terminal state,
	// only allowed transitions, no task finishing twice or running after
	// its result.
	bad = ""
	for _, id := range h.order {
		n := h.nurseries[id]
		if n.afterTerm != "" {
			bad = n.afterTerm
		} else if n.badTrans != "" {
			bad = n.badTrans
		}
		if bad != "" {
			break
		}
	}
	if bad == "" {
		for _, id := range ids(h.tasks) {
			t := h.tasks[id]
			if t.results > 1 {
				bad = fmt.Sprintf("task t%d finished %d times", id, t.results)
				break
			}
			if t.resultAt >= 0 && t.lastEvent > t.resultAt {
				bad = fmt.Sprintf("task t%d ran after it finished", id)
				break
			}
		}
	}
	add(InvTerminal, bad)

	// Results in spawn order: the nursery's per-child results are its
	// children's results in the order they were spawned.
	add(InvSpawnOrder, checkSpawnOrder(run, h))

	// A task cancelled while queued never runs.
	bad = ""
	for _, id := range ids(h.tasks) {
		t := h.tasks[id]
		if t.markAt >= 0 && t.firstRun >= 0 && t.markAt < t.firstRun {
			bad = fmt.Sprintf("task t%d was marked cancelled (%s) before it started and ran anyway", id, t.markWhy)
			break
		}
	}
	add(InvQueuedCancel, bad)

	// Transitive cancellation: when a task is marked, every nursery it has
	// open goes to Cancelling, keeping the first reason.
	bad = ""
	for _, id := range ids(h.tasks) {
		t := h.tasks[id]
		if t.markAt < 0 {
			continue
		}
		for _, nid := range t.owned {
			n := h.nurseries[nid]
			openAtMark := n.openAt < t.markAt && (n.termAt < 0 || n.termAt > t.markAt)
			if !openAtMark {
				continue
			}
			switch {
			case n.cancelAt < 0:
				bad = fmt.Sprintf("task t%d was cancelled (%s) but its open nursery %s (n%d) was never cancelled", id, t.markWhy, n.label, n.id)
			case n.cancelAt > t.markAt && n.reason != t.markWhy:
				bad = fmt.Sprintf("nursery %s (n%d) was cancelled with %s, not its owner's reason %s", n.label, n.id, n.reason, t.markWhy)
			}
			if bad != "" {
				break
			}
		}
		if bad != "" {
			break
		}
	}
	add(InvTransitive, bad)
	return checks
}

// checkSpawnOrder compares each nursery's per-child results with its
// children's own results, in spawn order.
func checkSpawnOrder(run *Run, h *history) string {
	byID := map[uint64]string{}
	for _, t := range run.Tasks {
		byID[t.ID] = t.Result
	}
	for _, n := range run.Nurseries {
		nh := h.nurseries[int64(n.ID)]
		if nh == nil || nh.termAt < 0 {
			continue
		}
		if len(n.Results) != len(nh.children) {
			return fmt.Sprintf("nursery %s (n%d) has %d results for %d children", n.Label, n.ID, len(n.Results), len(nh.children))
		}
		for i, c := range nh.children {
			if got := h.tasks[c].result; n.Results[i] != got {
				return fmt.Sprintf("nursery %s (n%d) result %d is %s but child t%d (spawned %d-th) ended %s", n.Label, n.ID, i, n.Results[i], c, i, got)
			}
		}
	}
	return ""
}

// checkFinal checks what real mode can: every task finished, every
// nursery ended, and errors outrank cancellations.
func checkFinal(run *Run) []Check {
	var checks []Check
	bad := ""
	for _, t := range run.Tasks {
		if t.Result == "-" && bad == "" {
			bad = fmt.Sprintf("task t%d (%s) never finished", t.ID, t.Name)
		}
	}
	checks = append(checks, Check{Kind: "invariant", Name: InvNoOrphan, OK: bad == "", Detail: bad})
	bad = ""
	for _, n := range run.Nurseries {
		if n.State != nursery.Closed.String() && n.State != nursery.Cancelled.String() && bad == "" {
			bad = fmt.Sprintf("nursery %s (n%d) ended in %s", n.Label, n.ID, n.State)
		}
	}
	checks = append(checks, Check{Kind: "invariant", Name: InvBarrier, OK: bad == "", Detail: bad})
	bad = ""
	for _, n := range run.Nurseries {
		for _, r := range n.Results {
			pr, err := nursery.ParseResult(r)
			if err == nil && pr.IsError() && n.Result != nursery.ChildFailed.String() && bad == "" {
				bad = fmt.Sprintf("nursery %s (n%d) ended %s though a child failed", n.Label, n.ID, n.Result)
			}
		}
	}
	checks = append(checks, Check{Kind: "invariant", Name: InvErrorOverCancel, OK: bad == "", Detail: bad})
	return checks
}
