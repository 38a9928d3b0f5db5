package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// TestRecordedRuns: traces given to a check are run again along their
// schedules and checked; a failing one (a known-bad scenario at a seed
// that refutes it) fails the check, the passing ones pass; with Seeds 0
// they are the whole check; and the shards of a check run each once.
func TestRecordedRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, scenarioPath string, o sim.Options) string {
		_, tr := runOnce(t, loadFile(t, scenarioPath), o)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tr), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	traces := []string{
		write("a.trace", "../../scenarios/fail_fast.toml", sim.Options{Seed: 3, HasSeed: true, Workers: 2}),
		write("b.trace", "../../scenarios/bugs/run_ahead_order.toml", sim.Options{Seed: 5, HasSeed: true, Workers: 2, Strategy: sim.StrategyPCT}),
		write("c.trace", "../../scenarios/lifo_cleanup.toml", sim.Options{Seed: 1, HasSeed: true, Workers: 4}),
	}
	r := mustCheck(t, nil, nil, Options{Traces: traces, Jobs: 2}, sim.Execute)
	if r.Runs != 3 || r.FailedRuns != 1 || len(r.Recorded) != 3 {
		t.Fatalf("runs %d failed %d recorded %d", r.Runs, r.FailedRuns, len(r.Recorded))
	}
	for i, rec := range r.Recorded {
		if !rec.Schedule || rec.Trace != traces[i] || rec.Failed() != (i == 1) {
			t.Errorf("recorded %d: %+v", i, rec)
		}
	}
	c := r.CI()
	if c.Runs != 3 || c.Failed != 1 || len(c.Cases) != 3 || len(c.Failures) != 1 || c.Failures[0].Suite != traces[1] {
		t.Fatalf("CI report %+v", c)
	}
	if text := reportText(t, r); !strings.Contains(text, "FAIL "+traces[1]) || !strings.Contains(text, "cbcsim replay --schedule "+traces[1]) {
		t.Fatalf("report:\n%s", text)
	}

	// With seeded runs too, split in 3 shards: each recorded run once.
	scs := bundled(t)[:2]
	paths := []string{"x.toml", "y.toml"}
	o := Options{Seeds: 2, Workers: []int{1}, Traces: traces, Jobs: 2}
	whole := mustCheck(t, scs, paths, o, sim.Execute)
	var runs, failed int64
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		o.Shard = sweep.Shard{K: k, N: 3}
		part := mustCheck(t, scs, paths, o, sim.Execute)
		runs, failed = runs+part.Runs, failed+part.FailedRuns
		for _, rec := range part.Recorded {
			seen[rec.Trace]++
		}
	}
	if runs != whole.Runs || failed != whole.FailedRuns || whole.Runs != 4+3 || len(seen) != 3 {
		t.Fatalf("shards: %d runs %d failed, recorded %v; whole %d, %d", runs, failed, seen, whole.Runs, whole.FailedRuns)
	}
	for tr, n := range seen {
		if n != 1 {
			t.Fatalf("%s run by %d shards", tr, n)
		}
	}
}
