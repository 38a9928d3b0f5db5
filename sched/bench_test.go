package sched_test

// The benchmarks of issue 6, with the peers side by side in the same run.
// The workloads live in package bench, which `cbcsim bench` runs too, so
// the two always measure the same thing; this is an external test package
// because bench imports sched. The names are fixed so that figures compare
// across versions (benchstat). docs/performance.md has the figures.
//
//	go test -run '^$' -bench . -benchmem -count 5 ./sched ./bench
//
// BenchmarkSimSteps and BenchmarkFuzzSeeds are in package bench: they need
// package sim, which imports sched.

import (
	"fmt"
	"testing"

	"github.com/cbcsim/cbcsim/bench"
	"github.com/cbcsim/cbcsim/bench/benchtest"
)

// BenchmarkSpawnJoin: b.N empty tasks spawned into one scope, then joined;
// ns/op is the cost of one task. cbcsim runs on GOMAXPROCS workers.
func BenchmarkSpawnJoin(b *testing.B) {
	for _, impl := range bench.Join {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 10_000, bench.SpawnJoin(impl, 0)) })
	}
}

// BenchmarkFanOutTree: b.N binary trees of depth 10, each node spawning two
// children and waiting for them; ns/op is the cost of one tree of 2046
// spawns.
func BenchmarkFanOutTree(b *testing.B) {
	for _, impl := range bench.Join {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 5, bench.FanOutTree(impl, 0)) })
	}
}

// BenchmarkFanOutTreeScaling: the cbcsim fan-out tree on 1 worker and on
// GOMAXPROCS workers in one run; the ratio of the two is the scaling
// target (cbcsim bench prints it as well, with a control).
func BenchmarkFanOutTreeScaling(b *testing.B) {
	for _, w := range []int{1, bench.Workers()} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) { benchtest.Bench(b, 5, bench.FanOutTree(bench.Cbcsim, w)) })
	}
}

// BenchmarkStealPolicy: steal-one (the default) against steal-half
// (Config.StealHalf) on the workloads where stealing decides: SpawnJoin
// (one producer, the other workers steal everything they run), the
// fan-out tree, and Steal on 2 and on GOMAXPROCS workers.
func BenchmarkStealPolicy(b *testing.B) {
	for _, impl := range []string{bench.Cbcsim, bench.CbcsimStealHalf} {
		b.Run("SpawnJoin/"+impl, func(b *testing.B) { benchtest.Bench(b, 10_000, bench.SpawnJoin(impl, 0)) })
		b.Run("FanOutTree/"+impl, func(b *testing.B) { benchtest.Bench(b, 5, bench.FanOutTree(impl, 0)) })
		b.Run("Steal/"+impl, func(b *testing.B) {
			benchtest.Bench(b, 10_000, bench.StealWith(0, impl == bench.CbcsimStealHalf))
		})
	}
}

// BenchmarkFiberSwitch: one resume of a fiber and its yield back, against
// the bare iter.Pull coroutine it is built on (issue 6: within 1.2x).
func BenchmarkFiberSwitch(b *testing.B) {
	for _, impl := range []string{bench.Cbcsim, bench.IterPull} {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 10_000, bench.FiberSwitch(impl)) })
	}
}

// BenchmarkYieldPingPong: two tasks handing control to each other; ns/op
// is one hand-over. cbcsim (Task.Yield) must allocate nothing; iterpull is
// the bare coroutine switch a fiber is built on.
func BenchmarkYieldPingPong(b *testing.B) {
	for _, impl := range bench.Switch {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 10_000, bench.YieldPingPong(impl)) })
	}
}

// BenchmarkRendezvous: YieldPingPong's typed rendezvous on the default
// worker count (GOMAXPROCS workers), against goroutines: ns/op is one
// hand-over.
func BenchmarkRendezvous(b *testing.B) {
	for _, impl := range []string{bench.Cbcsim, bench.Goroutines} {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 10_000, bench.Rendezvous(impl, 0)) })
	}
}

// BenchmarkSteal: one producer spawning b.N empty tasks while the other
// workers steal them; steals/op is the share stolen, ns/steal the elapsed
// time per stolen task.
func BenchmarkSteal(b *testing.B) {
	benchtest.Bench(b, 10_000, bench.Steal(0))
}

// BenchmarkParkedTasks: a million tasks (10,000 with -short) blocked at
// once on a channel receive; B/task is the memory each holds. One batch
// runs untimed first, so both sides measure the steady state in which the
// runtime reuses exited goroutines' descriptors (see bench.ParkedTasks).
func BenchmarkParkedTasks(b *testing.B) {
	tasks := 1_000_000
	if testing.Short() {
		tasks = 10_000
	}
	for _, impl := range bench.Parked {
		b.Run(impl, func(b *testing.B) { benchtest.Bench(b, 1, bench.ParkedTasks(impl, tasks)) })
	}
}

// BenchmarkSpawnedTasks: a million tasks (10,000 with -short) spawned on
// one worker and measured before any runs; B/task is what a spawned task
// holds before it first runs (no fiber, no stack: see bench.SpawnedTasks).
func BenchmarkSpawnedTasks(b *testing.B) {
	tasks := 1_000_000
	if testing.Short() {
		tasks = 10_000
	}
	benchtest.Bench(b, 1, bench.SpawnedTasks(tasks))
}
