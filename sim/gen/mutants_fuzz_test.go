//go:build mutants

package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
)

// mutantSeeds is how many seeds the fuzzer gets to catch each mutant.
const mutantSeeds = 3000

// TestMutantsFuzz switches each mutant of internal/mutant on in turn and
// fuzzes it: which ones the generated programs, the invariants and the
// oracles catch, how soon, and how small the repro shrinks. It reports and
// does not fail on a mutant that survives (which mutants the fuzzer
// catches is a figure for docs/fuzz.md, not a guarantee), but it fails
// when the unmutated scheduler does not pass, since then every catch is
// noise. Run it with
//
//	go test -tags mutants -run TestMutantsFuzz -v ./sim/gen/
func TestMutantsFuzz(t *testing.T) {
	mutant.Set(mutant.None)
	rep, err := Fuzz(FuzzOptions{Seeds: mutantSeeds, Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First; f != nil {
		t.Fatalf("the unmutated scheduler fails at seed %d: %v\n%s", f.Seed, f.Failed, f.Shrunk.Source)
	}
	caught := 0
	for _, m := range mutant.All() {
		mutant.Set(m)
		rep, err := Fuzz(FuzzOptions{Seeds: mutantSeeds, Out: t.TempDir()}, nil)
		mutant.Set(mutant.None)
		if err != nil {
			t.Fatalf("mutant %s: %v", m, err)
		}
		f := rep.First
		if f == nil {
			fmt.Printf("mutant %s: fuzz missed (%d seeds)\n", m, rep.Runs)
			continue
		}
		caught++
		fmt.Printf("mutant %s: fuzz caught at seed %d, shrunk %d -> %d ops (%s; %d candidates; replay --seed %d --workers %d)\n",
			m, f.Seed, f.SizeBefore, f.SizeAfter, strings.Join(f.Failed, ", "), f.ShrinkEvals, f.ReproSeed, f.ReproWorkers)
		if testing.Verbose() {
			for _, d := range f.Details {
				fmt.Printf("    %s\n", d)
			}
			fmt.Printf("%s\n", indent(string(f.Shrunk.Source)))
		}
	}
	fmt.Printf("fuzz caught %d of %d mutants within %d seeds\n", caught, len(mutant.All()), mutantSeeds)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
