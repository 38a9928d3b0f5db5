package gen

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

// The oracles: checks of the contract that the simulator's invariants do
// not make, because they need to know the program. Each one reads the
// events of a run and what the scenario says.
const (
	// OracleCaps: under sovereign, a task spawns only if it holds spawn, a
	// child never holds more than its spawner, a task self-recharges only
	// with budget and recharges a child only with supervisor.
	OracleCaps = "capabilities-respected"
	// OracleTimeout: a cancel_remaining nursery's timeout does not cancel
	// a child that has started (it runs on).
	OracleTimeout = "timeout-spares-started"
)

// Execute runs sc once under the seeded simulator with the given seed and
// worker count, writing the trace to tw when it is not nil, and returns
// the run with its checks: the simulator's invariants and, when sc has
// something for them to look at (a sovereign profile, a cancel_remaining
// nursery with a timeout), the oracles, appended to run.Checks with Kind
// "oracle". FailedChecks therefore counts them.
func Execute(sc *scenario.Scenario, seed uint64, workers int, tw io.Writer) (*sim.Run, error) {
	return ExecuteOptions(sc, sim.Options{Seed: seed, HasSeed: true, Workers: workers}, tw)
}

// ExecuteOptions is Execute with every option of the run (a strategy, a
// Chooser); the trace goes to tw, not to opts.Trace.
func ExecuteOptions(sc *scenario.Scenario, opts sim.Options, tw io.Writer) (*sim.Run, error) {
	var buf *bytes.Buffer
	if oraclesApply(sc) {
		// The simulator keeps no events; the oracles read them back from
		// the trace, which costs a few microseconds a run.
		buf = &bytes.Buffer{}
		if tw == nil {
			tw = buf
		} else {
			tw = io.MultiWriter(tw, buf)
		}
	}
	opts.Trace = tw
	cfg, err := sim.Resolve(sc, opts)
	if err != nil {
		return nil, err
	}
	run, err := sim.Execute(sc, cfg, opts)
	if err != nil || buf == nil {
		return run, err
	}
	tr, err := trace.Parse(buf)
	if err != nil {
		return nil, fmt.Errorf("gen: reading back the trace for the oracles: %w", err)
	}
	run.Checks = append(run.Checks, Oracles(sc, tr.Events)...)
	return run, nil
}

// oraclesApply reports whether an oracle has anything to check in sc.
func oraclesApply(sc *scenario.Scenario) bool {
	return sc.Scheduler.Profile == scenario.ProfileSovereign || hasTimeoutCR(sc)
}

func walkOps(ops []scenario.Op, fn func(op *scenario.Op)) {
	for i := range ops {
		fn(&ops[i])
		walkOps(ops[i].Body, fn)
	}
}

// Oracles checks the events of one run of sc: OracleCaps under sovereign,
// and OracleTimeout when sc has a cancel_remaining nursery with a timeout.
func Oracles(sc *scenario.Scenario, events []trace.Event) []sim.Check {
	var out []sim.Check
	add := func(name, bad string) {
		out = append(out, sim.Check{Class: sim.ClassOracle, Name: name, OK: bad == "", Detail: bad})
	}
	if sc.Scheduler.Profile == scenario.ProfileSovereign {
		add(OracleCaps, checkCaps(sc, events))
	}
	if hasTimeoutCR(sc) {
		add(OracleTimeout, checkTimeoutCR(events))
	}
	return out
}

func hasTimeoutCR(sc *scenario.Scenario) bool {
	found := false
	for _, t := range sc.Tasks {
		walkOps(t.Ops, func(op *scenario.Op) {
			if op.Kind == scenario.Nursery && op.HasTimeout && op.Mode == scenario.ModeCancelRemaining {
				found = true
			}
		})
	}
	return found
}

func intOf(e *trace.Event, key string) (int64, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f.Int, true
		}
	}
	return 0, false
}

func strOf(e *trace.Event, key string) (string, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f.Str, true
		}
	}
	return "", false
}

// spawnCaps is what every spawn of one task name says about caps.
type spawnCaps struct {
	explicit bool // every spawn gives the same caps: set
	inherit  bool // no spawn gives caps: the child holds its spawner's
	set      sched.Caps
}

