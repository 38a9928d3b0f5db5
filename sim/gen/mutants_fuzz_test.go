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

// droppedErrorSeeds is the stated bound within which the fuzzer must find
// the old Task.Nursery, which returned its owner's cancellation before
// looking at the nursery's child error: the cancelled-owner group makes
// that shape. The measured spread, per strategy, is in docs/fuzz.md.
const droppedErrorSeeds = 200

// TestFuzzFindsDroppedChildError: with mutant child-error-dropped-on-cancel
// the fuzzer fails within droppedErrorSeeds seeds under each strategy, on
// the invariants that tie a child's error to its owner.
func TestFuzzFindsDroppedChildError(t *testing.T) {
	mutant.Set(mutant.ChildErrorDroppedOnCancel)
	defer mutant.Set(mutant.None)
	for _, strategy := range []string{"random", "pct"} {
		rep, err := Fuzz(FuzzOptions{Seeds: droppedErrorSeeds, SeedStart: 1, Out: t.TempDir(), Strategy: strategy}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := rep.First
		if f == nil {
			t.Fatalf("%s: fuzz missed mutant %s in %d seeds", strategy, mutant.ChildErrorDroppedOnCancel, rep.Runs)
		}
		owner := false
		for _, name := range f.Failed {
			owner = owner || strings.Contains(name, "child-error") || strings.Contains(name, "owner-leaves")
		}
		if !owner {
			t.Fatalf("%s: seed %d failed %v, none of them an owner invariant", strategy, f.Seed, f.Failed)
		}
		fmt.Printf("mutant %s, %s: fuzz caught at seed %d (%s), shrunk %d -> %d ops\n%s\n",
			mutant.ChildErrorDroppedOnCancel, strategy, f.Seed, strings.Join(f.Failed, ", "), f.SizeBefore, f.SizeAfter, indent(string(f.Shrunk.Source)))
	}
}
