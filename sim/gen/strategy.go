package gen

import (
	"io"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// execute runs sc once with the run seed and worker count the fuzzer
// chose, under o's strategy, with the oracles (ExecuteOptions).
func (o *FuzzOptions) execute(sc *scenario.Scenario, seed uint64, workers int, tw io.Writer) (*sim.Run, error) {
	return ExecuteOptions(sc, sim.Options{Seed: seed, HasSeed: true, Workers: workers,
		Strategy: o.Strategy, PCTDepth: o.PCTDepth}, tw)
}
