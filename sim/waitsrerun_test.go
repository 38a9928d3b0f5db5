package sim

import (
	"fmt"
	"reflect"
	"testing"
)

// TestStuckRunWaitsRunAgain: a run that ends stuck reports the waits that
// its events give when fed to the builder as the run goes, though
// Execute builds them in a second run (only a stuck run reports waits, so
// a passing run does not feed the builder at all). Every bundled scenario
// under a few seeds and worker counts, random and pct; and the second run
// is asked for only when the first ends stuck.
func TestStuckRunWaitsRunAgain(t *testing.T) {
	t.Parallel()
	stuck := 0
	for _, sc := range bundled(t) {
		for _, workers := range []int{1, 3} {
			for _, strategy := range []string{StrategyRandom, StrategyPCT} {
				for seed := uint64(1); seed <= 3; seed++ {
					o := Options{Seed: seed, HasSeed: true, Workers: workers, Strategy: strategy}
					name := fmt.Sprintf("%s, %d workers, %s, seed %d", sc.Name, workers, strategy, seed)
					c, err := Resolve(sc, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					run, err := Execute(sc, c, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					eager, _, err := execute(sc, c, o, nil, true)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if run.Outcome.Ended() {
						if run.Waits != nil || eager.Waits != nil {
							t.Errorf("%s: ended %s, with waits %v (eager %v)", name, run.Outcome, run.Waits, eager.Waits)
						}
						continue
					}
					stuck++
					if run.Waits == nil || !reflect.DeepEqual(run.Waits, eager.Waits) {
						t.Errorf("%s: ended %s: waits\n  %+v\nfed as the run went:\n  %+v", name, run.Outcome, run.Waits, eager.Waits)
					}
				}
			}
		}
	}
	if stuck == 0 {
		t.Fatal("no bundled run ended stuck: the test compared nothing")
	}
	t.Logf("%d stuck runs compared", stuck)
}
