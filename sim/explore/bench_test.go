package explore_test

import (
	"fmt"
	"testing"

	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// BenchmarkExplore: the exhaustive search of a bundled scenario on two
// workers up to two preemptions, one search an op, on 1 and 2 jobs;
// schedules/s is the figure. channel_rendezvous has 66 schedules (its
// batches are small: 8, 16, 42), timeout_fail_fast 1559. The search is
// the same on any number of jobs, so the ratio of two rows is the
// speed-up of the batches.
func BenchmarkExplore(b *testing.B) {
	for _, name := range []string{"channel_rendezvous", "timeout_fail_fast"} {
		sc, err := scenario.Load("../../scenarios/" + name + ".toml")
		if err != nil {
			b.Fatal(err)
		}
		for _, jobs := range []int{1, 2} {
			benchExplore(b, fmt.Sprintf("%s/jobs=%d", name, jobs), sc, jobs)
		}
	}
}

func benchExplore(b *testing.B, name string, sc *scenario.Scenario, jobs int) {
	b.Run(name, func(b *testing.B) {
		var n int64
		for b.Loop() {
			rep, err := explore.Run(sc, explore.Options{Workers: 2, Preemptions: 2, Jobs: jobs})
			if err != nil || !rep.Exhaustive {
				b.Fatalf("err %v, exhaustive %v", err, rep != nil && rep.Exhaustive)
			}
			n += rep.Schedules
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "schedules/s")
	})
}
