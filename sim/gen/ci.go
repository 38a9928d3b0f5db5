package gen

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cbcsim/cbcsim/sim/ci"
)

// CI is the report in the form CI systems read (package sim/ci), for the
// options o the fuzzer ran with (normalized): the runs and failed runs
// at the top level, and the shrunk failure, if any, as a case of its own
// named "seed N" with the command that replays it.
func (r *FuzzReport) CI(o FuzzOptions) *ci.Report {
	out := &ci.Report{Format: ci.Format, Runs: int64(r.Runs), Failed: int64(r.Failures), Interrupted: r.Interrupted}
	out.Sweep = ci.Sweep{Tool: "fuzz", Seeds: o.Seeds, SeedStart: r.SeedStart, Workers: o.Workers,
		Strategy: o.Strategy, PCTDepth: o.PCTDepth}
	if o.Duration > 0 {
		out.Sweep.Duration = o.Duration.String()
	}
	if !r.Shard.Whole() {
		out.Shards, out.ShardCount = []int{r.Shard.K}, r.Shard.N
	}
	if f := r.First; f != nil {
		name := fmt.Sprintf("seed %d", f.Seed)
		out.Cases = append(out.Cases, ci.Case{Suite: "fuzz", Name: name, Runs: 1, Failed: 1})
		out.Failures = append(out.Failures, ci.Failure{
			Suite: "fuzz", Case: name, Kind: strings.Join(f.Failed, ","), Scenario: f.Shrunk.Name,
			Seed: f.Seed, Workers: f.ReproWorkers, Count: 1, Details: f.Details, Command: f.Command,
			Repro: f.Dir, Trace: filepath.Join(f.Dir, "run.trace"),
		})
	}
	out.Sort()
	return out
}
