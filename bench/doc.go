// Package bench measures the sched package against what a Go programmer uses
// today: goroutines with a sync.WaitGroup, golang.org/x/sync/errgroup and
// github.com/sourcegraph/conc (docs/spec.md#peer-targets). The same workloads back the
// benchmarks of package sched (sched/bench_test.go), the simulator's
// benchmarks here (bench_test.go) and `cbcsim bench`:
//
//	rep, err := bench.Run(bench.Options{Quick: true}, os.Stderr)
//	if err != nil {
//		return err
//	}
//	return rep.Write(os.Stdout)
//
// A workload is a Func, func(tm Timer, n int) error, that performs n
// operations. *testing.B is a Timer, so a benchmark (package benchtest,
// apart so that bench does not import testing) is
//
//	func BenchmarkX(b *testing.B) {
//		benchtest.Bench(b, 10_000, bench.SpawnJoin(bench.Cbcsim, 0)) // 10,000 ops untimed first
//	}
//
// and Run drives the same function with its own stopwatch, growing n as
// testing does until one measurement lasts long enough, and keeps the
// median of several. Ratios are always peer/cbcsim, so above 1x cbcsim
// costs less. docs/performance.md has the figures and what bounds each.
package bench
