package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func load(t testing.TB, path string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func parse(t testing.TB, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("inline.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// threeLoggers: three children of different lengths that each log; the
// log's order is what the schedule decides.
const threeLoggers = `version = 1
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "a" }, { spawn = "b" }, { spawn = "c" } ] } ]
[task.a]
ops = [ { compute = 3 }, { log = "a" } ]
[task.b]
ops = [ { compute = 1 }, { log = "b" } ]
[task.c]
ops = [ { compute = 2 }, { log = "c" } ]
`

// Every schedule the search runs is distinct, has at most K preemptions,
// is counted under its own bound, and its preemptions are those its
// choices cost.
func TestSchedulesDistinctAndBounded(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	for _, workers := range []int{2, 3} {
		for k := 0; k <= 2; k++ {
			seen := map[string]bool{}
			perBound := make([]int64, k+1)
			o := Options{Workers: workers, Preemptions: k, visit: func(ch *chooser, _ *sim.Run) {
				key := fmt.Sprint(ch.choices())
				if seen[key] {
					t.Errorf("workers %d K=%d: schedule %s run twice", workers, k, key)
				}
				seen[key] = true
				pre := 0
				for _, p := range ch.points {
					pre += p.cost(p.chosen)
				}
				if pre != ch.pre || pre > k {
					t.Errorf("workers %d K=%d: schedule %s has %d preemptions (chooser says %d)", workers, k, key, pre, ch.pre)
				}
				if pre <= k {
					perBound[pre]++
				}
			}}
			rep, err := Run(sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Exhaustive || rep.Failure != nil {
				t.Fatalf("workers %d K=%d: exhaustive %v, failure %v", workers, k, rep.Exhaustive, rep.Failure)
			}
			// The report's counts stop at the highest bound the search reached.
			if !slices.Equal(perBound[:len(rep.PerBound)], rep.PerBound) || slices.ContainsFunc(perBound[len(rep.PerBound):], func(n int64) bool { return n != 0 }) ||
				int64(len(seen)) != rep.Schedules {
				t.Errorf("workers %d K=%d: per bound %v, report says %v; %d distinct of %d", workers, k, perBound, rep.PerBound, len(seen), rep.Schedules)
			}
		}
	}
}

// The search is sound: every log order the random walk and pct reach in
// many seeds on 2 and 3 workers, explore reaches too (3 preemptions are
// enough for this small program), and a higher bound never sees fewer
// outcomes.
func TestExploreCoversSampledOutcomes(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	for _, workers := range []int{2, 3} {
		logs := func(k int) map[string]bool {
			out := map[string]bool{}
			rep, err := Run(sc, Options{Workers: workers, Preemptions: k, visit: func(_ *chooser, r *sim.Run) {
				out[strings.Join(r.Log, ",")] = true
			}})
			if err != nil || !rep.Exhaustive {
				t.Fatalf("workers %d K=%d: %v", workers, k, err)
			}
			return out
		}
		explored := logs(3)
		for _, strategy := range []string{sim.StrategyRandom, sim.StrategyPCT} {
			for seed := uint64(0); seed < 200; seed++ {
				o := sim.Options{Seed: seed, HasSeed: true, Workers: workers, Strategy: strategy}
				c, err := sim.Resolve(sc, o)
				if err != nil {
					t.Fatal(err)
				}
				r, err := sim.Execute(sc, c, o)
				if err != nil {
					t.Fatal(err)
				}
				if l := strings.Join(r.Log, ","); !explored[l] {
					t.Fatalf("workers %d: %s seed %d logs %q, which explore up to 3 preemptions never produced (it saw %v)", workers, strategy, seed, l, explored)
				}
			}
		}
		prev := 0
		for k := 0; k <= 2; k++ {
			n := len(logs(k))
			if n < prev {
				t.Errorf("workers %d: K=%d sees %d log orders, K=%d saw %d", workers, k, n, k-1, prev)
			}
			prev = n
		}
	}
}

// TestShrinkFoundSearchesNoLower: a failure the explorer found (dining
// philosophers at 1 preemption, on 2 and 3 workers) shrinks to the same
// schedule without the bounded search below its preemptions as with it,
// in fewer runs: iterative bounding already ran every schedule below.
func TestShrinkFoundSearchesNoLower(t *testing.T) {
	t.Parallel()
	sc := load(t, "../../scenarios/bugs/dining_philosophers.toml")
	for _, workers := range []int{2, 3} {
		rep, err := Run(sc, Options{Workers: workers, Preemptions: 2, NoShrink: true})
		if err != nil || rep.Failure == nil || rep.Failure.Found.Preemptions == 0 {
			t.Fatalf("workers %d: %v, failure %+v: want one found at 1 preemption or more", workers, err, rep.Failure)
		}
		o := Options{Workers: workers, Preemptions: 2}
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		var shrunk [2]Failure
		for i, least := range []bool{false, true} {
			shrunk[i] = Failure{Signature: rep.Failure.Signature, Found: rep.Failure.Found}
			if err := shrink(o, sc, rep.Config, &shrunk[i], least); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(shrunk[0].Shrunk.Choices, shrunk[1].Shrunk.Choices) || shrunk[0].Shrunk.Steps != shrunk[1].Shrunk.Steps {
			t.Errorf("workers %d: shrunk to %v with the search below, %v without", workers, shrunk[0].Shrunk, shrunk[1].Shrunk)
		}
		if shrunk[1].Runs >= shrunk[0].Runs {
			t.Errorf("workers %d: %d runs without the search below, %d with it: want fewer", workers, shrunk[1].Runs, shrunk[0].Runs)
		}
		t.Logf("workers %d: %d runs, %d with the search below", workers, shrunk[1].Runs, shrunk[0].Runs)
	}
}

// Each bug of scenarios/bugs is found, shrunk to a schedule that fails
// the same way with no more preemptions and steps, and its repro's
// run.trace replays identically with --schedule (and is refused without).
func TestFindsBugsAndReproReplays(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"run_ahead_fail_fast", "run_ahead_order", "dining_philosophers"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "scenarios", "bugs", name+".toml")
			sc := load(t, path)
			rep, err := Run(sc, Options{Workers: 2, Preemptions: 2})
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Failure
			if f == nil {
				t.Fatalf("not found in %d schedules", rep.Schedules)
			}
			if f.Shrunk.Preemptions > f.Found.Preemptions || (f.Shrunk.Preemptions == f.Found.Preemptions && f.Shrunk.Steps > f.Found.Steps) {
				t.Errorf("shrunk %s is not smaller than found %s", f.Shrunk.Size(), f.Found.Size())
			}
			if got := sim.Signature(FailedChecks(f.Run)); got != f.Signature {
				t.Errorf("shrunk run fails with %q, found with %q", got, f.Signature)
			}
			dir, err := WriteRepro(t.TempDir(), path, sc, rep)
			if err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(dir, "run.trace")
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sim.Replay(trace, data, true, 3)
			if err != nil || !r.Identical {
				t.Fatalf("replay --schedule: err %v, report %+v", err, r)
			}
			if r.Run.Passed() || r.Run.Steps != f.Shrunk.Steps {
				t.Errorf("the replayed run passed %v / has %d steps, want a failure in %d", r.Run.Passed(), r.Run.Steps, f.Shrunk.Steps)
			}
			if _, err := sim.Replay(trace, data, false, 3); err == nil {
				t.Errorf("a plain replay of an explore trace was accepted")
			}
			if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), `class="lane lane-task"`) {
				t.Errorf("the repro's report.html has no task lanes (%v)", err)
			}
		})
	}
}

