package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// runFlags are run's flags.
type runFlags struct {
	seed      uint64
	workers   int
	victim    string
	tracePath string
	asJSON    bool
	real      bool
	lean      bool
	maxSteps  int64
	strategy  strategyFlags
	timeout   realTimeout
}

func init() { subcommand(newRunCmd) }

func newRunCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run a scenario once under the seeded simulator (or --real) and check it",
		Long: `Run loads a scenario, runs it on the real scheduler core under the seeded
driver, and prints the task, nursery and worker tables, every invariant and
expectation with pass/fail, and the seed. Exit status: 0 when everything
holds, 1 when an invariant or expectation broke, 2 for bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return rf.run(cmd, args[0]) },
	}
	f := cmd.Flags()
	f.Uint64Var(&rf.seed, "seed", 0, "seed for the driver and the workers (default: the scenario's)")
	f.IntVar(&rf.workers, "workers", 0, "worker count 1..256 (default: the scenario's, else the CPU count)")
	f.StringVar(&rf.victim, "victim", "", "steal-victim strategy: random, round_robin or least_loaded")
	f.StringVar(&rf.tracePath, "trace", "", "write the trace to this file (atomically)")
	f.BoolVar(&rf.asJSON, "json", false, "print the result as JSON")
	f.BoolVar(&rf.real, "real", false, "run on real worker goroutines instead of the seeded driver")
	f.BoolVar(&rf.lean, "lean", false, "with --real: keep no tasks, as a Go program's scheduler (tables stay empty; main's expectations only)")
	f.Int64Var(&rf.maxSteps, "max-steps", 0, "step bound past which the run is a livelock (default: the scenario's)")
	rf.strategy.add(cmd)
	rf.timeout.add(cmd)
	return cmd
}

// run is `cbcsim run FILE`: check the flags, load, resolve, execute (with
// the trace written atomically), report.
func (rf *runFlags) run(cmd *cobra.Command, file string) error {
	if err := checkRunFlags(cmd, rf.workers, rf.victim, rf.maxSteps); err != nil {
		return err
	}
	if rf.lean && !rf.real {
		return badInput(errLeanNeedsReal)
	}
	if err := rf.timeout.check(cmd, rf.real); err != nil {
		return err
	}
	if err := rf.strategy.check(); err != nil {
		return badInput(err)
	}
	if rf.real && rf.tracePath != "" {
		return badInput(fmt.Errorf("--trace and --real cannot be combined: real mode has no deterministic trace"))
	}
	if err := outfile.Distinct([]string{rf.tracePath}, []string{file}); err != nil {
		return badInput(fmt.Errorf("--trace: %w", err))
	}
	sc, err := scenario.Load(file)
	if err != nil {
		return badInput(err)
	}
	opts := sim.Options{Workers: rf.workers, Victim: rf.victim, Mode: sim.ModeOf(rf.real, rf.lean), MaxSteps: rf.maxSteps,
		Strategy: rf.strategy.name, PCTDepth: rf.strategy.depth, RealTimeout: rf.timeout.d}
	if cmd.Flags().Changed("seed") {
		opts.Seed, opts.HasSeed = rf.seed, true
	}
	cfg, err := sim.Resolve(sc, opts)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", file, err))
	}
	run, err := executeTraced(sc, cfg, opts, rf.tracePath)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return report(cmd, run, file, rf.asJSON)
}

// executeTraced executes the run, writing its trace to tracePath (when
// given) through a temporary file renamed into place only when the run
// and the write succeeded. A file that cannot be created is bad input.
func executeTraced(sc *scenario.Scenario, cfg sim.Config, opts sim.Options, tracePath string) (*sim.Run, error) {
	if tracePath == "" {
		return sim.Execute(sc, cfg, opts)
	}
	af, err := sim.CreateAtomic(tracePath)
	if err != nil {
		return nil, badInput(fmt.Errorf("creating trace: %w", err))
	}
	defer func() {
		if af != nil {
			af.Abort()
		}
	}()
	bw := bufio.NewWriterSize(af, 1<<16)
	opts.Trace = bw
	run, err := sim.Execute(sc, cfg, opts)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = af.Commit()
		af = nil
	}
	return run, err
}

// checkRunFlags refuses a flag given with a value that would otherwise
// silently mean its default (0, "") or a nonsense bound (a negative step
// count).
func checkRunFlags(cmd *cobra.Command, workers int, victim string, maxSteps int64) error {
	f := cmd.Flags()
	switch {
	case f.Changed("workers") && (workers < 1 || workers > sched.WorkersMax):
		return badInput(fmt.Errorf("--workers %d is out of range 1..%d", workers, sched.WorkersMax))
	case f.Changed("victim") && victim == "":
		return badInput(fmt.Errorf("--victim is empty (want random, round_robin or least_loaded)"))
	case f.Changed("max-steps") && maxSteps < 1:
		return badInput(fmt.Errorf("--max-steps must be at least 1, not %d", maxSteps))
	}
	return nil
}

// report prints the run and turns a failed check into exit status 1.
func report(cmd *cobra.Command, run *sim.Run, file string, asJSON bool) error {
	repro := run.Config.Command(file)
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
