package sim_test

import (
	"io"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// BenchmarkSimStepsStrategy: the seeded driver under each strategy on a
// bundled scenario, its trace written (to io.Discard: the encoding is
// paid, the disk is not); steps/s is the figure, to compare between the
// two strategies in the same run.
func BenchmarkSimStepsStrategy(b *testing.B) {
	sc, err := scenario.Load("../scenarios/channel_buffered.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, strategy := range []string{sim.StrategyRandom, sim.StrategyPCT} {
		b.Run(strategy, func(b *testing.B) {
			var steps int64
			for i := 0; b.Loop(); i++ {
				o := sim.Options{Seed: uint64(i), HasSeed: true, Workers: 2, Strategy: strategy, Trace: io.Discard}
				c, err := sim.Resolve(sc, o)
				if err != nil {
					b.Fatal(err)
				}
				run, err := sim.Execute(sc, c, o)
				if err != nil || !run.Passed() {
					b.Fatalf("seed %d: %v", i, err)
				}
				steps += run.Steps
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
