package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/gen"
)

// fuzzFailing replaces the fuzzer's failure predicate in tests, so that
// they can see a failure found, shrunk and written without a scheduler bug.
// nil in the tool: every invariant must hold.
var fuzzFailing func(*sim.Run) []string

func newFuzzCmd() *cobra.Command {
	var (
		seeds        int
		duration     time.Duration
		start        uint64
		workers      []int
		out          string
		shrinkBudget int
		strategy     strategyFlags
	)
	cmd := &cobra.Command{
		Use:   "fuzz (--seeds N | --duration D)",
		Short: "Run generated scenarios, shrink the first failure and write a repro",
		Long: `Fuzz generates scenarios from seeds START, START+1, ... (docs/fuzz.md), runs
each once under the seeded simulator with a run seed and worker count derived
from its seed, and checks every invariant. A deadlock, livelock or crash is a
failure too: generated programs always terminate.

At the first failure it stops, shrinks the lowest failing seed's scenario
(deleting ops and tasks, unwrapping bodies, halving numbers) while it keeps
failing the same way, and writes OUT/fuzz-SEED/ with scenario.toml,
original.toml, run.trace and README.txt. It prints the command that replays
the failure. Runs use every CPU; the failure reported is the same whatever
the CPU count.

Exit status: 0 when every run held, 1 when a failure was found (after writing
its repro), 2 for bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			switch {
			case f.Changed("seeds") && f.Changed("duration"):
				return badInput(errors.New("give --seeds or --duration, not both: one bounds the run by a count, the other by time"))
			case !f.Changed("seeds") && !f.Changed("duration"):
				return badInput(errors.New("give --seeds N or --duration D: fuzz needs to know when to stop"))
			case f.Changed("seeds") && seeds < 1:
				return badInput(fmt.Errorf("--seeds must be at least 1, not %d", seeds))
			case f.Changed("duration") && duration <= 0:
				return badInput(fmt.Errorf("--duration must be positive, not %s", duration))
			case start < 1:
				return badInput(errors.New("--start must be at least 1"))
			case shrinkBudget < 1:
				return badInput(fmt.Errorf("--shrink-budget must be at least 1, not %d", shrinkBudget))
			}
			opts := gen.FuzzOptions{Seeds: seeds, Duration: duration, Start: start, Workers: workers,
				Out: out, ShrinkBudget: shrinkBudget, Failing: fuzzFailing, Strategy: strategy.name, PCTDepth: strategy.depth}
			if err := opts.Normalize(); err != nil {
				return badInput(err)
			}
			stdout := cmd.OutOrStdout()
			printHeader(stdout, opts)
			rep, err := gen.Fuzz(opts, cmd.ErrOrStderr())
			if err != nil {
				// The options were checked above, so an error here is the
				// generator's or the disk's.
				return fmt.Errorf("fuzz: %w", err)
			}
			return printFuzzReport(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 0, "run this many seeds: START..START+N-1")
	f.DurationVar(&duration, "duration", 0, "run seeds from START on until this much time has passed (e.g. 30s, 5m)")
	f.Uint64Var(&start, "start", gen.DefaultStart, "first seed")
	f.IntSliceVar(&workers, "workers", gen.DefaultWorkers, "worker counts to pick from, comma-separated")
	f.StringVar(&out, "out", gen.DefaultOut, "directory for the repro of a failure (OUT/fuzz-SEED/)")
	f.IntVar(&shrinkBudget, "shrink-budget", gen.DefaultShrinkBudget, "most shrink candidates to run (each one up to 17 runs)")
	strategy.add(f)
	return cmd
}

// printHeader prints every parameter of the session first, so a log of it
// says how to run it again.
func printHeader(w io.Writer, o gen.FuzzOptions) {
	ws := make([]string, len(o.Workers))
	for i, n := range o.Workers {
		ws[i] = fmt.Sprint(n)
	}
	bound := fmt.Sprintf("seeds %d..%d", o.Start, o.Start+uint64(o.Seeds)-1)
	if o.Duration > 0 {
		bound = fmt.Sprintf("seeds %d.. for %s", o.Start, o.Duration)
	}
	fmt.Fprintf(w, "fuzz: %s, workers %s, out %s, shrink budget %d, %d goroutines%s\n",
		bound, strings.Join(ws, ","), o.Out, o.ShrinkBudget, runtime.NumCPU(), sim.StrategyArgs(sim.Config{Strategy: o.Strategy, PCTDepth: o.PCTDepth}))
}

// printFuzzReport prints the summary, and the failure with its replay
// command; a failure is exit status 1.
func printFuzzReport(w io.Writer, rep *gen.FuzzReport) error {
	last := rep.Start + uint64(rep.Runs) - 1
	if rep.Runs == 0 {
		last = rep.Start
	}
	fmt.Fprintf(w, "fuzz: %d runs (seeds %d..%d), %d failed, %s, %.0f runs/s\n",
		rep.Runs, rep.Start, last, rep.Failures, rep.Elapsed.Round(time.Millisecond), rep.RunsPerSec)
	f := rep.First
	if f == nil {
		return nil
	}
	fmt.Fprintf(w, "\nFAIL seed %d (run --seed %d --workers %d): %s\n", f.Seed, f.RunSeed, f.Workers, strings.Join(f.Failed, ", "))
	for _, d := range f.Details {
		fmt.Fprintf(w, "  %s\n", d)
	}
	fmt.Fprintf(w, "shrunk: %d ops -> %d ops (%d candidates)\n", f.SizeBefore, f.SizeAfter, f.ShrinkEvals)
	if f.Schedule != "" {
		fmt.Fprintf(w, "%s\n", f.Schedule)
	}
	fmt.Fprintf(w, "repro:  %s/\n", f.Dir)
	fmt.Fprintf(w, "replay: %s\n", f.Command)
	return &exitError{code: 1, err: fmt.Errorf("fuzz: seed %d broke %s", f.Seed, strings.Join(f.Failed, ", "))}
}
