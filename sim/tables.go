package sim

import (
	"fmt"
	"strings"

	"github.com/cbcsim/cbcsim/trace"
)

// tables builds the task and nursery tables from the event stream, as the
// run goes, so that they need no task kept alive after it ends: under a
// driver mode that keeps nothing (driver.Seeded, a Go program's code path:
// lean nurseries, reuse, id blocks) the scheduler has no registry to read.
// Each event costs O(1); the tables are sorted by id once, at the end.
type tables struct {
	last      *taskRowHist // the task of the last run event: runs come in streaks
	tasks     map[int64]*taskRowHist
	dense     []*taskRowHist // tasks[id] for ids under denseMax, nil where unseen (as history.dense)
	nurseries map[int64]*nurseryRowHist
}

type taskRowHist struct {
	row  TaskRow
	last trace.Kind // the last of run, yield, block, wake, exhausted, recharge
}

type nurseryRowHist struct {
	row      NurseryRow
	children []int64 // in spawn order
}

func newTables() *tables {
	return &tables{tasks: map[int64]*taskRowHist{}, nurseries: map[int64]*nurseryRowHist{}}
}

// task returns the row of task id, created on first sight. Ids under
// denseMax are found in a slice first, as in history.task: the map lookup
// of every run event of another task than the last was 3% of a seeded
// step (docs/performance.md#the-seeded-step).
func (tb *tables) task(id int64) *taskRowHist {
	if uint64(id) < uint64(len(tb.dense)) {
		if t := tb.dense[id]; t != nil {
			return t
		}
	}
	t := tb.tasks[id]
	if t == nil {
		t = &taskRowHist{row: TaskRow{ID: uint64(id), Result: "-"}}
		if id == 1 {
			t.row.Name = "main" // the root has no spawn event
		}
		tb.tasks[id] = t
	}
	if id >= 0 && id < denseMax {
		for int64(len(tb.dense)) <= id {
			tb.dense = append(tb.dense, nil)
		}
		tb.dense[id] = t
	}
	return t
}

// add takes in the next event.
func (tb *tables) add(e *trace.Event) {
	switch e.Kind {
	case trace.KindRun:
		tb.run(intField(e, trace.KeyTask))
	case trace.KindYield:
		t := tb.task(intField(e, trace.KeyTask))
		t.row.Yields++
		t.last = e.Kind
	case trace.KindSteal:
		tb.task(intField(e, trace.KeyTask)).row.Steals++
	case trace.KindBlock, trace.KindWake, trace.KindExhausted, trace.KindRecharge:
		if f, ok := field(e, trace.KeyTask); ok {
			t := tb.task(f.Int)
			if e.Kind != trace.KindBlock || t.last != trace.KindExhausted { // an exhausted task blocks waiting for a recharge
				t.last = e.Kind
			}
		}
	case trace.KindSpawn:
		t := tb.task(intField(e, trace.KeyTask))
		t.row.Name = strField(e, "name")
		nid := intField(e, trace.KeyNursery)
		if n := tb.nurseries[nid]; n != nil {
			t.row.Nursery = n.row.Label
			n.children = append(n.children, int64(t.row.ID))
		}
	case trace.KindResult:
		t := tb.task(intField(e, trace.KeyTask))
		t.row.Result = strField(e, trace.KeyResult)
	case trace.KindNursery:
		tb.nursery(e)
	}
}

// run takes in a run event of task id.
func (tb *tables) run(id int64) {
	t := tb.last
	if t == nil || int64(t.row.ID) != id {
		t = tb.task(id)
		tb.last = t
	}
	t.ran()
}

// ran counts a run event of the task.
func (t *taskRowHist) ran() {
	t.row.Steps++
	t.last = trace.KindRun
}

func (tb *tables) nursery(e *trace.Event) {
	id := intField(e, trace.KeyNursery)
	if m, ok := field(e, trace.KeyMode); ok { // open
		tb.nurseries[id] = &nurseryRowHist{row: NurseryRow{ID: uint64(id), Label: strField(e, trace.KeyLabel),
			Mode: m.Str, State: "Open", Result: "pending"}}
		return
	}
	n := tb.nurseries[id]
	if n == nil {
		return
	}
	if out, ok := field(e, trace.KeyOutcome); ok {
		n.row.Result, n.row.FirstError = out.Str, strField(e, trace.KeyError)
		return
	}
	n.row.State = strField(e, trace.KeyTo)
}

// fill writes the tables into run, in id order, with each nursery's
// per-child results in spawn order and each task's state at the end.
func (tb *tables) fill(run *Run) {
	run.Tasks, run.Nurseries = run.Tasks[:0], run.Nurseries[:0]
	for _, id := range ids(tb.tasks) {
		t := tb.tasks[id]
		t.row.State = t.state()
		run.Tasks = append(run.Tasks, t.row)
	}
	for _, id := range ids(tb.nurseries) {
		n := tb.nurseries[id]
		for _, c := range n.children {
			r := "pending" // a child without a result (a deadlocked or stopped run)
			if t := tb.tasks[c]; t != nil && t.row.Result != "-" {
				r = t.row.Result
			}
			n.row.Results = append(n.row.Results, r)
		}
		run.Nurseries = append(run.Nurseries, n.row)
	}
}

// state is the task's final state, as the scheduler's TaskState names it.
func (t *taskRowHist) state() string {
	switch {
	case strings.HasPrefix(t.row.Result, "cancelled"):
		return "Cancelled"
	case t.row.Result != "-":
		return "Completed"
	}
	switch t.last {
	case trace.KindBlock:
		return "Blocked"
	case trace.KindExhausted:
		return "BudgetExhausted"
	}
	return "Ready"
}

// unfinished calls f with the id of each task without a result.
func (tb *tables) unfinished(f func(id int64)) {
	for id, t := range tb.tasks { // f's order does not matter: the Builder sorts
		if t.row.Result == "-" {
			f(id)
		}
	}
}

// stuck lists the tasks without a result, in id order, as sim's stuck does
// from kept tasks.
func (tb *tables) stuck() []string {
	var out []string
	for _, id := range ids(tb.tasks) {
		t := tb.tasks[id]
		if t.row.Result == "-" {
			out = append(out, fmt.Sprintf("t%d %s (%s)", t.row.ID, t.row.Name, t.state()))
		}
	}
	return out
}
