//go:build mutants

package mutants

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// checkSeeds is the stated bound: `check` over the bundled scenarios must
// catch a mutant within this many seeds (on workers 1, 2, 4 and 8).
const checkSeeds = 50

type catch struct {
	seeds    int // seeds tried until the first failure
	where    string
	failures []string
}

// checkBundled runs every bundled scenario for seeds 1..checkSeeds and
// reports the first failure, seed by seed, so that `seeds` is the number of
// seeds it took.
func checkBundled(t *testing.T, scs []*scenario.Scenario, paths []string) *catch {
	for seed := uint64(1); seed <= checkSeeds; seed++ {
		for i, sc := range scs {
			for _, workers := range []int{1, 2, 4, 8} {
				c, err := sim.Resolve(sc, sim.Options{Seed: seed, HasSeed: true, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				run, err := sim.Execute(sc, c, sim.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !run.Passed() {
					var names []string
					for _, ch := range run.Checks {
						if !ch.OK {
							names = append(names, ch.Name)
						}
					}
					return &catch{seeds: int(seed), where: fmt.Sprintf("%s seed %d workers %d", filepath.Base(paths[i]), seed, workers), failures: names}
				}
			}
		}
	}
	return nil
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
		t.Fatalf("the unmutated scheduler fails: %s: %s", c.where, strings.Join(c.failures, ", "))
	}
	survivors := 0
	for _, m := range mutant.All() {
		mutant.Set(m)
		c := checkBundled(t, scs, paths)
		mutant.Set(mutant.None)
		if c == nil {
			survivors++
			t.Errorf("mutant %-26s SURVIVED %d seeds of check", m, checkSeeds)
			fmt.Printf("mutant %-26s SURVIVED check (%d seeds)\n", m, checkSeeds)
			continue
		}
		fmt.Printf("mutant %-26s caught by check after %d seed(s): %s: %s\n", m, c.seeds, c.where, strings.Join(c.failures, ", "))
	}
	if survivors > 0 {
		t.Fatalf("%d mutant(s) survived", survivors)
	}
}
