package explore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
)

// observed is what a run's checks can see: the outcome, main's result,
// the log, every task's and every nursery's result.
func observed(r *sim.Run) string {
	var b strings.Builder
	b.WriteString(string(r.Outcome) + " " + r.Result.String() + "\n" + strings.Join(r.Log, "\n") + "\n")
	for _, t := range r.Tasks {
		b.WriteString(t.Name + "=" + t.Result + " ")
	}
	for _, n := range r.Nurseries {
		b.WriteString(n.Label + "=" + n.Result + ":" + strings.Join(n.Results, ",") + " ")
	}
	return b.String()
}

// A run recorded by random or pct, converted into the explorer's choices,
// runs again the same way through the explorer: the same outcome, main
// result, log and task and nursery results, for nearly every run of every bundled scenario (a
// recorded step the chooser cannot make, such as a worker that just
// yielded going straight on, may send it elsewhere).
func TestConvertReproducesRecordedRuns(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../../scenarios/*.toml")
	same, total := 0, 0
	for _, path := range paths {
		sc := load(t, path)
		for _, workers := range []int{2, 3} {
			cfg, err := Resolve(sc, workers)
			if err != nil {
				t.Fatal(err)
			}
			for _, strategy := range []string{sim.StrategyRandom, sim.StrategyPCT} {
				for seed := uint64(0); seed < 2; seed++ {
					orig, rec := recordRun(t, sc, seed, workers, strategy)
					conv := newConverter(rec, workers)
					if _, err := sim.Execute(sc, cfg, sim.Options{Chooser: conv}); err != nil || conv.mismatch != nil {
						t.Fatalf("%s %s seed %d: converting: %v %v", path, strategy, seed, err, conv.mismatch)
					}
					run, _, err := execute(sim.Execute, sc, cfg, conv.choices, nil)
					if err != nil {
						t.Fatal(err)
					}
					total++
					if observed(run) == observed(orig) {
						same++
					}
				}
			}
		}
	}
	t.Logf("%d of %d converted runs ran the same way", same, total)
	if same*10 < total*9 {
		t.Fatalf("only %d of %d converted runs ran the same way", same, total)
	}
}