// With more than two workers a steal's victim is a decision when two
// deques hold work; victim decisions never cost a preemption.
func TestVictimDecisions(t *testing.T) {
	t.Parallel()
	sc := parse(t, `version = 1
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "s" }, { spawn = "s" } ] } ]
[task.s]
ops = [ { nursery = "m", body = [ { spawn = "leaf" }, { spawn = "leaf" } ] } ]
[task.leaf]
ops = [ { compute = 1 } ]
`)
	victims := 0
	rep, err := Run(sc, Options{Workers: 3, Preemptions: 1, MaxSchedules: 2000, visit: func(ch *chooser, _ *sim.Run) {
		for _, p := range ch.points {
			if p.victim {
				victims++
				if p.cost(p.chosen) != 0 {
					t.Errorf("a victim decision cost a preemption")
				}
			}
		}
	}})
	if err != nil || rep.Failure != nil {
		t.Fatal(err, rep.Failure)
	}
	if victims == 0 {
		t.Errorf("no victim decision in %d schedules on 3 workers", rep.Schedules)
	}
}

func TestMaxSchedulesNotExhaustive(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	rep, err := Run(sc, Options{Workers: 2, Preemptions: 2, MaxSchedules: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Exhaustive || rep.Schedules != 3 {
		t.Fatalf("exhaustive %v after %d schedules, want a stop at 3", rep.Exhaustive, rep.Schedules)
	}
}

// TestInterrupted: a search whose Context is cancelled while a batch runs
// stops there: the schedules started finish and are counted (every one
// of them, in order, as Jobs 1 runs them), none starts after, and the
// report says interrupted, not exhaustive, in its verdict line.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	whole, err := Run(sc, Options{Workers: 2, Preemptions: 2})
	if err != nil || !whole.Exhaustive || whole.Interrupted {
		t.Fatalf("the whole search: %v, exhaustive %v, interrupted %v", err, whole.Exhaustive, whole.Interrupted)
	}
	for _, at := range []int64{1, 5, whole.Schedules / 2} {
		ctx, cancel := context.WithCancel(context.Background())
		var runs int64
		rep, err := Run(sc, Options{Workers: 2, Preemptions: 2, Jobs: 1, Context: ctx,
			Exec: func(sc *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error) {
				if runs++; runs == at {
					cancel()
				}
				return sim.Execute(sc, c, o)
			}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Interrupted || rep.Exhaustive || rep.Schedules != at || runs != at {
			t.Fatalf("cancelled in schedule %d of %d: interrupted %v, exhaustive %v, %d schedules counted, %d run",
				at, whole.Schedules, rep.Interrupted, rep.Exhaustive, rep.Schedules, runs)
		}
		var out strings.Builder
		if err := rep.Write(&out, "x.toml"); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("interrupted at %d schedules, not exhaustive", at); !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}

// A schedule is a pure function of its choices: any prefix of choices,
// run twice, gives the same run.
func TestPrefixDeterministic(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	cfg, err := Resolve(sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.SliceOfN(rapid.Uint8Range(0, 2), 0, 12).Draw(t, "prefix")
		a, cha, err := execute(sim.Execute, sc, cfg, prefix, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, chb, err := execute(sim.Execute, sc, cfg, prefix, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Steps != b.Steps || !slices.Equal(a.Log, b.Log) || !slices.Equal(cha.choices(), chb.choices()) {
			t.Fatalf("prefix %v: two runs differ", prefix)
		}
	})
}

// One call per strategy gives a row of a bug-finding table: random does
// not catch the run-ahead bug in 300 seeds, pct and explore do, and both
// failing schedules shrink to no preemption.
func TestRunHunt(t *testing.T) {
	t.Parallel()
	sc := load(t, "../../scenarios/bugs/run_ahead_order.toml")
	for _, c := range []struct {
		strategy string
		caught   bool
	}{{sim.StrategyRandom, false}, {sim.StrategyPCT, true}, {sim.StrategyExplore, true}} {
		h, err := RunHunt(sc, HuntOptions{Workers: 2, Strategy: c.strategy, Limit: 300, Preemptions: 2})
		if err != nil {
			t.Fatal(err)
		}
		if h.Caught != c.caught {
			t.Fatalf("%s: caught %v after %d runs", c.strategy, h.Caught, h.Runs)
		}
		if !h.Caught {
			if h.Runs != 300 {
				t.Errorf("%s: %d runs, want all 300", c.strategy, h.Runs)
			}
			continue
		}
		if h.Failure == nil || h.Failure.Shrunk.Preemptions != 0 {
			t.Fatalf("%s: failure %+v (%s)", c.strategy, h.Failure, h.Note)
		}
		t.Logf("%s: caught after %d runs, schedule %s -> %s", c.strategy, h.Runs, h.Failure.Found.Size(), h.Failure.Shrunk.Size())
	}
}

// The schedules run, in their order, and the report are the same on any
// number of goroutines, whether the search is exhaustive, stopped by
// MaxSchedules within a batch, or stopped by a failure.
func TestJobsDoNotChangeTheSearch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sc      *scenario.Scenario
		workers int
		max     int
	}{
		{parse(t, threeLoggers), 3, 0},
		{parse(t, threeLoggers), 3, batchSize + 7},
		{load(t, "../../scenarios/bugs/dining_philosophers.toml"), 2, 0},
		{load(t, "../../scenarios/bugs/dining_philosophers.toml"), 3, 0},
	}
	for i, c := range cases {
		var want []string
		var wantRep *Report
		for _, jobs := range []int{1, 2, 3} {
			var got []string
			rep, err := Run(c.sc, Options{Workers: c.workers, Preemptions: 2, MaxSchedules: c.max, Jobs: jobs, NoShrink: true,
				visit: func(ch *chooser, _ *sim.Run) { got = append(got, fmt.Sprint(ch.choices())) }})
			if err != nil {
				t.Fatal(err)
			}
			rep.Elapsed = 0
			if jobs == 1 {
				want, wantRep = got, rep
				t.Logf("case %d: %d schedules, exhaustive %v, failed %v", i, rep.Schedules, rep.Exhaustive, rep.Failure != nil)
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("case %d: %d jobs ran %d schedules, 1 job %d, or in another order", i, jobs, len(got), len(want))
			}
			if fmt.Sprint(rep.PerBound, rep.Schedules, rep.Exhaustive, rep.Outcomes) != fmt.Sprint(wantRep.PerBound, wantRep.Schedules, wantRep.Exhaustive, wantRep.Outcomes) ||
				(rep.Failure == nil) != (wantRep.Failure == nil) ||
				(rep.Failure != nil && !slices.Equal(rep.Failure.Found.Choices, wantRep.Failure.Found.Choices)) {
				t.Errorf("case %d: %d jobs report %+v, 1 job %+v", i, jobs, rep, wantRep)
			}
		}
	}
}

// A task that yields forever cannot starve one that a preemption left in
// the middle of its run, even when the spinner's yields carry it from
// worker to worker through the global queue: the fairness rule is about
// tasks, not the worker a task yielded on. On 3 workers the old rule let
// a blank worker pick the spinner up again after every yield, and the
// spinner ran until its budget was exhausted (a failed schedule at 1
// preemption and 900,647 steps).
func TestFairAcrossWorkers(t *testing.T) {
	t.Parallel()
	sc := load(t, "../../scenarios/explicit_cancel.toml")
	rep, err := Run(sc, Options{Workers: 3, Preemptions: 1, NoShrink: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failure != nil || !rep.Exhaustive {
		t.Fatalf("want exhaustive and passing, got failure %v exhaustive %v", rep.Failure, rep.Exhaustive)
	}
}

// A recorded schedule the explorer's chooser cannot express (here one
// that ends at once, so that the converter's choices are empty and the
// default schedule passes) is still shrunk: the shrinker searches for the
// same failure by iterative bounding. Before, it was left as recorded.
func TestShrinkRecordedSearchesWhenNotConverted(t *testing.T) {
	t.Parallel()
	sc := load(t, filepath.Join("..", "..", "scenarios", "bugs", "run_ahead_fail_fast.toml"))
	rep, err := Run(sc, Options{Workers: 2, Preemptions: 2, NoShrink: true})
	if err != nil || rep.Failure == nil {
		t.Fatalf("the bug is not found: err %v", err)
	}
	f, err := ShrinkRecorded(sc, 2, &sim.Schedule{}, rep.Failure.Signature, Options{})
	if err != nil {
		t.Fatalf("ShrinkRecorded: %v", err)
	}
	if got := sim.Signature(FailedChecks(f.Run)); got != rep.Failure.Signature {
		t.Errorf("shrunk run fails with %q, want %q", got, rep.Failure.Signature)
	}
	if f.Shrunk.Preemptions > rep.Failure.Found.Preemptions {
		t.Errorf("shrunk to %s, more preemptions than the explorer's %s", f.Shrunk.Size(), rep.Failure.Found.Size())
	}
}

// A huge preemption bound costs what the search meets, not the bound: the
// report's counts stop at the highest bound reached, the printed line
// folds the bounds that ran nothing, and past PreemptionsMax is refused.
func TestHugePreemptionBound(t *testing.T) {
	sc := parse(t, threeLoggers)
	rep, err := Run(sc, Options{Workers: 2, Preemptions: PreemptionsMax, MaxSchedules: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.PerBound) > 50 {
		t.Errorf("%d per-bound counts for 50 schedules", len(rep.PerBound))
	}
	var b strings.Builder
	if err := rep.Write(&b, "s.toml"); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("..%d:0\n", PreemptionsMax); !strings.Contains(b.String(), want) || b.Len() > 4096 {
		t.Errorf("report of %d bytes, want one line ending %q:\n%.600s", b.Len(), want, b.String())
	}
	if _, err := Run(sc, Options{Workers: 2, Preemptions: PreemptionsMax + 1}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("bound past PreemptionsMax: %v, want out of range", err)
	}
}
