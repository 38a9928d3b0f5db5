// Package simtest runs Go code written against package sched under the
// seeded simulator from `go test`: every interleaving it tries is a seed,
// and a failing seed replays byte for byte.
//
//	func TestTransfer(t *testing.T) {
//		simtest.Check(t, func(t *sched.Task) error {
//			ch := sched.NewChan[int](t.Scheduler(), "jobs", 1)
//			return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
//				...
//			})
//		})
//	}
//
// Check runs the body as the root task for every seed (Seeds, default 100)
// and worker count (Workers, default 1, 2 and 4), each run twice, and
// fails the test when a run fails: the body returns an error or panics,
// an invariant of the scheduler breaks, the run deadlocks or livelocks,
// or the two executions of one seed write different traces (the body
// used something the simulator does not control: a real goroutine, the
// clock, map order). The failure names the seed and worker count, writes
// the run's trace to a file that outlives the test (`cbcsim diff` and
// `cbcsim export` read it) and prints the command that reruns exactly
// that run:
//
//	go test -run '^TestTransfer$' -simtest.seed=17 -simtest.workers=2
//
// CheckScenarios runs TOML scenarios as subtests, as `cbcsim check` does.
// Count runs what Check runs without stopping at a failure, and counts
// the failing runs (for measurements). Strategy chooses random seeds
// (the default), pct (PCTDepth) or the systematic search of package
// sim/explore (Preemptions), whose failures are shrunk; StartSeed moves
// the seeds.
//
// What a body may do: everything in package sched (tasks, nurseries,
// Chan and Select, Mutex, RWMutex, Cond, WaitGroup, timers, Sleep,
// Blocking, which runs its function inline under the simulator). The
// driver interleaves tasks only at sched calls: code between two of them
// runs as one step. Time is virtual: use Task.SleepFor, not time.Sleep;
// a body's own randomness comes from t.Scheduler().Config().Seed. A body
// must not start goroutines or wait on anything a goroutine does; a run
// that makes no progress for a while (Stall, default 10 s) is reported
// as blocked outside the scheduler. docs/simtest.md has the details and
// the costs.
package simtest
