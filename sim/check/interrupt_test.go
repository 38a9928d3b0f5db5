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
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// TestCheckInterrupted: a context cancelled during the k-th run stops the
// check there (one job, so exactly k runs are made); the report counts
// the runs made, as many as the exec function saw, says "k of N runs
// made", leaves out recorded runs and second executions that did not run,
// and marks the CI report. An uninterrupted check says none of it.
func TestCheckInterrupted(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestPlaceSeconds: the jobs of a shard are its runs and its second
// executions, each once (jobOf is a bijection onto them), and a sampled
// run's second execution is handed out after its first: right before the
// run that follows the first by the lag, or after the shard's last run.
func TestPlaceSeconds(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../../scenarios/lifo_cleanup.toml")
	rapid.Check(t, func(rt *rapid.T) {
		nsc := rapid.IntRange(1, 3).Draw(rt, "scenarios")
		nw := rapid.IntRange(1, 3).Draw(rt, "workers")
		n := rapid.IntRange(1, 4).Draw(rt, "shards")
		o := Options{
			Seeds:    rapid.IntRange(1, 400).Draw(rt, "seeds"),
			Workers:  []int{1, 2, 3}[:nw],
			Resample: rapid.IntRange(0, 300).Draw(rt, "resample"),
			Jobs:     rapid.IntRange(1, 100).Draw(rt, "jobs"),
			Shard:    sweep.Shard{K: rapid.IntRange(1, n).Draw(rt, "shard"), N: n},
		}
		scs, paths := make([]*scenario.Scenario, nsc), make([]string, nsc)
		for i := range scs {
			scs[i], paths[i] = sc, fmt.Sprintf("s%d.toml", i)
		}
		c, err := newChecker(scs, paths, o, sim.Execute)
		if err != nil {
			rt.Fatal(err)
		}
		runs := c.o.Shard.Count(c.total)
		seconds := c.placeSeconds(runs)
		lag := max(resampleLag, 4*int64(o.Jobs))
		firstAt := map[int64]int64{} // a run's position → its job
		secondAt := map[*sample]int64{}
		for j := range runs + int64(len(seconds)) {
			s, p := jobOf(seconds, j)
			switch {
			case s != nil:
				if _, dup := secondAt[s]; dup {
					rt.Fatalf("job %d: a second second execution", j)
				}
				secondAt[s] = j
			case p < 0 || p >= runs:
				rt.Fatalf("job %d: run position %d out of 0..%d", j, p, runs-1)
			default:
				if _, dup := firstAt[p]; dup {
					rt.Fatalf("job %d: run position %d again", j, p)
				}
				firstAt[p] = j
			}
		}
		if int64(len(firstAt)) != runs || len(secondAt) != len(c.samples) {
			rt.Fatalf("%d runs and %d second executions handed out, want %d and %d", len(firstAt), len(secondAt), runs, len(c.samples))
		}
		for _, s := range c.samples {
			p := c.o.Shard.Local(c.runIndex(s.sc, s.wi, int(s.seed-c.o.SeedStart)))
			first, second := firstAt[p], secondAt[s]
			if second <= first {
				rt.Fatalf("run position %d: its second execution at job %d, its first at %d", p, second, first)
			}
			// Not sooner than the lag after the first, not later than the
			// run that follows it by the lag.
			if q := p + 1 + lag; q < runs && !(firstAt[q-1] < second && second < firstAt[q]) {
				rt.Fatalf("run position %d at job %d: its second execution at job %d, not between runs %d and %d (jobs %d and %d)",
					p, first, second, q-1, q, firstAt[q-1], firstAt[q])
			}
		}
	})
}

// TestInterruptedComparesSome: a check stopped part way has compared the
// sampled runs it made early enough, rather than none (their second
// executions are not all queued last).
func TestInterruptedComparesSome(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../../scenarios/lifo_cleanup.toml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	calls := 0
	exec := func(s *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error) {
		mu.Lock()
		if calls++; calls == 700 {
			cancel()
		}
		mu.Unlock()
		return sim.Execute(s, c, o)
	}
	o := Options{Seeds: 1000, SeedStart: 1, Workers: []int{2}, Jobs: 1, Resample: 40, Context: ctx}
	r := mustCheck(t, []*scenario.Scenario{sc}, []string{"lifo.toml"}, o, exec)
	if !r.Interrupted || r.Failed() {
		t.Fatalf("interrupted %v, failed %v\n%s", r.Interrupted, r.Failed(), reportText(t, r))
	}
	// About 40 × 450/1000 samples were made a lag (256 jobs) or more
	// before the stop at the 700th job.
	if r.Resampled < 5 || r.Resampled >= 40 {
		t.Fatalf("%d runs made, %d of the 40 sampled compared; want some but not all", r.Runs, r.Resampled)
	}
}
