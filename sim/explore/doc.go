// Package explore is the systematic, stateless schedule explorer of the
// seeded simulator: every schedule is re-executed from the start on the
// real scheduler core, steered by a Chooser, and schedules are enumerated
// depth first with iterative preemption bounding as in CHESS (every
// schedule with 0 preemptions, then 1, then 2, up to a bound). The
// schedules run in batches of sweep jobs (Options.Jobs goroutines) whose
// results are folded in job order, so the search and its report are the
// same on any number of goroutines.
//
// A decision point is a step at which more than one worker has something
// to do (an idle worker's look for work is never one; one blank worker
// stands for all; a worker whose task just yielded lets the others go
// first), or a steal at which more than one victim has something to
// steal. A preemption is a decision that switches away from the worker
// that acted last while that worker is in the middle of a task
// (docs/explore.md).
//
//	rep, err := explore.Run(sc, explore.Options{Workers: 2, Preemptions: 2})
//	if rep.Failure != nil { // the first failing schedule, fewest preemptions first
//		_ = explore.WriteRepro("explore-out", "sc.toml", sc, rep)
//	}
//
// A failing schedule is shrunk (fewest preemptions, then fewest steps,
// failing the same way) before it is reported; ShrinkTrace does the same
// for a schedule recorded by any strategy, and RunHunt measures how many
// runs a strategy needs to catch a failure.
package explore
