package gen

import (
	"io"
	"os"
	"path/filepath"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// execute runs sc once with the run seed and worker count the fuzzer
// chose, under o's strategy, with the oracles (ExecuteOptions).
func (o *FuzzOptions) execute(sc *scenario.Scenario, seed uint64, workers int, tw io.Writer) (*sim.Run, error) {
	return ExecuteOptions(sc, sim.Options{Seed: seed, HasSeed: true, Workers: workers,
		Strategy: o.Strategy, PCTDepth: o.PCTDepth}, tw)
}

// shrinkSchedule shrinks the schedule of the failing run in dir/run.trace
// (the scenario already shrunk) into dir/shrunk.trace, with the fuzzer's
// own failure predicate and oracles, and returns the line the README and
// the report show.
func (o *FuzzOptions) shrinkSchedule(dir string) string {
	in, out := filepath.Join(dir, "run.trace"), filepath.Join(dir, "shrunk.trace")
	data, err := os.ReadFile(in)
	if err != nil {
		return "schedule not shrunk: " + err.Error()
	}
	exec := func(sc *scenario.Scenario, c sim.Config, so sim.Options) (*sim.Run, error) {
		so.Seed, so.HasSeed, so.Workers, so.Strategy, so.PCTDepth = c.Seed, true, c.Workers, c.Strategy, c.PCTDepth
		return ExecuteOptions(sc, so, so.Trace)
	}
	f, err := explore.ShrinkTrace(in, data, out, explore.Options{Failing: o.Failing, Exec: exec})
	if err != nil {
		return "schedule not shrunk: " + err.Error()
	}
	return f.Summary(out)
}
