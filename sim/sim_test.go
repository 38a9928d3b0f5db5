package sim

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/")

// bundled loads every scenario shipped in scenarios/.
func bundled(t *testing.T) []*scenario.Scenario {
	t.Helper()
	paths, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	var out []*scenario.Scenario
	for _, p := range paths {
		sc, err := scenario.Load(p)
		if err != nil {
			t.Fatalf("%v", err)
		}
		out = append(out, sc)
	}
	return out
}

func runOnce(t *testing.T, sc *scenario.Scenario, o Options) (*Run, string) {
	t.Helper()
	run, trace, err := execOnce(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	return run, trace
}

// execOnce is runOnce without the testing.T, for a goroutine other than
// the test's: t.Fatal there would end only that goroutine.
func execOnce(sc *scenario.Scenario, o Options) (*Run, string, error) {
	c, err := Resolve(sc, o)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", sc.Name, err)
	}
	var buf bytes.Buffer
	if !o.Mode.Real() {
		o.Trace = &buf
	}
	run, err := Execute(sc, c, o)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", sc.Name, err)
	}
	return run, buf.String(), nil
}

// runUntraced is runOnce without the trace, for a test that reads only the
// outcome and the checks: they do not depend on the trace, and writing it
// is half the cost of a run (the golden, replay and resample tests cover
// the writer).
func runUntraced(t *testing.T, sc *scenario.Scenario, o Options) *Run {
	t.Helper()
	c, err := Resolve(sc, o)
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	run, err := Execute(sc, c, o)
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	return run
}

func failures(run *Run) string {
	var b strings.Builder
	for _, c := range run.Checks {
		if !c.OK {
			fmt.Fprintf(&b, "\n  %s: %s", c.Name, c.Detail)
		}
	}
	return b.String()
}

// TestBundledScenariosAllSeeds is the contract of scenarios/README.md: every bundled
// scenario holds for seeds 1..200 on 1, 2, 4 and 8 workers, which `make
// test` checks (testkit.Full). Plain `go test` runs seeds 1..50, -short
// 25: the sweep was two thirds of the package's CPU time.
func TestBundledScenariosAllSeeds(t *testing.T) {
	t.Parallel()
	seeds := uint64(50)
	if testkit.Full() {
		seeds = 200
	} else if testing.Short() {
		seeds = 25
	}
	for _, sc := range bundled(t) {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel() // each scenario is its own: both cores take them
			for _, workers := range []int{1, 2, 4, 8} {
				for seed := uint64(1); seed <= seeds; seed++ {
					run := runUntraced(t, sc, Options{Seed: seed, HasSeed: true, Workers: workers})
					if !run.Passed() {
						t.Fatalf("seed %d workers %d: outcome %s%s\nreproduce: cbcsim run %s --seed %d --workers %d",
							seed, workers, run.Outcome, failures(run), sc.Name, seed, workers)
					}
				}
			}
		})
	}
}

// TestBundledScenariosReal runs every bundled scenario on real worker
// goroutines (under -race in CI); outcomes and expectations must hold.
func TestBundledScenariosReal(t *testing.T) {
	t.Parallel()
	checkBundledReal(t, Options{Mode: ModeReal}, []int{1, 2, 4, 8}, 10, 3)
}

// TestBundledScenariosRealLean: every bundled scenario on real workers as
// a Go program's scheduler runs (no KeepTasks: tasks and nurseries reused,
// lean nurseries), under -race; main's outcome, value, error and log must
// match the expectations.
func TestBundledScenariosRealLean(t *testing.T) {
	t.Parallel()
	checkBundledReal(t, Options{Mode: ModeRealLean}, []int{1, 2, 4}, 5, 2)
}

// checkBundledReal runs every bundled scenario with o on each worker count,
// rounds times (short rounds under -short), failing on a run that does
// not pass or has not ended after 60 s. The rounds of one worker count run
// at the same time: a scenario's real sleeps (sleep_order's 0.2 s,
// timeout_cancel_remaining's 0.3 s) then overlap instead of adding up, and
// runs that share the machine are what real mode meets anyway.
func checkBundledReal(t *testing.T, o Options, workerCounts []int, rounds, short int) {
	if testing.Short() {
		rounds = short
	}
	mode := "real"
	if o.Mode.Lean() {
		mode = "real lean"
	}
	type result struct {
		run *Run
		err error
	}
	for _, sc := range bundled(t) {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			for _, workers := range workerCounts {
				o := o
				o.Workers = workers
				done := make(chan result, rounds)
				for range rounds {
					go func() {
						run, _, err := execOnce(sc, o)
						done <- result{run, err}
					}()
				}
				timeout := time.After(60 * time.Second)
				for range rounds {
					select {
					case r := <-done:
						if r.err != nil {
							t.Fatalf("%s, workers %d: %v", mode, workers, r.err)
						}
						if !r.run.Passed() {
							t.Fatalf("%s, workers %d: outcome %s%s", mode, workers, r.run.Outcome, failures(r.run))
						}
					case <-timeout:
						t.Fatalf("%s, workers %d: no result after 60 s", mode, workers)
					}
				}
			}
		})
	}
}

// TestTraceDeterministic: the same scenario, seed and workers give the same
// trace byte for byte; two seeds on four workers give different traces.
func TestTraceDeterministic(t *testing.T) {
	t.Parallel()
	for _, sc := range bundled(t) {
		_, a := runOnce(t, sc, Options{Seed: 7, HasSeed: true, Workers: 4})
		_, b := runOnce(t, sc, Options{Seed: 7, HasSeed: true, Workers: 4})
		if a != b {
			t.Fatalf("%s: two runs with seed 7 gave different traces", sc.Name)
		}
	}
	sc := loadFile(t, "../scenarios/fail_fast.toml")
	_, a := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 4})
	_, b := runOnce(t, sc, Options{Seed: 2, HasSeed: true, Workers: 4})
	if a == b {
		t.Fatalf("seeds 1 and 2 gave the same trace")
	}
}

func loadFile(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestGoldenTraces compares a few runs with testdata/*.trace; rerun with
// -update to rewrite them and review the diff.
func TestGoldenTraces(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"fail_fast", "lifo_cleanup", "nested_cancel"} {
		sc := loadFile(t, "../scenarios/"+name+".toml")
		_, got := runOnce(t, sc, Options{Seed: 3, HasSeed: true, Workers: 2})
		testkit.Golden(t, filepath.Join("testdata", name+".seed3.w2.trace"), []byte(got), *update)
	}
}

// TestWrongExpectationFails: a broken expectation is reported with what was
// observed.
func TestWrongExpectationFails(t *testing.T) {
	t.Parallel()
	src := `version = 1
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "a" } ] }, { return = 5 } ]
[task.a]
ops = [ { return = 1 } ]
[expect]
outcome = "ok"
value = 6
[expect.nursery.n]
results = ["ok:2"]
`
	sc, err := scenario.Parse("wrong.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	run, _ := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 2})
	got := map[string]string{}
	for _, c := range run.Checks {
		if !c.OK {
			got[c.Name] = c.Detail
		}
	}
	if got["expect.value"] != "want ok:6, got ok:5" {
		t.Errorf("expect.value detail = %q", got["expect.value"])
	}
	if !strings.Contains(got["expect.nursery.n.results"], `got ["ok:1"]`) {
		t.Errorf("expect.nursery.n.results detail = %q", got["expect.nursery.n.results"])
	}
	if len(got) != 2 {
		t.Errorf("failed checks = %v, want exactly value and results", got)
	}
}
