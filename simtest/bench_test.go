package simtest

import (
	"bytes"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/simtest/examples"
)

// BenchmarkCheck measures runs per second of Check on the fixed examples,
// each run executed once (Repeat(1)) and twice (the default), and the
// bare sim.RunBody underneath for comparison (Repeat(1) without the
// watchdog is what it costs).
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		name string
		body sched.Func
	}{{"LockOrder", examples.LockOrder(true)}, {"LostMessage", examples.LostMessage(true)}, {"BoundedBuffer", examples.BoundedBuffer(true)}} {
		b.Run(bc.name+"/bare-RunBody", func(b *testing.B) {
			var tr bytes.Buffer
			for b.Loop() {
				for seed := range uint64(20) {
					tr.Reset()
					if _, err := sim.RunBody(sim.Body{Name: "bench", Source: "bench\n", Seed: seed, Trace: &tr,
						Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}}, bc.body); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(20*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
		for _, repeat := range []int{1, 2} {
			b.Run(bc.name+"/repeat="+string(rune('0'+repeat)), func(b *testing.B) {
				const seeds = 20
				for b.Loop() {
					Check(b, bc.body, Seeds(seeds), Workers(2), Repeat(repeat))
				}
				b.ReportMetric(float64(seeds*b.N)/b.Elapsed().Seconds(), "runs/s")
			})
		}
	}
}
