package explore_test

import (
	"fmt"
	"testing"

	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// BenchmarkExplore: the exhaustive search of channel_rendezvous on two
// workers up to two preemptions, one search an op, on 1 and 2 jobs;
// schedules/s is the figure. The search is the same on any number of
// jobs, so the ratio of the two rows is the speed-up of the batches.
func BenchmarkExplore(b *testing.B) {
	sc, err := scenario.Load("../../scenarios/channel_rendezvous.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
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
}
