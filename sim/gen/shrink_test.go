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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestShrinkDropsOptions: with a failure that needs only a nursery, every
// option and setting beyond the first format goes back to its default: timeouts,
// budgets, caps, `as`, unused channels, [budget], the profile and main's
// caps.
func TestShrinkDropsOptions(t *testing.T) {
	t.Parallel()
	sc := mustParse(t, `
[scheduler]
profile = "sovereign"
[budget]
ops = 500
syscalls = 3
[channels]
c = { capacity = 3 }
[task.main]
caps = ["spawn", "supervisor"]
ops = [
  { nursery = "n", mode = "collect_all", timeout = 40, budget = { ops = 9 }, body = [
    { spawn = "w", as = "a", caps = ["spawn"], budget = { ops = 3 } },
    { sleep = 9 },
    { alloc = 100 },
    { syscall = 3 },
  ] },
]
[task.w]
ops = [ { compute = 2 } ]
`)
	hasNursery := func(sc *scenario.Scenario) bool { return countKind(sc.Tasks["main"].Ops, scenario.Nursery) > 0 }
	got := Shrink(sc, hasNursery, DefaultShrinkBudget)
	want := `version = 1
name = "x"

[task.main]
ops = [
  { nursery = "n", mode = "fail_fast", body = [] },
]
`
	if string(got.Source) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got.Source, want)
	}
}

// TestShrinkStaysSafe: a shrunk scenario stays in the fragment Safe
// accepts, so that it cannot block for ever by itself. Asked to keep a
// consumer running, the shrinker may not delete its producer, nor the
// producer's close when the consumer receives once more than it sends.
func TestShrinkStaysSafe(t *testing.T) {
	t.Parallel()
	consumerRuns := func(sc *scenario.Scenario) bool {
		run, err := Execute(sc, 1, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range run.Tasks {
			if countKind(sc.Tasks[task.Name].Ops, scenario.Recv) > 0 && task.Steps > 0 {
				return true
			}
		}
		return false
	}
	orig := firstExample(t, 20, consumerRuns)
	got := Shrink(orig, consumerRuns, DefaultShrinkBudget)
	if !consumerRuns(got) {
		t.Fatalf("the consumer is gone:\n%s", got.Source)
	}
	if err := Safe(got); err != nil {
		t.Fatalf("the shrunk scenario is not safe: %v\n%s", err, got.Source)
	}
	if countAll(got, scenario.Send)+countAll(got, scenario.Close) == 0 {
		t.Fatalf("a recv with no producer left:\n%s", got.Source)
	}
	t.Logf("%d ops -> %d ops:\n%s", Size(orig), Size(got), got.Source)
}

func countAll(sc *scenario.Scenario, k scenario.OpKind) int {
	n := 0
	for _, t := range sc.Tasks {
		n += countKind(t.Ops, k)
	}
	return n
}
