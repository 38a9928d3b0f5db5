package gen_test

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/gen"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestInvariantsHold is the property the fuzzer checks, as a Go test:
// every generated scenario, under any seed and worker count, keeps every
// invariant and oracle and ends (no deadlock, livelock or crash). rapid
// shrinks a failing case on its own; the message carries the scenario as
// a file and the command that replays it. rapid's default is 100 cases
// (-rapid.checks changes it); -short runs a fifth of that.
func TestInvariantsHold(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		sc := gen.Scenario().Draw(t, "scenario")
		seed := rapid.Uint64Range(0, 1<<31-1).Draw(t, "seed")
		workers := rapid.SampledFrom(gen.DefaultWorkers).Draw(t, "workers")
		run, err := gen.Execute(sc, seed, workers, nil)
		if err != nil {
			t.Fatalf("a generated scenario was refused: %v\n%s", err, sc.Source)
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
// hundred examples: it loads, Resolve accepts it, Safe finds it in the
// fragment that terminates, and it stays within the stated sizes, with
// calls and spawns only to later tasks or to a partner or spinner task
// made for that one spawn.
func TestScenarioRespectsBounds(t *testing.T) {
	t.Parallel()
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
		if err := gen.Safe(sc); err != nil {
			t.Fatalf("seed %d: not safe: %v\n%s", seed, err, sc.Source)
		}
		if sc.Expect != nil || sc.Scheduler.Workers != 0 || sc.Scheduler.MaxSteps != 20_000 {
			t.Fatalf("seed %d: has [expect], workers or another max_steps:\n%s", seed, sc.Source)
		}
		if len(sc.Tasks) > 12 || len(sc.Channels) > 2 {
			t.Fatalf("seed %d: %d tasks, %d channels", seed, len(sc.Tasks), len(sc.Channels))
		}
		if yi := sc.Scheduler.YieldInterval; yi != 1024 && yi != 512 && (yi < 1 || yi > 64) {
			t.Fatalf("seed %d: yield_interval %d", seed, yi)
		}
		for _, ch := range sc.Channels {
			if ch.Capacity > 3 {
				t.Fatalf("seed %d: channel %s capacity %d", seed, ch.Name, ch.Capacity)
			}
		}
		index := map[string]int{"main": 0}
		for i := 1; i < 6; i++ {
			index[fmt.Sprintf("t%d", i)] = i
		}
		refs := map[string]int{}
		for _, name := range sc.TaskNames {
			c := bodyCheck{sc: sc, task: name, index: index, refs: refs}
			if err := c.body(sc.Tasks[name].Ops, 0, true); err != "" {
				t.Fatalf("seed %d: task.%s: %s\n%s", seed, name, err, sc.Source)
			}
		}
		for name, n := range refs {
			if _, indexed := index[name]; !indexed && n != 1 {
				t.Fatalf("seed %d: made task %s is named %d times\n%s", seed, name, n, sc.Source)
			}
		}
	}
}

// bodyCheck checks one task body against the generator's bounds.
type bodyCheck struct {
	sc    *scenario.Scenario
	task  string
	index map[string]int // the indexed tasks; p, c and s tasks are made ones
	refs  map[string]int
}

func (c *bodyCheck) body(ops []scenario.Op, nurseries int, top bool) string {
	opsMax := 8
	if top && (c.task[0] == 'p' || c.task[0] == 'c') {
		opsMax = 2*5 + 1 + 3 // channel ops and their fillers, a close, a tail
	}
	if len(ops) > opsMax {
		return fmt.Sprintf("%d ops in a body", len(ops))
	}
	self, indexed := c.index[c.task]
	for _, op := range ops {
		switch op.Kind {
		case scenario.Call, scenario.Spawn:
			c.refs[op.Str]++
			if j, ok := c.index[op.Str]; ok && indexed && j <= self {
				return fmt.Sprintf("%s of %s from task %s", op.Kind, op.Str, c.task)
			}
			if _, ok := c.index[op.Str]; !ok && op.Kind == scenario.Call {
				return "call of the made task " + op.Str
			}
		case scenario.Loop:
			if op.N == scenario.LoopForever && (c.task[0] != 's' || !top) || op.N > 4 {
				return fmt.Sprintf("loop = %d in %s", op.N, c.task)
			}
		case scenario.Compute:
			if op.N > 50 {
				return fmt.Sprintf("compute = %d", op.N)
			}
		case scenario.Sleep, scenario.Alloc, scenario.Syscall:
			if op.N > map[scenario.OpKind]int64{scenario.Sleep: 30, scenario.Alloc: 4096, scenario.Syscall: 3}[op.Kind] {
				return fmt.Sprintf("%s = %d", op.Kind, op.N)
			}
		case scenario.Send, scenario.Recv, scenario.Close:
			if c.task[0] != 'p' && c.task[0] != 'c' || !top {
				return fmt.Sprintf("%s in %s, not at the top of a partner", op.Kind, c.task)
			}
		case scenario.Recharge:
			if p := c.sc.Scheduler.Profile; p != scenario.ProfileCluster && p != scenario.ProfileSovereign {
				return "recharge under " + p
			}
		case scenario.Nursery:
			if nurseries == 3 {
				return "nurseries nested more than 3 deep"
			}
			if op.MaxConcurrent > 3 || op.HasTimeout && op.Timeout > 60 {
				return fmt.Sprintf("nursery options %d %d", op.MaxConcurrent, op.Timeout)
			}
			if err := c.body(op.Body, nurseries+1, false); err != "" {
				return err
			}
			continue
		case scenario.Defer:
			for _, b := range op.Body {
				if b.Kind != scenario.Log {
					return "defer body with " + b.Kind.String()
				}
			}
		}
		if err := c.body(op.Body, nurseries, false); err != "" {
			return err
		}
	}
	return ""
}

// TestGeneratorCoversEveryOp: a few hundred scenarios use every operation
// and every option of the format between them, and every profile.
func TestGeneratorCoversEveryOp(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	g := gen.Scenario()
	var walk func(ops []scenario.Op)
	walk = func(ops []scenario.Op) {
		for _, op := range ops {
			seen[op.Kind.String()] = true
			switch {
			case op.Kind == scenario.Loop && op.N == scenario.LoopForever:
				seen["loop forever"] = true
			case op.Kind == scenario.Spawn:
				seen["spawn as"] = seen["spawn as"] || op.As != ""
				seen["spawn budget"] = seen["spawn budget"] || op.SpawnBudget != nil
				seen["spawn caps"] = seen["spawn caps"] || op.HasCaps
			case op.Kind == scenario.Nursery:
				seen["nursery timeout "+op.Mode] = seen["nursery timeout "+op.Mode] || op.HasTimeout
				seen["nursery budget"] = seen["nursery budget"] || op.NurseryBudget != nil
				seen["nursery max_concurrent"] = seen["nursery max_concurrent"] || op.MaxConcurrent > 0
				seen["nursery catch"] = seen["nursery catch"] || op.Catch
			}
			walk(op.Body)
		}
	}
	for seed := 1; seed <= 400; seed++ {
		sc := g.Example(seed)
		seen["profile "+sc.Scheduler.Profile] = true
		seen["[budget]"] = seen["[budget]"] || sc.Budget != scenario.DefaultBudget
		seen["main caps"] = seen["main caps"] || sc.Tasks["main"].HasCaps
		for _, ch := range sc.Channels {
			seen[fmt.Sprintf("channel capacity>0 %v", ch.Capacity > 0)] = true
		}
		for _, task := range sc.Tasks {
			walk(task.Ops)
		}
	}
	var missing []string
	for k := scenario.Compute; k <= scenario.Panic; k++ {
		if !seen[k.String()] {
			missing = append(missing, k.String())
		}
	}
	for _, want := range []string{"loop forever", "spawn as", "spawn budget", "spawn caps",
		"nursery timeout fail_fast", "nursery timeout cancel_remaining", "nursery timeout collect_all",
		"nursery budget", "nursery max_concurrent", "nursery catch",
		"profile service", "profile cluster", "profile sovereign", "profile core",
		"[budget]", "main caps", "channel capacity>0 true", "channel capacity>0 false"} {
		if !seen[want] {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("400 scenarios never use: %v", missing)
	}
}

// TestExampleDeterministic: a seed names one scenario.
func TestExampleDeterministic(t *testing.T) {
	t.Parallel()
	for _, seed := range []int{1, 2, 77, math.MaxInt} {
		a, b := gen.Scenario().Example(seed), gen.Scenario().Example(seed)
		if a.SHA256 != b.SHA256 {
			t.Fatalf("seed %d gave two scenarios:\n%s\n----\n%s", seed, a.Source, b.Source)
		}
	}
	if gen.Scenario().Example(1).SHA256 == gen.Scenario().Example(2).SHA256 {
		t.Fatalf("seeds 1 and 2 gave the same scenario")
	}
}
