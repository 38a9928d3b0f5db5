package bench

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cbcsim/cbcsim/sim/check"
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

// CheckRuns checks channel_rendezvous and twenty.toml as `cbcsim check`
// does (worker counts 1, 2, 4 and 8, the default runs executed twice for
// the determinism check) with at least n runs on jobs goroutines, and
// reports runs/s: the runs counted by the report over the check's wall
// time. Any failed run is an error: both scenarios pass under every seed.
func CheckRuns(jobs int) Func {
	return func(tm Timer, n int) error {
		rv, err := scenario.Parse("bench/testdata/channel_rendezvous.toml", rendezvousSource)
		if err != nil {
			return err
		}
		tw, err := Twenty()
		if err != nil {
			return err
		}
		scs := []*scenario.Scenario{rv, tw}
		workers := check.DefaultWorkers()
		seeds := max(1, (n+len(scs)*len(workers)-1)/(len(scs)*len(workers)))
		o := check.Options{Seeds: seeds, SeedStart: 1, Workers: workers, Jobs: jobs, Resample: check.DefaultResample}
		tm.ResetTimer()
		start := time.Now()
		rep, err := check.Scenarios(scs, []string{"channel_rendezvous.toml", "twenty.toml"}, o, nil)
		elapsed := time.Since(start)
		tm.StopTimer()
		if err != nil {
			return err
		}
		if rep.Failed() {
			return fmt.Errorf("check: %d of %d runs failed", rep.FailedRuns, rep.Runs)
		}
		tm.ReportMetric(float64(rep.Runs)/elapsed.Seconds(), "runs/s")
		return nil
	}
}
