package check

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/ci"
)

// CI is the report in the form CI systems read (package sim/ci): a case
// per scenario and worker count, named "workers=W", and one per recorded
// run, named "recorded"; every kind of failure with the command that
// reruns it. Nondeterministic runs are failures of kind
// "nondeterminism" of their case.
func (r *Report) CI() *ci.Report {
	o := r.Options
	out := &ci.Report{Format: ci.Format, Runs: r.Runs, Failed: r.FailedRuns, Nondeterminism: int64(len(r.Nondeterminism)),
		Interrupted: r.Interrupted}
	out.Sweep = ci.Sweep{Tool: "check", Seeds: o.Seeds, SeedStart: o.SeedStart, Workers: o.Workers,
		Strategy: o.Strategy, PCTDepth: o.PCTDepth, Real: o.Mode.Real(), Lean: o.Mode.Lean(), Traces: o.Traces}
	if !o.Shard.Whole() {
		out.Shards, out.ShardCount = []int{o.Shard.K}, o.Shard.N
	}
	for _, s := range r.Scenarios {
		out.Sweep.Scenarios = append(out.Sweep.Scenarios, s.Path)
		out.Sweep.ScenarioHashes = append(out.Sweep.ScenarioHashes, s.SHA256)
		for _, row := range s.Rows {
			out.Cases = append(out.Cases, ci.Case{Suite: s.Path, Name: workersCase(row.Workers), Runs: row.Runs, Failed: row.Failed})
		}
		for _, f := range s.Failures {
			out.Failures = append(out.Failures, ci.Failure{
				Suite: s.Path, Case: workersCase(f.Config.Workers), Kind: kind(f.Outcome, f.Checks), Scenario: s.Name,
				Seed: f.Seed, Workers: f.Config.Workers, Count: f.Count, Details: checkDetails(f.Checks),
				Command: f.Command(), Repro: f.ReproDir, Trace: f.Trace,
			})
		}
	}
	for _, n := range r.Nondeterminism {
		out.Failures = append(out.Failures, ci.Failure{
			Suite: n.Path, Case: workersCase(n.Workers), Kind: "nondeterminism", Scenario: n.Scenario,
			Seed: n.Seed, Workers: n.Workers, Count: 1, Details: []string{n.String()},
			Command: n.Config.Command(n.Path), Repro: n.ReproDir,
		})
	}
	for _, rec := range r.Recorded {
		c := ci.Case{Suite: rec.Trace, Name: "recorded", Runs: 1}
		if rec.Failed() {
			c.Failed = 1
			details := checkDetails(rec.Checks)
			if rec.Note != "" {
				details = append([]string{rec.Note}, details...)
			}
			out.Failures = append(out.Failures, ci.Failure{
				Suite: rec.Trace, Case: c.Name, Kind: kind(rec.Outcome, rec.Checks), Scenario: rec.Scenario,
				Seed: rec.Config.Seed, Workers: rec.Config.Workers, Count: 1, Details: details,
				Command: rec.Command(), Trace: rec.Trace,
			})
		}
		out.Cases = append(out.Cases, c)
	}
	out.Sort()
	return out
}

func workersCase(w int) string { return fmt.Sprintf("workers=%d", w) }

// kind is the signature of a failure: the outcome, then each broken check.
func kind(o sim.Outcome, checks []sim.Check) string {
	return (&summary{outcome: o, failed: checks}).signature()
}

func checkDetails(checks []sim.Check) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Name + ": " + c.Detail
	}
	return out
}

// EmptyCorpora is the report of a check whose only inputs were empty
// directories (a regression corpus that fuzz --corpus made and found
// nothing to save in): no runs, and a passing case per directory, so
// that a CI step that reads --json or --junit finds a report (Jenkins
// counts a JUnit file without test cases as an error).
func EmptyCorpora(dirs []string, workers []int) *ci.Report {
	out := &ci.Report{Format: ci.Format, Sweep: ci.Sweep{Tool: "check", Workers: workers}, Cases: []ci.Case{}, Failures: []ci.Failure{}}
	for _, d := range dirs {
		out.Cases = append(out.Cases, ci.Case{Suite: d, Name: "no recorded runs"})
	}
	return out
}
