//go:build mutants

package mutants

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

var (
	long   = flag.Bool("long", false, "hunt the deep mutants with the long bounds (make mutants)")
	update = flag.Bool("update", false, "rewrite testdata/deep.golden")
)

// huntBounds are the runs each strategy gets per deep mutant: seeds for
// random and pct, schedules for explore, real-mode runs for real. The
// short bounds keep make test fast; make mutants uses the long ones.
type huntBounds struct{ random, pct, explore, real, rate int }

// rate is the number of seeds over which the long run also counts the
// failing seeds of random and pct: a first catch alone is one draw.
var (
	shortBounds = huntBounds{random: 200, pct: 200, explore: 2000, real: 20}
	longBounds  = huntBounds{random: 10000, pct: 2000, explore: 20000, real: 200, rate: 1000}
)

// deepWorkers is the worker count the deep scenarios are hunted on, but
// those of loneWorker: mutants of a path only a run's one worker takes.
const deepWorkers = 2

var loneWorker = map[mutant.Name]bool{mutant.HandOffLosesYielder: true}

// workersOf is the worker count m's scenario is hunted on.
func workersOf(m mutant.Name) int {
	if loneWorker[m] {
		return 1
	}
	return deepWorkers
}

// realOnly lists the mutants the seeded driver cannot reach, hunted in
// real mode as a Go program runs it (check --real --lean) instead. None
// today: the seeded driver runs a Go program's code path, the lean
// completion path included (docs/trace-format.md).
var realOnly = map[mutant.Name]bool{}

