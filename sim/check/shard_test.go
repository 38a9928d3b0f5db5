package check

import (
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// TestCheckShardsRunEachRunOnce: check's shards K/3 run, between them,
// exactly the runs of the unsharded check, each once (the first
// executions; runs picked to be executed twice are executed twice by the
// shard that owns them), and their rows add up to the unsharded rows.
func TestCheckShardsRunEachRunOnce(t *testing.T) {
	t.Parallel()
	scs := bundled(t)[:6]
	paths := make([]string, len(scs))
	for i, sc := range scs {
		paths[i] = sc.Name
	}
	type runKey struct {
		sc      string
		seed    uint64
		workers int
		traced  bool // the first execution of a resampled run writes a trace
	}
	record := func(seen map[runKey]int, mu *sync.Mutex) execFunc {
		return func(sc *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error) {
			mu.Lock()
			seen[runKey{sc.Name, c.Seed, c.Workers, o.Trace != nil}]++
			mu.Unlock()
			return sim.Execute(sc, c, o)
		}
	}
	o := Options{Seeds: 7, SeedStart: 3, Workers: []int{1, 3}, Jobs: 2, Resample: 4}
	var mu sync.Mutex
	whole := map[runKey]int{}
	all := mustCheck(t, scs, paths, o, record(whole, &mu))

	union := map[runKey]int{}
	var runs, resampled int64
	rows := map[string]int64{}
	for k := 1; k <= 3; k++ {
		o.Shard = sweep.Shard{K: k, N: 3}
		part := map[runKey]int{}
		r := mustCheck(t, scs, paths, o, record(part, &mu))
		for key, n := range part {
			union[key] += n
		}
		runs += r.Runs
		resampled += int64(r.Resampled)
		for _, s := range r.Scenarios {
			for _, row := range s.Rows {
				rows[fmt.Sprintf("%s w%d runs", s.Name, row.Workers)] += row.Runs
				rows[fmt.Sprintf("%s w%d passed", s.Name, row.Workers)] += row.Passed
			}
		}
	}
	if !maps.Equal(union, whole) {
		t.Fatalf("the shards ran %v, the whole check %v", union, whole)
	}
	if runs != all.Runs || resampled != int64(all.Resampled) {
		t.Fatalf("shards: %d runs, %d resampled; whole: %d, %d", runs, resampled, all.Runs, all.Resampled)
	}
	for _, s := range all.Scenarios {
		for _, row := range s.Rows {
			if got := rows[fmt.Sprintf("%s w%d runs", s.Name, row.Workers)]; got != row.Runs {
				t.Errorf("%s w%d: shards ran %d, whole %d", s.Name, row.Workers, got, row.Runs)
			}
		}
	}
}
