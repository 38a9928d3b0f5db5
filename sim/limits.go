package sim

import (
	"fmt"

	"github.com/cbcsim/cbcsim/trace"
)

// The resource limits of one seeded run (docs/reliability.md). Budgets
// bound what a task may do, but a file can raise every budget and
// max_steps, and spawning, defer and log cost memory the budgets do not
// see: these caps keep any scenario inside about a gigabyte. A run that
// passes one ends like a run that passes max_steps, as a livelock, and
// the livelock event and the report name the limit. Real mode counts them
// in the interpreter instead (reallimits.go); its events are log lines.
const (
	MaxTasks     = 10_000    // tasks created, main included (a task keeps a fiber stack while it lives)
	MaxNurseries = 50_000    // nurseries opened
	MaxCleanups  = 500_000   // defer and using cleanups pushed and not yet run
	MaxEvents    = 4_000_000 // scheduler events: the checkers keep a digest of each
)

// limits are the caps a run enforces: the constants above, lowered by
// tests that must pass one quickly.
var limits = struct{ tasks, nurseries, cleanups, events int }{MaxTasks, MaxNurseries, MaxCleanups, MaxEvents}

// limit names the first limit the run has passed ("" if none) and its
// value. The driver asks after every step: a step is one task running to
// its next checkpoint, and every loop iteration is a checkpoint, so no
// step adds more than a body's worth past a limit.
func (s *sink) limit() (name string, max int) {
	if !s.counted && s.hist.n <= limits.events {
		// No event but runs since the last look: only the event count
		// moved (docs/performance.md#the-seeded-step).
		return "", 0
	}
	s.counted = false
	switch {
	case len(s.hist.tasks) > limits.tasks:
		return "tasks", limits.tasks
	case len(s.hist.nurseries) > limits.nurseries:
		return "nurseries", limits.nurseries
	case s.cleanups > limits.cleanups:
		return "cleanups", limits.cleanups
	case s.hist.n > limits.events:
		return "events", limits.events
	}
	return "", 0
}

// count keeps the counts limit needs that the history does not.
func (s *sink) count(kind trace.Kind, fields []trace.Field) {
	if kind != trace.KindCleanup {
		return
	}
	for _, f := range fields {
		if f.Key == "do" {
			switch f.Str {
			case "push":
				s.cleanups++
			case "run":
				s.cleanups--
			}
			return
		}
	}
}

// limitCheck fails a run that a limit stopped: the tool, not the scenario,
// ended it, so no expectation can accept it. Only such a run lists it.
func limitCheck(run *Run) Check {
	return Check{Class: ClassInvariant, Name: InvWithinLimits, OK: run.Limit == "", Detail: run.Limit}
}

// limitText is the report's line for a run stopped by a limit.
func limitText(name string, max int) string {
	return fmt.Sprintf("the run passed the simulator's limit of %d %s (docs/reliability.md)", max, name)
}
