package sim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cbcsim/cbcsim/bench"
	"github.com/cbcsim/cbcsim/sim"
)

// BenchmarkSimStepsStrategy: the seeded driver under each strategy on the
// standard twenty-task scenario of BenchmarkSimSteps (bench/testdata/
// twenty.toml), its trace written to a file, one run an op, each run with
// its own seed; steps/s is the figure, to compare between the strategies
// of the same run (pct's probe is cached, so it is paid once).
func BenchmarkSimStepsStrategy(b *testing.B) {
	sc, err := bench.Twenty()
	if err != nil {
		b.Fatal(err)
	}
	for _, strategy := range []string{sim.StrategyRandom, sim.StrategyPCT} {
		b.Run(strategy, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "twenty.trace"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var steps int64
			seed := uint64(0)
			for b.Loop() {
				seed++
				if err := f.Truncate(0); err != nil {
					b.Fatal(err)
				}
				if _, err := f.Seek(0, 0); err != nil {
					b.Fatal(err)
				}
				o := sim.Options{Seed: seed, HasSeed: true, Strategy: strategy, Trace: f}
				c, err := sim.Resolve(sc, o)
				if err != nil {
					b.Fatal(err)
				}
				run, err := sim.Execute(sc, c, o)
				if err != nil || !run.Passed() {
					b.Fatalf("seed %d: %v", seed, err)
				}
				steps += run.Steps
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
