package bench_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/bench"
	"github.com/cbcsim/cbcsim/bench/benchtest"
	"github.com/cbcsim/cbcsim/sim"
)

// BenchmarkSimSteps: the seeded driver on the standard twenty-task
// scenario (bench/testdata/twenty.toml), one run an op, with its trace
// written to a file and without, under the random walk and under pct;
// steps/s is the figure.
func BenchmarkSimSteps(b *testing.B) {
	b.Run("trace", func(b *testing.B) { benchtest.Bench(b, 3, bench.SimSteps(b.TempDir())) })
	b.Run("notrace", func(b *testing.B) { benchtest.Bench(b, 3, bench.SimSteps("")) })
	b.Run("trace-pct", func(b *testing.B) { benchtest.Bench(b, 3, bench.SimStepsStrategy(b.TempDir(), sim.StrategyPCT)) })
	b.Run("notrace-pct", func(b *testing.B) { benchtest.Bench(b, 3, bench.SimStepsStrategy("", sim.StrategyPCT)) })
}

// BenchmarkFuzzSeeds: the standard scenario under consecutive seeds, one
// seed an op; seeds/s is the figure.
func BenchmarkFuzzSeeds(b *testing.B) {
	benchtest.Bench(b, 3, bench.FuzzSeeds())
}

// BenchmarkThroughput: exploration, generated fuzzing and check, the
// `cbcsim bench` rows of docs/performance.md#current-figures ("Exploration
// and checking
// throughput").
func BenchmarkThroughput(b *testing.B) {
	b.Run("Explore", func(b *testing.B) { benchtest.Bench(b, 3, bench.Explore()) })
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("FuzzGenerated/jobs%d", jobs), func(b *testing.B) { benchtest.Bench(b, 3, bench.FuzzGenerated(jobs)) })
		b.Run(fmt.Sprintf("Check/jobs%d", jobs), func(b *testing.B) { benchtest.Bench(b, 3, bench.CheckRuns(jobs)) })
	}
}

// TestRunQuick: a quick run measures every row and every target, and the
// report prints its tables.
func TestRunQuick(t *testing.T) {
	t.Parallel()
	rep, err := bench.Run(bench.Options{Quick: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SpawnJoin", "FanOutTree", "FiberSwitch", "YieldPingPong", "YieldPingPong/cbcsim_chan", "YieldPingPong/cbcsim_typed",
		"Rendezvous", "Steal", "ParkedTasks", "SpawnedTasks", "SimSteps/trace", "SimSteps/notrace", "FuzzSeeds",
		"Explore", "FuzzGenerated/jobs1", "FuzzGenerated/jobs2", "Check/jobs1", "Check/jobs2"} {
		row, ok := rep.Row(name)
		if !ok {
			t.Errorf("no row %s", name)
			continue
		}
		if row.Cbcsim <= 0 {
			t.Errorf("%s: cbcsim figure %v", name, row.Cbcsim)
		}
		for _, p := range row.Peers {
			if p.Value <= 0 || p.Ratio <= 0 {
				t.Errorf("%s/%s: figure %v, ratio %v", name, p.Name, p.Value, p.Ratio)
			}
		}
	}
	var out strings.Builder
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
}

// TestUnknownImplementation: a workload asked for an implementation it
// does not know reports it as an error when run, instead of panicking.
func TestUnknownImplementation(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]bench.Func{
		"SpawnJoin": bench.SpawnJoin("nope", 1), "FanOutTree": bench.FanOutTree("nope", 1),
		"FiberSwitch": bench.FiberSwitch("nope"), "YieldPingPong": bench.YieldPingPong("nope"), "Rendezvous": bench.Rendezvous("nope", 1),
		"ParkedTasks": bench.ParkedTasks("nope", 1),
	} {
		if err := f(bench.NopTimer{}, 1); err == nil || !strings.Contains(err.Error(), `unknown implementation "nope"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
