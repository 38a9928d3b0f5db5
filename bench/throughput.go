package bench

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/gen"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// rendezvousSource is scenarios/channel_rendezvous.toml, the small
// scenario of the exploration row (a copy: embed reaches only this
// package's directory).
//
//go:embed testdata/channel_rendezvous.toml
var rendezvousSource []byte

// Explore runs n exhaustive searches of channel_rendezvous on two
// workers up to two preemptions (264 schedules each) and reports
// schedules/s. Every search must end exhaustive and passing.
func Explore() Func {
	return func(tm Timer, n int) error {
		sc, err := scenario.Parse("bench/testdata/channel_rendezvous.toml", rendezvousSource)
		if err != nil {
			return err
		}
		tm.ResetTimer()
		start := time.Now()
		var schedules int64
		for range n {
			rep, err := explore.Run(sc, explore.Options{Workers: 2, Preemptions: 2})
			if err != nil {
				return err
			}
			if !rep.Exhaustive {
				return fmt.Errorf("%s: exploration not exhaustive", sc.Name)
			}
			schedules += rep.Schedules
		}
		elapsed := time.Since(start)
		tm.StopTimer()
		tm.ReportMetric(float64(schedules)/elapsed.Seconds(), "schedules/s")
		return nil
	}
}

// FuzzGenerated fuzzes n generated scenarios (seeds 1..n, the fuzzer's
// defaults) on jobs goroutines and reports seeds/s, the fuzzer's own
// figure. Any failure is an error: the generated programs pass.
func FuzzGenerated(jobs int) Func {
	return func(tm Timer, n int) error {
		out, err := os.MkdirTemp("", "cbcsim-bench-fuzz-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(out)
		o := gen.FuzzOptions{Seeds: n, Jobs: jobs, Out: out}
		if err := o.Normalize(); err != nil {
			return err
		}
		tm.ResetTimer()
		rep, err := gen.Fuzz(o, io.Discard)
		tm.StopTimer()
		if err != nil {
			return err
		}
		if rep.Failures != 0 {
			return fmt.Errorf("fuzz: %d of %d generated scenarios failed", rep.Failures, rep.Runs)
		}
		tm.ReportMetric(rep.RunsPerSec, "seeds/s")
		return nil
	}
}
