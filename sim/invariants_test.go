package sim

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// pairwiseInnerBeforeOuter is the definition of inner-before-outer's
// own-nursery half, compared pair by pair: the model the fast check must
// agree with.
func pairwiseInnerBeforeOuter(h *history) string {
	for _, id := range h.order {
		n := h.nurseries[id]
		if n.termAt < 0 {
			continue
		}
		for _, other := range h.tasks[n.owner].owned {
			in := h.nurseries[other]
			if in.id != n.id && in.openAt > n.openAt && in.openAt < n.termAt && endsAfter(in, n) {
				return innerAfterOuter(in, n)
			}
		}
	}
	return ""
}

// ownedHistory builds a history of one task that opened nurseries at the
// given event indices (ascending), each ending at ends[i] (-1: never).
func ownedHistory(opens, ends []int) *history {
	h := newHistory()
	o := h.task(1)
	for i := range opens {
		id := int64(i + 1)
		n := &nurseryHist{id: id, label: fmt.Sprint("n", id), owner: 1, ownedAt: i, openAt: opens[i], termAt: ends[i], cancelAt: -1}
		h.nurseries[id] = n
		h.order = append(h.order, id)
		o.owned = append(o.owned, id)
	}
	return h
}

func TestInnerBeforeOuterMatchesPairwise(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(0, 30).Draw(t, "k")
		opens, ends := make([]int, k), make([]int, k)
		at := 0
		for i := range k {
			at += rapid.IntRange(1, 5).Draw(t, "gap")
			opens[i] = at
			ends[i] = -1
			if rapid.IntRange(0, 5).Draw(t, "ended") > 0 {
				ends[i] = at + rapid.IntRange(1, 60).Draw(t, "len")
			}
		}
		h := ownedHistory(opens, ends)
		v := &view{h: h, taskIDs: ids(h.tasks)}
		if got, want := innerBeforeOuter(v), pairwiseInnerBeforeOuter(h); got != want {
			t.Fatalf("fast %q, pairwise %q", got, want)
		}
	})
}

// TestInnerBeforeOuterManyNurseries is the loop that opens an empty
// nursery until the step bound: 200,000 nurseries of one task, well
// nested. Comparing every pair took minutes at 100,000; the check must
// stay O(n log n).
func TestInnerBeforeOuterManyNurseries(t *testing.T) {
	const k = 200_000
	opens, ends := make([]int, k), make([]int, k)
	for i := range k {
		opens[i], ends[i] = 3*i, 3*i+1
	}
	v := &view{h: ownedHistory(opens, ends)}
	start := time.Now()
	if bad := innerBeforeOuter(v); bad != "" {
		t.Fatalf("well-nested nurseries reported: %s", bad)
	}
	// A generous bound: the pairwise check needs 2e10 comparisons here.
	if d := time.Since(start); d > 5*time.Second*raceSlowdown {
		t.Fatalf("inner-before-outer over %d nurseries took %v", k, d)
	}
}

// TestLoopingEmptyNurseryScenario runs the scenario that hung the check,
// scaled down: main opens an empty nursery 20,000 times.
func TestLoopingEmptyNurseryScenario(t *testing.T) {
	sc := parseSrc(t, "loop", `version = 1
name = "loop"
[scheduler]
max_steps = 1000000
[budget]
ops = 10000000
[task.main]
ops = [ { loop = 20000, body = [ { nursery = "n", body = [] } ] } ]
`)
	start := time.Now()
	run, _ := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 1})
	if !run.Passed() || run.Outcome != OutcomeOK {
		t.Fatalf("outcome %s%s", run.Outcome, failures(run))
	}
	if d := time.Since(start); d > 10*time.Second*raceSlowdown {
		t.Fatalf("20,000 empty nurseries took %v to run and check", d)
	}
}

func parseSrc(t *testing.T, name, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