func loadDeep(t *testing.T, m mutant.Name) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(filepath.Join("testdata", "deep", m.String()+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// hunt runs one cell of the table: sc under strategy until it fails or
// the bound is spent.
func hunt(t *testing.T, sc *scenario.Scenario, workers int, strategy string, limit int) *explore.Hunt {
	t.Helper()
	h, err := explore.RunHunt(sc, explore.HuntOptions{Workers: workers, Strategy: strategy, Limit: limit, Preemptions: 2})
	if err != nil {
		t.Fatalf("%s: %v", strategy, err)
	}
	return h
}

// huntReal runs sc in real mode as a Go program runs it (lean nurseries,
// reuse; what check --real --lean runs) until a run fails or limit runs;
// with all, it runs every one of them and counts the failures in Runs.
func huntReal(t *testing.T, sc *scenario.Scenario, limit int, all bool) *explore.Hunt {
	t.Helper()
	h := &explore.Hunt{Strategy: "real"}
	fails := int64(0)
	o := sim.Options{Workers: deepWorkers, Mode: sim.ModeRealLean}
	c, err := sim.Resolve(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	for h.Runs < int64(limit) {
		run, err := sim.Execute(sc, c, o)
		if err != nil {
			t.Fatal(err)
		}
		h.Runs++
		if !run.Passed() {
			h.Caught = true
			if !all {
				return h
			}
			fails++
		}
	}
	if all {
		h.Runs = fails
	}
	return h
}

// failRate counts the seeds of 0..n-1 on which sc fails under strategy.
func failRate(t *testing.T, sc *scenario.Scenario, workers int, strategy string, n int) int {
	t.Helper()
	fails := 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		o := sim.Options{Seed: seed, HasSeed: true, Workers: workers, Strategy: strategy}
		c, err := sim.Resolve(sc, o)
		if err != nil {
			t.Fatal(err)
		}
		run, err := sim.Execute(sc, c, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(explore.FailedChecks(run)) > 0 {
			fails++
		}
	}
	return fails
}

// cell is a hunt's figures: runs to the first catch and the shrunk
// schedule's size, or "-" when the bound was spent.
func cell(h *explore.Hunt) string {
	if !h.Caught {
		return fmt.Sprintf("- (%d)", h.Runs)
	}
	s := fmt.Sprintf("%d", h.Runs)
	if f := h.Failure; f != nil {
		s += fmt.Sprintf(" [%dp %ds -> %dp %ds]", f.Found.Preemptions, f.Found.Steps, f.Shrunk.Preemptions, f.Shrunk.Steps)
	} else if h.Note != "" {
		s += " [not shrunk]"
	}
	return s
}

func yes(b bool) string {
	if b {
		return "caught"
	}
	return "missed"
}

// TestDeepMutants hunts every deep mutant on its own scenario
// (testdata/deep/NAME.toml) with each strategy, prints the runs each
// needed and the shrunk schedule's size, and compares which strategies
// caught which mutant within the short bounds with testdata/deep.golden.
// Every deep mutant must be caught by pct or explore (or, for the ones
// only real mode reaches, by real mode).
func TestDeepMutants(t *testing.T) {
	b := shortBounds
	if *long {
		b = longBounds
	}
	fmt.Printf("deep mutants: %d workers (1 for the lone worker's); bounds: random %d seeds, pct %d seeds, explore %d schedules (K=2), real --lean %d runs\n",
		deepWorkers, b.random, b.pct, b.explore, b.real)
	fmt.Printf("%-28s %-30s %-30s %-30s %s\n", "mutant", "random", "pct", "explore", "real --lean")
	var golden, notes, rates strings.Builder
	for _, m := range mutant.Deep() {
		sc := loadDeep(t, m)
		// The unmutated scheduler must pass each scenario under every
		// strategy, or a catch is noise.
		mutant.Set(mutant.None)
		for _, s := range []string{sim.StrategyRandom, sim.StrategyPCT, sim.StrategyExplore} {
			if h := hunt(t, sc, workersOf(m), s, shortBounds.pct); h.Caught {
				t.Fatalf("%s: the unmutated scheduler fails under %s: %s", m, s, cell(h))
			}
		}
		if realOnly[m] {
			if h := huntReal(t, sc, shortBounds.real, false); h.Caught {
				t.Fatalf("%s: the unmutated scheduler fails in real mode (--lean), run %d", m, h.Runs)
			}
		}
		mutant.Set(m)
		sb := b
		if realOnly[m] {
			// The seeded driver cannot reach it: the short bounds show
			// that without spending minutes on it.
			sb = shortBounds
		}
		hr := hunt(t, sc, workersOf(m), sim.StrategyRandom, sb.random)
		hp := hunt(t, sc, workersOf(m), sim.StrategyPCT, sb.pct)
		he := hunt(t, sc, workersOf(m), sim.StrategyExplore, sb.explore)
		real := "n/a"
		caughtReal := false
		if realOnly[m] {
			h := huntReal(t, sc, b.real, false)
			real, caughtReal = cell(h), h.Caught
			if b.rate > 0 {
				fmt.Fprintf(&rates, "%-28s real --lean %d/%d\n", m, huntReal(t, sc, b.real, true).Runs, b.real)
			}
		}
		if b.rate > 0 && !realOnly[m] {
			fmt.Fprintf(&rates, "%-28s random %d/%d, pct %d/%d\n", m,
				failRate(t, sc, workersOf(m), sim.StrategyRandom, b.rate), b.rate, failRate(t, sc, workersOf(m), sim.StrategyPCT, b.rate), b.rate)
		}
		mutant.Set(mutant.None)
		for _, h := range []*explore.Hunt{hr, hp, he} {
			if h.Caught && h.Failure == nil && h.Note != "" {
				fmt.Fprintf(&notes, "  %s, %s: not shrunk: %s\n", m, h.Strategy, h.Note)
			}
		}
		fmt.Printf("%-28s %-30s %-30s %-30s %s\n", m, cell(hr), cell(hp), cell(he), real)
		fmt.Fprintf(&golden, "%s random=%s pct=%s explore=%s", m, yes(hr.Caught), yes(hp.Caught), yes(he.Caught))
		if realOnly[m] {
			fmt.Fprintf(&golden, " real=%s", yes(caughtReal))
		}
		golden.WriteString("\n")
		if !hp.Caught && !he.Caught && !caughtReal {
			t.Errorf("deep mutant %s survived pct and explore", m)
		}
	}
	fmt.Print(notes.String())
	if rates.Len() > 0 {
		fmt.Printf("failing runs (seeds 0..%d for random and pct), 2 workers:\n%s", b.rate-1, rates.String())
	}
	if *long {
		return // the golden file records the short bounds
	}
	path := filepath.Join("testdata", "deep.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("which strategies catch which deep mutant changed; -update rewrites %s\nwant:\n%sgot:\n%s", path, want, golden.String())
	}
}
