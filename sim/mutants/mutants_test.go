//go:build mutants

package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/gen"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// The stated bounds: `check` over the bundled scenarios must catch every
// mutant within checkSeeds seeds (on workers 1, 2, 4 and 8); the fuzzer
// gets fuzzSeeds generated scenarios. A mutant neither catches survives.
const (
	checkSeeds   = 50
	fuzzSeeds    = 2000
	shrinkBudget = 300
)

var workerCounts = []int{1, 2, 4, 8}

type catch struct {
	keep    bool // caught under driver.SeededKeep (sim.ModeSeededKeep), not the default Seeded
	seeds   int  // seeds tried until the first failure
	file    string
	sc      *scenario.Scenario
	seed    uint64
	workers int
	failed  []string
}

// failedNames lists the failed checks of a run, sorted.
func failedNames(run *sim.Run) []string {
	var names []string
	for _, ch := range run.Checks {
		if !ch.OK {
			names = append(names, ch.Name)
		}
	}
	sort.Strings(names)
	return names
}

// execute runs sc once under the seeded driver: a Go program's code path
// (driver.Seeded, the default), or with keep the driver API's kept
// records (driver.SeededKeep), whose Snapshot a mutant of the nursery's
// per-child records (results-completion-order) can only be seen through.
func execute(sc *scenario.Scenario, seed uint64, workers int, keep bool) (*sim.Run, error) {
	o := sim.Options{Seed: seed, HasSeed: true, Workers: workers}
	if keep {
		o.Mode = sim.ModeSeededKeep
	}
	c, err := sim.Resolve(sc, o)
	if err != nil {
		return nil, err
	}
	return sim.Execute(sc, c, sim.Options{})
}

// checkBundled runs every bundled scenario, seed by seed, under both
// seeded modes, and reports the first failure, so that `seeds` is the
// number of seeds it took.
func checkBundled(t *testing.T, scs []*scenario.Scenario, paths []string) *catch {
	for seed := uint64(1); seed <= checkSeeds; seed++ {
		for i, sc := range scs {
			for _, w := range workerCounts {
				for _, keep := range []bool{false, true} {
					run, err := execute(sc, seed, w, keep)
					if err != nil {
						t.Fatal(err)
					}
					if !run.Passed() {
						return &catch{keep: keep, seeds: int(seed), file: filepath.Base(paths[i]), sc: sc, seed: seed, workers: w, failed: failedNames(run)}
					}
				}
			}
		}
	}
	return nil
}

// shrink reduces the failing bundled scenario while it still fails the
// same way (the same checks fail) under its seed or seeds 1..16.
func shrink(c *catch) *scenario.Scenario {
	fails := func(cand *scenario.Scenario) bool {
		seeds := []uint64{c.seed}
		for s := uint64(1); s <= 16; s++ {
			if s != c.seed {
				seeds = append(seeds, s)
			}
		}
		for _, s := range seeds {
			run, err := execute(cand, s, c.workers, c.keep)
			if err == nil && slices.Equal(failedNames(run), c.failed) {
				return true
			}
		}
		return false
	}
	return gen.Shrink(c.sc, fails, shrinkBudget)
}

func TestMutants(t *testing.T) {
	paths, _ := filepath.Glob("../../scenarios/*.toml")
	sort.Strings(paths)
	var scs []*scenario.Scenario
	for _, p := range paths {
		sc, err := scenario.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	// The unmutated scheduler must pass, or every "catch" below is noise.
	mutant.Set(mutant.None)
	if c := checkBundled(t, scs, paths); c != nil {
		t.Fatalf("the unmutated scheduler fails: %s seed %d workers %d: %s", c.file, c.seed, c.workers, strings.Join(c.failed, ", "))
	}
	out := t.TempDir()
	fmt.Printf("mutants: check over %d bundled scenarios, seeds 1..%d, workers %v; fuzz up to %d seeds\n", len(scs), checkSeeds, workerCounts, fuzzSeeds)
	survivors := 0
	for _, m := range mutant.Shallow() {
		mutant.Set(m)
		c := checkBundled(t, scs, paths)
		line := fmt.Sprintf("mutant %-25s", m)
		if c != nil {
			shrunk := shrink(c)
			line += fmt.Sprintf(" caught by check after %d seed(s) (%s seed %d, %d workers: %s), shrunk %d -> %d ops;",
				c.seeds, c.file, c.seed, c.workers, strings.Join(c.failed, ", "), gen.Size(c.sc), gen.Size(shrunk))
		} else {
			line += fmt.Sprintf(" not caught by check in %d seeds;", checkSeeds)
		}
		rep, err := gen.Fuzz(gen.FuzzOptions{Seeds: fuzzSeeds, Out: filepath.Join(out, m.String()), ShrinkBudget: shrinkBudget}, nil)
		mutant.Set(mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First; f != nil {
			line += fmt.Sprintf(" fuzz caught it at seed %d (%s), shrunk %d -> %d ops", f.Seed, strings.Join(f.Failed, ", "), f.SizeBefore, f.SizeAfter)
		} else {
			line += fmt.Sprintf(" fuzz missed it in %d seeds", rep.Runs)
		}
		if c == nil && rep.First == nil {
			survivors++
			line += "  SURVIVED"
			t.Errorf("mutant %s survived", m)
		}
		fmt.Fprintln(os.Stdout, line)
	}
	if survivors > 0 {
		t.Fatalf("%d mutant(s) survived", survivors)
	}
}