// capsByName reads, for each task name, the caps its spawns give. The
// generator gives every spawn of a task the same ones; a scenario that
// does not (after a shrink, or by hand) leaves that name unknown.
func capsByName(sc *scenario.Scenario) map[string]spawnCaps {
	seen := map[string]int{} // spawns seen
	out := map[string]spawnCaps{}
	for _, t := range sc.Tasks {
		walkOps(t.Ops, func(op *scenario.Op) {
			if op.Kind != scenario.Spawn {
				return
			}
			var c spawnCaps
			if op.HasCaps {
				set, err := sched.ParseCaps(op.Caps)
				c = spawnCaps{explicit: err == nil, set: set}
			} else {
				c = spawnCaps{inherit: true}
			}
			if seen[op.Str] > 0 && out[op.Str] != c {
				c = spawnCaps{} // they disagree: unknown
			}
			seen[op.Str]++
			out[op.Str] = c
		})
	}
	return out
}

// checkCaps follows the capabilities of every task instance through the
// spawn events: main's from [task.main] caps (none without), a child's
// from its spawns' caps or its spawner's.
func checkCaps(sc *scenario.Scenario, events []trace.Event) string {
	byName := capsByName(sc)
	type held struct {
		caps  sched.Caps
		known bool
	}
	tasks := map[int64]held{}
	if main := sc.Tasks["main"]; main != nil {
		var root sched.Caps
		if main.HasCaps {
			root, _ = sched.ParseCaps(main.Caps)
		}
		tasks[1] = held{root, true}
	}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindSpawn:
			child, _ := intOf(e, "task")
			parent, _ := intOf(e, "parent")
			name, _ := strOf(e, "name")
			p := tasks[parent]
			spec := byName[name]
			if p.known && p.caps&sched.CapSpawn == 0 {
				return fmt.Sprintf("task t%d spawned t%d (%s) without the spawn capability (it holds [%s])", parent, child, name, p.caps)
			}
			if p.known && spec.explicit && spec.set&^p.caps != 0 {
				return fmt.Sprintf("task t%d, holding [%s], spawned t%d (%s) with the wider caps [%s]", parent, p.caps, child, name, spec.set)
			}
			switch {
			case spec.explicit:
				tasks[child] = held{spec.set, true}
			case spec.inherit:
				tasks[child] = p
			}
		case trace.KindRecharge:
			id, _ := intOf(e, "task")
			h := tasks[id]
			if !h.known {
				continue
			}
			if from, _ := strOf(e, "from"); from == "self" && h.caps&sched.CapBudget == 0 {
				return fmt.Sprintf("task t%d recharged itself without the budget capability (it holds [%s])", id, h.caps)
			}
			if _, ok := intOf(e, "target"); ok && h.caps&sched.CapSupervisor == 0 {
				return fmt.Sprintf("task t%d recharged a child without the supervisor capability (it holds [%s])", id, h.caps)
			}
		}
	}
	return ""
}

// checkTimeoutCR finds a child of a cancel_remaining nursery that had run
// before it was marked cancelled with Timeout, though its nursery's owner
// had not been cancelled: only the nursery's own timeout can have marked
// it, and under cancel_remaining that timeout spares started children.
// (A Timeout that reaches the child through its owner, from a timeout
// further up, marks every child; then the owner was marked first.)
func checkTimeoutCR(events []trace.Event) string {
	type nurs struct {
		owner int64
		cr    bool
		label string
	}
	nurseries := map[int64]nurs{}
	parentOf := map[int64]int64{} // task -> its nursery
	firstRun := map[int64]int{}
	markAt := map[int64]int{}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindNursery:
			if mode, ok := strOf(e, "mode"); ok {
				id, _ := intOf(e, "nursery")
				owner, _ := intOf(e, "task")
				label, _ := strOf(e, "label")
				nurseries[id] = nurs{owner: owner, cr: mode == scenario.ModeCancelRemaining, label: label}
			}
		case trace.KindSpawn:
			id, _ := intOf(e, "task")
			parentOf[id], _ = intOf(e, "nursery")
		case trace.KindRun:
			id, _ := intOf(e, "task")
			if _, ok := firstRun[id]; !ok {
				firstRun[id] = i
			}
		case trace.KindCancel:
			if _, scoped := intOf(e, "nursery"); scoped {
				continue // a scope's cancel of its owner's body, not a mark (docs/trace-format.md)
			}
			id, _ := intOf(e, "task")
			if _, ok := markAt[id]; ok {
				continue
			}
			markAt[id] = i
			reason, _ := strOf(e, "reason")
			n, ok := nurseries[parentOf[id]]
			if reason != "Timeout" || !ok || !n.cr {
				continue
			}
			run, started := firstRun[id]
			if !started || run > i {
				continue
			}
			if at, ok := markAt[n.owner]; ok && at < i {
				continue
			}
			return fmt.Sprintf("task t%d had started in cancel_remaining nursery %s (n%d) and was cancelled by its timeout",
				id, n.label, parentOf[id])
		}
	}
	return ""
}
