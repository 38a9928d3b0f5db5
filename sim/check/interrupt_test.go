package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestCheckInterrupted: a context cancelled during the k-th run stops the
// check there (one job, so exactly k runs are made); the report counts
// the runs made, as many as the exec function saw, says "k of N runs
// made", leaves out recorded runs and second executions that did not run,
// and marks the CI report. An uninterrupted check says none of it.
func TestCheckInterrupted(t *testing.T) {
	sc := loadFile(t, "../../scenarios/lifo_cleanup.toml")
	_, tr := runOnce(t, sc, sim.Options{Seed: 1, HasSeed: true, Workers: 2})
	trace := filepath.Join(t.TempDir(), "a.trace")
	if err := os.WriteFile(trace, []byte(tr), 0o644); err != nil {
		t.Fatal(err)
	}
	// 2 seeds × 2 worker counts, 1 recorded run, 4 second executions:
	// jobs 0-3 seeded, 4 recorded, 5-8 the second executions.
	const planned = 5
	for _, at := range []int{1, 3, 5, 7, 0} {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		calls := 0
		exec := func(s *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error) {
			mu.Lock()
			if calls++; calls == at {
				cancel()
			}
			mu.Unlock()
			return sim.Execute(s, c, o)
		}
		o := Options{Seeds: 2, SeedStart: 1, Workers: []int{1, 2}, Jobs: 1, Resample: 4, Traces: []string{trace}, ExecRecorded: exec, Context: ctx}
		r := mustCheck(t, []*scenario.Scenario{sc}, []string{"lifo.toml"}, o, exec)
		cancel()
		out := reportText(t, r)
		wantRuns, wantTwice, wantRecorded := int64(min(at, planned)), max(at-planned, 0), 0
		if at == 0 {
			wantRuns, wantTwice = planned, 4
		}
		if wantRuns == planned {
			wantRecorded = 1
		}
		if r.Interrupted != (at != 0) || r.Runs != wantRuns || r.Resampled != wantTwice || len(r.Recorded) != wantRecorded || r.Failed() {
			t.Fatalf("cancelled in call %d: interrupted %v, %d runs, %d executed twice, %d recorded\n%s",
				at, r.Interrupted, r.Runs, r.Resampled, len(r.Recorded), out)
		}
		said := fmt.Sprintf("interrupted: %d of %d runs made", wantRuns, planned)
		if strings.Contains(out, said) != r.Interrupted || strings.Contains(out, "interrupted") != r.Interrupted {
			t.Fatalf("cancelled in call %d: want %q said iff interrupted (%v):\n%s", at, said, r.Interrupted, out)
		}
		if c := r.CI(); c.Interrupted != r.Interrupted || c.Runs != wantRuns {
			t.Fatalf("cancelled in call %d: the CI report says interrupted %v, %d runs", at, c.Interrupted, c.Runs)
		}
	}
}

// The order runs are handed out in (runIndex): a bijection between the
// runs of the check and 0..seeded-1, seed-major, so that the first k runs
// hold every row's first seeds: any two rows have run counts that differ
// by at most one.
func TestRunOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nsc := rapid.IntRange(1, 4).Draw(rt, "scenarios")
		nw := rapid.IntRange(1, 4).Draw(rt, "workers")
		seeds := rapid.IntRange(1, 6).Draw(rt, "seeds")
		workers := make([]int, nw)
		for i := range workers {
			workers[i] = i + 1
		}
		c := &checker{o: Options{Seeds: seeds, SeedStart: 10, Workers: workers}, perSeed: int64(nsc * nw)}
		c.seeded = c.perSeed * int64(seeds)
		k := rapid.Int64Range(0, c.seeded).Draw(rt, "made")
		rows := make([]int, nsc*nw)
		for i := range c.seeded {
			sc, wi, seed := c.runOf(i)
			if c.runIndex(sc, wi, int(seed-10)) != i {
				rt.Fatalf("run %d is (%d, %d, %d), whose index is %d", i, sc, wi, seed, c.runIndex(sc, wi, int(seed-10)))
			}
			if i < k {
				rows[sc*nw+wi]++
			}
		}
		if slices.Max(rows)-slices.Min(rows) > 1 {
			rt.Fatalf("after %d runs the rows hold %v runs", k, rows)
		}
	})
}
