package gen

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// failInCollectAll is an artificial failure: the program has a fail op
// somewhere inside a collect_all nursery's body.
func failInCollectAll(sc *scenario.Scenario) bool {
	var walk func(ops []scenario.Op, inside bool) bool
	walk = func(ops []scenario.Op, inside bool) bool {
		for i := range ops {
			op := &ops[i]
			if op.Kind == scenario.Fail && inside {
				return true
			}
			if walk(op.Body, inside || op.Kind == scenario.Nursery && op.Mode == scenario.ModeCollectAll) {
				return true
			}
		}
		return false
	}
	for _, t := range sc.Tasks {
		if walk(t.Ops, false) {
			return true
		}
	}
	return false
}

// firstExample returns the first generated scenario, from seed 1 on, for
// which pred holds and that has at least minSize ops.
func firstExample(t *testing.T, minSize int, pred func(*scenario.Scenario) bool) *scenario.Scenario {
	t.Helper()
	g := Scenario()
	for seed := 1; seed <= 5000; seed++ {
		if sc := g.Example(seed); Size(sc) >= minSize && pred(sc) {
			return sc
		}
	}
	t.Fatalf("no seed in 1..5000 gives a scenario of %d ops or more with the property", minSize)
	return nil
}

func TestShrinkArtificialFailure(t *testing.T) {
	orig := firstExample(t, 20, failInCollectAll)
	evals := 0
	got := Shrink(orig, func(sc *scenario.Scenario) bool {
		evals++
		return failInCollectAll(sc)
	}, DefaultShrinkBudget)
	if !failInCollectAll(got) {
		t.Fatalf("the result no longer fails:\n%s", got.Source)
	}
	if Size(got) > 3 {
		t.Fatalf("shrunk %d ops to %d, want at most 3:\n%s", Size(orig), Size(got), got.Source)
	}
	if _, err := scenario.Parse("x.toml", got.Source); err != nil {
		t.Fatalf("the result does not load: %v\n%s", err, got.Source)
	}
	if evals > DefaultShrinkBudget {
		t.Fatalf("%d evaluations for a budget of %d", evals, DefaultShrinkBudget)
	}
	t.Logf("%d ops -> %d ops in %d evaluations:\n%s", Size(orig), Size(got), evals, got.Source)
}

// TestShrinkBudget: fails is called at most budget times, and with a
// budget of 0 the scenario comes back as it was.
func TestShrinkBudget(t *testing.T) {
	orig := firstExample(t, 20, failInCollectAll)
	for _, budget := range []int{0, 1, 5, 30} {
		evals := 0
		got := Shrink(orig, func(sc *scenario.Scenario) bool {
			evals++
			return failInCollectAll(sc)
		}, budget)
		if evals > budget {
			t.Fatalf("budget %d: %d evaluations", budget, evals)
		}
		if !failInCollectAll(got) {
			t.Fatalf("budget %d: the result no longer fails", budget)
		}
		if budget == 0 && got != orig {
			t.Fatalf("budget 0 changed the scenario")
		}
	}
}

// TestShrinkNumbersAndOptions: with a failure that needs only a nursery
// to exist, the numbers and options around it go to their simplest.
func TestShrinkNumbersAndOptions(t *testing.T) {
	hasNursery := func(sc *scenario.Scenario) bool {
		n := 0
		for _, t := range sc.Tasks {
			n += countKind(t.Ops, scenario.Nursery)
		}
		return n > 0
	}
	hasCompute := func(sc *scenario.Scenario) bool {
		n := 0
		for _, t := range sc.Tasks {
			n += countKind(t.Ops, scenario.Compute)
		}
		return n > 0
	}
	orig := firstExample(t, 10, func(sc *scenario.Scenario) bool {
		return hasNursery(sc) && hasCompute(sc) && sc.Scheduler.YieldInterval != scenario.DefaultYieldInterval
	})
	got := Shrink(orig, func(sc *scenario.Scenario) bool { return hasNursery(sc) && hasCompute(sc) }, DefaultShrinkBudget)
	if Size(got) != 2 {
		t.Fatalf("want a nursery and a compute, got:\n%s", got.Source)
	}
	var walk func(ops []scenario.Op)
	walk = func(ops []scenario.Op) {
		for _, op := range ops {
			if op.Kind == scenario.Nursery && (op.Mode != scenario.ModeFailFast || op.Catch || op.MaxConcurrent != 0) {
				t.Fatalf("nursery options not reset:\n%s", got.Source)
			}
			if op.Kind == scenario.Compute && op.N != 0 {
				t.Fatalf("compute not halved to 0:\n%s", got.Source)
			}
			walk(op.Body)
		}
	}
	for _, task := range got.Tasks {
		walk(task.Ops)
	}
	if got.Scheduler.YieldInterval != scenario.DefaultYieldInterval || got.Scheduler.Victim != scenario.DefaultVictim {
		t.Fatalf("scheduler options not reset:\n%s", got.Source)
	}
}

func countKind(ops []scenario.Op, k scenario.OpKind) int {
	n := 0
	for i := range ops {
		if ops[i].Kind == k {
			n++
		}
		n += countKind(ops[i].Body, k)
	}
	return n
}

// TestShrinkUnwrapsBodies: a fail inside loop and using bodies comes out
// of them when only the fail matters.
func TestShrinkUnwrapsBodies(t *testing.T) {
	src := `version = 1
[task.main]
ops = [
  { log = "a" },
  { loop = 3, body = [ { using = "r", body = [ { compute = 5 }, { fail = "E" } ] } ] },
  { log = "b" },
]
`
	sc, err := scenario.Parse("x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	hasFail := func(sc *scenario.Scenario) bool {
		n := 0
		for _, t := range sc.Tasks {
			n += countKind(t.Ops, scenario.Fail)
		}
		return n > 0
	}
	got := Shrink(sc, hasFail, 100)
	ops := got.Tasks["main"].Ops
	if len(ops) != 1 || ops[0].Kind != scenario.Fail {
		t.Fatalf("want main = [ fail ], got:\n%s", got.Source)
	}
}
