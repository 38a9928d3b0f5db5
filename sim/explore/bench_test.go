package explore_test

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// BenchmarkExplore: the exhaustive search of channel_rendezvous on two
// workers up to two preemptions, one search an op; schedules/s is the
// figure.
func BenchmarkExplore(b *testing.B) {
	sc, err := scenario.Load("../../scenarios/channel_rendezvous.toml")
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for b.Loop() {
		rep, err := explore.Run(sc, explore.Options{Workers: 2, Preemptions: 2})
		if err != nil || !rep.Exhaustive {
			b.Fatalf("err %v, exhaustive %v", err, rep != nil && rep.Exhaustive)
		}
		n += rep.Schedules
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "schedules/s")
}
