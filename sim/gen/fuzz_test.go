package gen

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// TestFuzzPasses: a few hundred seeds on the real scheduler, every
// invariant holding, nothing written.
func TestFuzzPasses(t *testing.T) {
	t.Parallel()
	n := 400
	if testing.Short() {
		n = 100
	}
	out := t.TempDir()
	var progress bytes.Buffer
	rep, err := Fuzz(FuzzOptions{Seeds: n, Out: out}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if rep.First != nil {
		f := rep.First
		t.Fatalf("seed %d broke %v: %v\nshrunk:\n%s\nreplay: %s", f.Seed, f.Failed, f.Details, f.Shrunk.Source, f.Command)
	}
	if rep.Runs != n || rep.Failures != 0 || rep.SeedStart != 1 {
		t.Fatalf("report %+v, want %d runs from seed 1 and no failure", rep, n)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("a passing fuzz run wrote %d entries to %s", len(entries), out)
	}
	t.Logf("%d runs in %s (%.0f runs/s)", rep.Runs, rep.Elapsed, rep.RunsPerSec)
}

// TestFuzzInterrupted: a session whose Context is cancelled during run
// at stops there: the runs started finish (with Jobs 1, exactly the
// first at seeds), the report and its CI form say interrupted, and one
// that ran all its seeds says not.
func TestFuzzInterrupted(t *testing.T) {
	t.Parallel()
	for _, at := range []int{1, 7, 30} {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		runs := 0
		rep, err := Fuzz(FuzzOptions{Seeds: 40, Jobs: 1, Out: t.TempDir(), Context: ctx, Failing: func(run *sim.Run) []string {
			mu.Lock()
			defer mu.Unlock()
			if runs++; runs == at {
				cancel()
			}
			return FailedChecks(run)
		}}, nil)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Interrupted || rep.Runs != at || runs != at || rep.First != nil {
			t.Fatalf("cancelled in run %d of 40: interrupted %v, %d runs reported, %d made, failure %v", at, rep.Interrupted, rep.Runs, runs, rep.First)
		}
		if c := rep.CI(FuzzOptions{Seeds: 40, Workers: DefaultWorkers}); !c.Interrupted || c.Runs != int64(at) {
			t.Fatalf("the CI report: interrupted %v, %d runs", c.Interrupted, c.Runs)
		}
	}
	rep, err := Fuzz(FuzzOptions{Seeds: 10, Jobs: 1, Out: t.TempDir(), Context: context.Background()}, nil)
	if err != nil || rep.Interrupted || rep.Runs != 10 {
		t.Fatalf("an uninterrupted session: %v, interrupted %v, %d runs", err, rep.Interrupted, rep.Runs)
	}
}

// anyPanic is a stricter failure than the invariants: some task panicked.
// Generated programs panic often, so the fuzzer finds this at once.
func anyPanic(run *sim.Run) []string {
	for _, task := range run.Tasks {
		if strings.HasPrefix(task.Result, "panic:") {
			return []string{"task-panicked"}
		}
	}
	return nil
}

// TestFuzzFindsAndShrinks injects a failure predicate and checks the whole
// path: the lowest failing seed is found, shrunk, written, and the written
// repro fails again under the printed command's seed and worker count.
func TestFuzzFindsAndShrinks(t *testing.T) {
	t.Parallel()
	// The lowest seed that fails, found the slow way.
	want := uint64(0)
	g := Scenario()
	for seed := uint64(1); seed <= 500 && want == 0; seed++ {
		rs, w := RunSeed(seed, DefaultWorkers)
		run, err := Execute(g.Example(int(seed)), rs, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(anyPanic(run)) > 0 {
			want = seed
		}
	}
	if want == 0 {
		t.Fatal("no seed in 1..500 has a panicking task")
	}

	out := t.TempDir()
	rep, err := Fuzz(FuzzOptions{Seeds: 500, Out: out, Failing: anyPanic}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First
	if f == nil {
		t.Fatalf("no failure found: %+v", rep)
	}
	if f.Seed != want {
		t.Fatalf("reported seed %d, want the lowest failing seed %d", f.Seed, want)
	}
	if rep.Failures < 1 || rep.Runs < int(want) {
		t.Fatalf("report %+v", rep)
	}
	if f.SizeAfter > 3 || f.SizeAfter > f.SizeBefore {
		t.Fatalf("shrunk %d ops to %d, want at most 3:\n%s", f.SizeBefore, f.SizeAfter, f.Shrunk.Source)
	}
	if f.ShrinkEvals > DefaultShrinkBudget {
		t.Fatalf("%d shrink evaluations", f.ShrinkEvals)
	}

	// The files, and the repro replayed from disk.
	dir := filepath.Join(out, "fuzz-"+itoa(f.Seed))
	if f.Dir != dir {
		t.Fatalf("dir %s, want %s", f.Dir, dir)
	}
	for _, name := range []string{"scenario.toml", "original.toml", "run.trace", "README.txt", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%v", err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
	file := filepath.Join(dir, "scenario.toml")
	if want := "cbcsim run " + file + " --seed " + itoa(f.ReproSeed) + " --workers " + itoa(uint64(f.ReproWorkers)) + " "; !strings.HasPrefix(f.Command, want) {
		t.Fatalf("command %q, want %q", f.Command, want)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	for _, s := range []string{f.Command, "task-panicked", "SEED      " + itoa(f.Seed)} {
		if !strings.Contains(string(readme), s) {
			t.Fatalf("README.txt lacks %q:\n%s", s, readme)
		}
	}
	sc, err := scenario.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if Size(sc) != f.SizeAfter {
		t.Fatalf("the file has %d ops, the report says %d", Size(sc), f.SizeAfter)
	}
	run, err := Execute(sc, f.ReproSeed, f.ReproWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(anyPanic(run)) == 0 {
		t.Fatalf("the written repro does not fail under its command:\n%s", sc.Source)
	}
	// The trace is the shrunk run's: its header names the file's hash.
	tr, _ := os.ReadFile(filepath.Join(dir, "run.trace"))
	if !bytes.Contains(tr, []byte(sc.SHA256)) {
		t.Fatalf("run.trace does not name the scenario's sha256 %s", sc.SHA256)
	}
	orig, err := scenario.Load(filepath.Join(dir, "original.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if Size(orig) != f.SizeBefore {
		t.Fatalf("original.toml has %d ops, the report says %d", Size(orig), f.SizeBefore)
	}
	t.Logf("seed %d: %d ops -> %d ops in %d evaluations\n%s", f.Seed, f.SizeBefore, f.SizeAfter, f.ShrinkEvals, f.Shrunk.Source)
}

// TestFuzzSameForAnyJobs: the failure reported does not depend on how
// many goroutines ran the seeds.
func TestFuzzSameForAnyJobs(t *testing.T) {
	t.Parallel()
	var first *Failure
	for _, par := range []int{1, 3, 8} {
		rep, err := Fuzz(FuzzOptions{Seeds: 300, SeedStart: 40, Out: t.TempDir(), Failing: anyPanic, Jobs: par}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.First == nil {
			t.Fatalf("parallel %d: no failure", par)
		}
		if first == nil {
			first = rep.First
			continue
		}
		if rep.First.Seed != first.Seed || !bytes.Equal(rep.First.Shrunk.Source, first.Shrunk.Source) ||
			rep.First.Command[strings.LastIndex(rep.First.Command, " --seed"):] != first.Command[strings.LastIndex(first.Command, " --seed"):] {
			t.Fatalf("parallel %d found seed %d, parallel 1 seed %d", par, rep.First.Seed, first.Seed)
		}
	}
}

// TestFuzzDuration: a time bound instead of a count.
func TestFuzzDuration(t *testing.T) {
	t.Parallel()
	rep, err := Fuzz(FuzzOptions{Duration: 200 * time.Millisecond, SeedStart: 1000, Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs < 1 || rep.First != nil || rep.SeedStart != 1000 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Elapsed > 20*time.Second {
		t.Fatalf("a 200ms fuzz run took %s", rep.Elapsed)
	}
}

func TestFuzzOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []FuzzOptions{
		{},
		{Seeds: -1},
		{Duration: -time.Second},
		{Seeds: 1, Workers: []int{}},
		{Seeds: 1, Workers: []int{0}},
		{Seeds: 1, Workers: []int{257}},
		{Seeds: 1, ShrinkBudget: -1},
		{Seeds: 10, SeedStart: 1<<63 - 5},
	} {
		if _, err := Fuzz(o, nil); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestRunSeed: the run parameters come from the seed alone.
func TestRunSeed(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 200; seed++ {
		rs, w := RunSeed(seed, DefaultWorkers)
		rs2, w2 := RunSeed(seed, DefaultWorkers)
		if rs != rs2 || w != w2 || rs >= 1<<31 {
			t.Fatalf("seed %d: %d/%d then %d/%d", seed, rs, w, rs2, w2)
		}
		seen[w] = true
	}
	if len(seen) != len(DefaultWorkers) {
		t.Fatalf("200 seeds picked only the worker counts %v", seen)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestFuzzManyWorkersNoFalseLivelock: a worker count in 1..256 never fails
// a correct generated program by itself. Seed 101884 needed 20,085 steps
// on 256 workers when idle looks for work counted against max_steps.
func TestFuzzManyWorkersNoFalseLivelock(t *testing.T) {
	t.Parallel()
	rep, err := Fuzz(FuzzOptions{Seeds: 1, SeedStart: 101884, Workers: []int{256}, Out: t.TempDir(), Jobs: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.First != nil {
		t.Fatalf("seed 101884 on 256 workers failed: %v %v", rep.First.Failed, rep.First.Details)
	}
}

// TestFuzzShardsRunEachSeedOnce: fuzz's shards K/3 run, between them,
// exactly the seeds of the unsharded fuzz, each once. A run is known by
// its run seed and scenario, both derived from its generator seed.
func TestFuzzShardsRunEachSeedOnce(t *testing.T) {
	t.Parallel()
	runs := func(sh sweep.Shard) map[string]int {
		var mu sync.Mutex
		seen := map[string]int{}
		rep, err := Fuzz(FuzzOptions{Seeds: 300, Out: t.TempDir(), Jobs: 2, Shard: sh, Failing: func(r *sim.Run) []string {
			mu.Lock()
			seen[fmt.Sprint(r.Config.Seed, r.Config.Workers, r.Scenario.SHA256)]++
			mu.Unlock()
			return nil
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Runs != int(sh.Count(300)) {
			t.Fatalf("shard %v: %d runs, want %d", sh, rep.Runs, sh.Count(300))
		}
		return seen
	}
	whole := runs(sweep.Shard{})
	union := map[string]int{}
	for k := 1; k <= 3; k++ {
		for key, n := range runs(sweep.Shard{K: k, N: 3}) {
			union[key] += n
		}
	}
	if len(whole) != 300 || !maps.Equal(whole, union) {
		t.Fatalf("whole: %d distinct runs; shards: %d, equal %v", len(whole), len(union), maps.Equal(whole, union))
	}
}
