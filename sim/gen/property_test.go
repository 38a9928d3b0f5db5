package gen_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/gen"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestInvariantsHold is the property the fuzzer checks, as a Go test:
// every generated scenario, under any seed and worker count, keeps every
// invariant and ends (no deadlock, livelock or crash). rapid shrinks a
// failing case on its own; the message carries the scenario as a file and
// the command that replays it. rapid's default is 100 cases (-rapid.checks
// changes it); -short runs a fifth of that.
func TestInvariantsHold(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := gen.Scenario().Draw(t, "scenario")
		seed := rapid.Uint64Range(0, 1<<31-1).Draw(t, "seed")
		workers := rapid.SampledFrom(gen.DefaultWorkers).Draw(t, "workers")
		opts := sim.Options{Seed: seed, HasSeed: true, Workers: workers}
		cfg, err := sim.Resolve(sc, opts)
		if err != nil {
			t.Fatalf("a generated scenario was refused: %v\n%s", err, sc.Source)
		}
		run, err := sim.Execute(sc, cfg, opts)
		if err != nil {
			t.Fatalf("%v", err)
		}
		if failed := gen.FailedChecks(run); len(failed) > 0 {
			msg := ""
			for _, c := range run.Checks {
				if !c.OK {
					msg += fmt.Sprintf("\n  %s: %s", c.Name, c.Detail)
				}
			}
			t.Fatalf("%v (outcome %s)%s\nscenario.toml:\n%s\nreproduce: cbcsim run scenario.toml --seed %d --workers %d",
				failed, run.Outcome, msg, sc.Source, seed, workers)
		}
	})
}

// TestScenarioRespectsBounds checks what the generator promises on a few
// hundred examples: it loads and is accepted by Resolve, and stays within
// the stated sizes, with calls and spawns only to later tasks.
func TestScenarioRespectsBounds(t *testing.T) {
	g := gen.Scenario()
	n := 300
	if testing.Short() {
		n = 60
	}
	for seed := 1; seed <= n; seed++ {
		sc := g.Example(seed)
		if _, err := sim.Resolve(sc, sim.Options{Workers: 1}); err != nil {
			t.Fatalf("seed %d: refused: %v\n%s", seed, err, sc.Source)
		}
		if sc.Expect != nil || sc.Scheduler.Workers != 0 || len(sc.Channels) != 0 {
			t.Fatalf("seed %d: has [expect], workers or channels:\n%s", seed, sc.Source)
		}
		if len(sc.Tasks) > 6 {
			t.Fatalf("seed %d: %d tasks", seed, len(sc.Tasks))
		}
		if yi := sc.Scheduler.YieldInterval; yi != 1024 && (yi < 1 || yi > 64) {
			t.Fatalf("seed %d: yield_interval %d", seed, yi)
		}
		index := map[string]int{"main": 0}
		for i := 1; i < 6; i++ {
			index[fmt.Sprintf("t%d", i)] = i
		}
		for _, name := range sc.TaskNames {
			if err := checkBody(sc.Tasks[name].Ops, index[name], index, 0); err != "" {
				t.Fatalf("seed %d: task.%s: %s\n%s", seed, name, err, sc.Source)
			}
		}
	}
}

func checkBody(ops []scenario.Op, self int, index map[string]int, nurseries int) string {
	if len(ops) > 8 {
		return fmt.Sprintf("%d ops in a body", len(ops))
	}
	for _, op := range ops {
		switch op.Kind.String() {
		case "call", "spawn":
			if index[op.Str] <= self {
				return fmt.Sprintf("%s of %s from task %d", op.Kind, op.Str, self)
			}
		case "loop":
			if op.N < 0 || op.N > 4 {
				return fmt.Sprintf("loop = %d", op.N)
			}
		case "compute":
			if op.N > 50 {
				return fmt.Sprintf("compute = %d", op.N)
			}
		case "nursery":
			if nurseries == 3 {
				return "nurseries nested more than 3 deep"
			}
			if op.MaxConcurrent > 3 || op.HasTimeout {
				return fmt.Sprintf("nursery options %d %v", op.MaxConcurrent, op.HasTimeout)
			}
			if err := checkBody(op.Body, self, index, nurseries+1); err != "" {
				return err
			}
			continue
		case "defer":
			for _, b := range op.Body {
				if b.Kind.String() != "log" {
					return "defer body with " + b.Kind.String()
				}
			}
		case "send", "recv", "close", "sleep", "recharge", "alloc", "syscall":
			return op.Kind.String() + " generated"
		}
		if err := checkBody(op.Body, self, index, nurseries); err != "" {
			return err
		}
	}
	return ""
}

// TestExampleDeterministic: a seed names one scenario.
func TestExampleDeterministic(t *testing.T) {
	for _, seed := range []int{1, 2, 77, 1 << 40} {
		a, b := gen.Scenario().Example(seed), gen.Scenario().Example(seed)
		if a.SHA256 != b.SHA256 {
			t.Fatalf("seed %d gave two scenarios:\n%s\n----\n%s", seed, a.Source, b.Source)
		}
	}
	if gen.Scenario().Example(1).SHA256 == gen.Scenario().Example(2).SHA256 {
		t.Fatalf("seeds 1 and 2 gave the same scenario")
	}
}
