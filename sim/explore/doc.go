// Package explore is the systematic, stateless schedule explorer of the
// seeded simulator: every schedule is re-executed from the start on the
// real scheduler core, steered by a Chooser, and schedules are enumerated
// depth first with iterative preemption bounding as in CHESS (every
// schedule with 0 preemptions, then 1, then 2, up to a bound).
//
// A decision point is a step at which more than one worker has something
// to do (an idle worker's look for work is never one), or a steal at
// which more than one victim has something to steal. A preemption is a
// decision that switches away from the worker that acted last while that
// worker still has something to do (docs/explore.md).
//
//	rep, err := explore.Run(sc, explore.Options{Workers: 2, Preemptions: 2})
//	if rep.Failure != nil { // the first failing schedule, fewest preemptions first
//		_ = explore.WriteRepro("explore-out", "sc.toml", sc, rep)
//	}
//
// Shrink minimises a failing schedule (fewest preemptions, then fewest
// steps, failing the same way); FromSchedule turns a schedule recorded
// by any strategy into one the explorer can replay and shrink.
package explore
