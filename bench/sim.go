package bench

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// twentySource is the standard scenario of the simulator's benchmarks:
// twenty tasks, channels, yields and a sleep, about 13,000 steps a run.
//
//go:embed testdata/twenty.toml
var twentySource []byte

// Twenty parses the standard twenty-task scenario.
func Twenty() (*scenario.Scenario, error) {
	return scenario.Parse("bench/testdata/twenty.toml", twentySource)
}

// SimSteps runs the standard scenario n times under the seeded driver with
// its own seed (1), so that every run is the same, and reports steps/s.
// With traceDir set, each run writes its trace to a file there (through
// the trace writer's 64 KiB buffer), truncated before every run; without,
// no trace is written (the driver still records the events its checkers
// need).
func SimSteps(traceDir string) Func { return SimStepsStrategy(traceDir, sim.StrategyRandom) }

// SimStepsStrategy is SimSteps under the seeded driver's strategy
// (random or pct, docs/explore.md).
func SimStepsStrategy(traceDir, strategy string) Func {
	return func(tm Timer, n int) error {
		sc, err := Twenty()
		if err != nil {
			return err
		}
		c, err := sim.Resolve(sc, sim.Options{Strategy: strategy})
		if err != nil {
			return err
		}
		var f *os.File
		if traceDir != "" {
			f, err = os.Create(filepath.Join(traceDir, "twenty.trace"))
			if err != nil {
				return err
			}
			defer f.Close()
		}
		tm.ResetTimer()
		start := time.Now()
		var steps int64
		for range n {
			o := sim.Options{Strategy: strategy}
			if f != nil {
				if err := rewind(f); err != nil {
					return err
				}
				o.Trace = f
			}
			run, err := sim.Execute(sc, c, o)
			if err != nil {
				return err
			}
			if !run.Passed() {
				return fmt.Errorf("%s: seed %d: outcome %s, a check failed", sc.Name, c.Seed, run.Outcome)
			}
			steps += run.Steps
		}
		elapsed := time.Since(start)
		tm.StopTimer()
		tm.ReportMetric(float64(steps)/elapsed.Seconds(), "steps/s")
		return nil
	}
}

// rewind empties f for the next run's trace.
func rewind(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// FuzzSeeds runs the standard scenario under n consecutive seeds (1, 2,
// ...), as `cbcsim check` and the fuzzer do, without traces, and reports
// seeds/s. Every run must pass its checks.
func FuzzSeeds() Func {
	return func(tm Timer, n int) error {
		sc, err := Twenty()
		if err != nil {
			return err
		}
		tm.ResetTimer()
		start := time.Now()
		for i := range n {
			seed := uint64(i) + 1
			c, err := sim.Resolve(sc, sim.Options{Seed: seed, HasSeed: true})
			if err != nil {
				return err
			}
			run, err := sim.Execute(sc, c, sim.Options{})
			if err != nil {
				return err
			}
			if !run.Passed() {
				return fmt.Errorf("%s: seed %d: outcome %s, a check failed", sc.Name, seed, run.Outcome)
			}
		}
		elapsed := time.Since(start)
		tm.StopTimer()
		tm.ReportMetric(float64(n)/elapsed.Seconds(), "seeds/s")
		return nil
	}
}
