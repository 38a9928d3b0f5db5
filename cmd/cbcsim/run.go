package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func newRunCmd() *cobra.Command {
	var (
		seed      uint64
		workers   int
		victim    string
		tracePath string
		asJSON    bool
		real      bool
		lean      bool
		maxSteps  int64
		strategy  strategyFlags
	)
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run a scenario once under the seeded simulator (or --real) and check it",
		Long: `Run loads a scenario, runs it on the real scheduler core under the seeded
driver, and prints the task, nursery and worker tables, every invariant and
expectation with pass/fail, and the seed. Exit status: 0 when everything
holds, 1 when an invariant or expectation broke, 2 for bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if lean && !real {
				return badInput(errLeanNeedsReal)
			}
			if err := strategy.check(); err != nil {
				return badInput(err)
			}
			if real && tracePath != "" {
				return badInput(fmt.Errorf("--trace and --real cannot be combined: real mode has no deterministic trace"))
			}
			sc, err := scenario.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			opts := sim.Options{Workers: workers, Victim: victim, Real: real, Lean: lean, MaxSteps: maxSteps,
				Strategy: strategy.name, PCTDepth: strategy.depth}
			if cmd.Flags().Changed("seed") {
				opts.Seed, opts.HasSeed = seed, true
			}
			cfg, err := sim.Resolve(sc, opts)
			if err != nil {
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			var af *sim.AtomicFile
			if tracePath != "" {
				if af, err = sim.CreateAtomic(tracePath); err != nil {
					return badInput(fmt.Errorf("creating trace: %w", err))
				}
				bw := bufio.NewWriterSize(af, 1<<16)
				opts.Trace = bw
				defer func() {
					if af != nil {
						af.Abort()
					}
				}()
				run, err := sim.Execute(sc, cfg, opts)
				if err == nil {
					err = bw.Flush()
				}
				if err == nil {
					err = af.Commit()
					af = nil
				}
				if err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				return report(cmd, run, args[0], asJSON)
			}
			run, err := sim.Execute(sc, cfg, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			return report(cmd, run, args[0], asJSON)
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&seed, "seed", 0, "seed for the driver and the workers (default: the scenario's)")
	f.IntVar(&workers, "workers", 0, "worker count 1..256 (default: the scenario's, else the CPU count)")
	f.StringVar(&victim, "victim", "", "steal-victim strategy: random, round_robin or least_loaded")
	f.StringVar(&tracePath, "trace", "", "write the trace to this file (atomically)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.BoolVar(&real, "real", false, "run on real worker goroutines instead of the seeded driver")
	f.BoolVar(&lean, "lean", false, "with --real: keep no tasks, as a Go program's scheduler (tables stay empty; main's expectations only)")
	f.Int64Var(&maxSteps, "max-steps", 0, "step bound past which the run is a livelock (default: the scenario's)")
	strategy.add(f)
	return cmd
}

// reproCommand is the command line that reproduces a run exactly.
func reproCommand(file string, c sim.Config) string {
	if c.Real {
		// Real mode has no seed to pin: the OS schedules the workers.
		parts := []string{"cbcsim", "run", file, fmt.Sprintf("--workers %d", c.Workers), "--real"}
		if c.Lean {
			parts = append(parts, "--lean")
		}
		return strings.Join(parts, " ")
	}
	parts := []string{"cbcsim", "run", file, fmt.Sprintf("--seed %d", c.Seed), fmt.Sprintf("--workers %d", c.Workers), "--victim " + c.Victim}
	return strings.Join(parts, " ") + sim.StrategyArgs(c)
}

// report prints the run and turns a failed check into exit status 1.
func report(cmd *cobra.Command, run *sim.Run, file string, asJSON bool) error {
	repro := reproCommand(file, run.Config)
	out := cmd.OutOrStdout()
	if asJSON {
		if err := run.WriteJSON(out, repro); err != nil {
			return err
		}
	} else {
		if err := run.WriteTables(out); err != nil {
			return err
		}
		fmt.Fprintf(out, "reproduce: %s\n", repro)
	}
	if !run.Passed() {
		var failed []string
		for _, c := range run.Checks {
			if !c.OK {
				failed = append(failed, c.Name+": "+c.Detail)
			}
		}
		return &exitError{code: 1, err: fmt.Errorf("%s: %d check(s) failed:\n  %s", file, len(failed), strings.Join(failed, "\n  "))}
	}
	return nil
}
