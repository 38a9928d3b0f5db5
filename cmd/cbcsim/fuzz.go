package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/gen"
)

// fuzzFailing replaces the fuzzer's failure predicate in tests, so that
// they can see a failure found, shrunk and written without a scheduler bug.
// nil in the tool: every invariant must hold.
var fuzzFailing func(*sim.Run) []string

// fuzzFlags are fuzz's flags: the sweep vocabulary and its own.
type fuzzFlags struct {
	sw           sweepFlags
	duration     time.Duration
	start        uint64
	out          string
	shrinkBudget int
	corpus       string
	reports      reportFlags
}

func init() { subcommand(newFuzzCmd) }

func newFuzzCmd() *cobra.Command {
	var ff fuzzFlags
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

With --corpus DIR the shrunk failure's scenario and trace are also saved in
DIR under a name made from the program's hash (the same program is saved
once); cbcsim check DIR runs every saved failure again. --json and --junit
write reports for CI (docs/ci.md).

The first SIGINT or SIGTERM ends the session as --duration does: the runs
under way finish, the report covers the seeds run (", interrupted"), and the
exit status is 130 or 143 (1 if a seed failed); a second exits at once.

Exit status: 0 when every run held, 1 when a failure was found (after writing
its repro), 2 for bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return ff.run(cmd) },
	}
	ff.sw.add(cmd, gen.DefaultWorkers)
	ff.sw.addStrategy(cmd)
	f := cmd.Flags()
	f.DurationVar(&ff.duration, "duration", 0, "run seeds from --seed-start on until this much time has passed (e.g. 30s, 5m)")
	// --start is the name --seed-start had before check and fuzz shared
	// one vocabulary; scripts that use it keep working.
	f.Uint64Var(&ff.start, "start", gen.DefaultStart, "first seed")
	_ = f.MarkDeprecated("start", "use --seed-start")
	f.StringVar(&ff.out, "out", gen.DefaultOut, "directory for the repro of a failure (OUT/fuzz-SEED/)")
	f.IntVar(&ff.shrinkBudget, "shrink-budget", gen.DefaultShrinkBudget, "most shrink candidates to run (each one up to 17 runs)")
	f.StringVar(&ff.corpus, "corpus", "", "regression corpus: save the shrunk failure's scenario and trace here too (cbcsim check DIR replays them)")
	ff.reports.add(cmd)
	return cmd
}

// run is `cbcsim fuzz`: check the flags, print the session's parameters,
// fuzz, print the report. The first SIGINT or SIGTERM ends the session
// early, with its report (interruptible).
func (ff *fuzzFlags) run(cmd *cobra.Command) error {
	opts, err := ff.options(cmd)
	if err != nil {
		return err
	}
	if err := ff.reports.prepare(nil); err != nil {
		return err
	}
	for _, d := range []struct{ flag, path string }{{"--out", ff.out}, {"--corpus", ff.corpus}} {
		if d.path == "" {
			continue
		}
		if err := outfile.CheckDir(d.path); err != nil {
			return badInput(fmt.Errorf("%s: %w", d.flag, err))
		}
	}
	if ff.corpus != "" {
		// The corpus exists even when nothing is found, so that the CI
		// step after this one, check DIR, has a corpus to replay (an empty
		// one passes).
		if err := os.MkdirAll(ff.corpus, 0o755); err != nil {
			return badInput(fmt.Errorf("--corpus: %w", err))
		}
	}
	printHeader(cmd.OutOrStdout(), opts)
	ctx, finish := interruptible()
	opts.Context = ctx
	return finish(ff.fuzz(cmd, opts))
}

// fuzz runs the session and prints and writes its report.
func (ff *fuzzFlags) fuzz(cmd *cobra.Command, opts gen.FuzzOptions) error {
	stdout := cmd.OutOrStdout()
	rep, err := gen.Fuzz(opts, cmd.ErrOrStderr())
	if err != nil {
		// The options were checked, so an error here is the generator's
		// or the disk's.
		return fmt.Errorf("fuzz: %w", err)
	}
	werr := ff.reports.write(rep.CI(opts))
	return withOutputError(printFuzzReport(stdout, rep), werr)
}

// options checks the flags and returns the fuzzer's options.
func (ff *fuzzFlags) options(cmd *cobra.Command) (gen.FuzzOptions, error) {
	f, sw := cmd.Flags(), &ff.sw
	if err := sw.resolve(cmd); err != nil {
		return gen.FuzzOptions{}, err
	}
	if f.Changed("start") {
		sw.seedStart = ff.start
	}
	switch {
	case f.Changed("seeds") && f.Changed("duration"):
		return gen.FuzzOptions{}, badInput(errors.New("give --seeds or --duration, not both: one bounds the run by a count, the other by time"))
	case !f.Changed("seeds") && !f.Changed("duration"):
		return gen.FuzzOptions{}, badInput(errors.New("give --seeds N or --duration D: fuzz needs to know when to stop"))
	case f.Changed("duration") && ff.duration <= 0:
		return gen.FuzzOptions{}, badInput(fmt.Errorf("--duration must be positive, not %s", ff.duration))
	case sw.seedStart < 1:
		return gen.FuzzOptions{}, badInput(errors.New("--seed-start must be at least 1"))
	case ff.shrinkBudget < 1:
		return gen.FuzzOptions{}, badInput(fmt.Errorf("--shrink-budget must be at least 1, not %d", ff.shrinkBudget))
	}
	opts := gen.FuzzOptions{Seeds: sw.seeds, Duration: ff.duration, SeedStart: sw.seedStart, Workers: sw.workerList,
		Out: ff.out, ShrinkBudget: ff.shrinkBudget, Failing: fuzzFailing, Jobs: sw.jobs, Shard: sw.shardOf,
		ProgressTerminal: isTerminal(cmd.ErrOrStderr()), Strategy: sw.strategy.name, PCTDepth: sw.strategy.depth,
		Corpus: ff.corpus}
	if err := opts.Normalize(); err != nil {
		return opts, badInput(err)
	}
	return opts, nil
}

// printHeader prints every parameter of the session first, so a log of it
// says how to run it again.
func printHeader(w io.Writer, o gen.FuzzOptions) {
	ws := make([]string, len(o.Workers))
	for i, n := range o.Workers {
		ws[i] = fmt.Sprint(n)
	}
	bound := fmt.Sprintf("seeds %d..%d", o.SeedStart, o.SeedStart+uint64(o.Seeds)-1)
	if o.Duration > 0 {
		bound = fmt.Sprintf("seeds %d.. for %s", o.SeedStart, o.Duration)
	}
	if !o.Shard.Whole() {
		bound += fmt.Sprintf(" (shard %s: every %d-th from %d)", o.Shard, o.Shard.N, o.SeedStart+uint64(o.Shard.K-1))
	}
	strategy := ""
	switch o.Strategy {
	case sim.StrategyPCT:
		strategy = ", strategy " + sim.StrategyName(o.Strategy, o.PCTDepth)
	case "", sim.StrategyPortfolio:
		strategy = ", strategy " + sim.PortfolioText()
	}
	fmt.Fprintf(w, "fuzz: %s, workers %s, out %s, shrink budget %d, %d jobs%s\n",
		bound, strings.Join(ws, ","), o.Out, o.ShrinkBudget, o.Jobs, strategy)
}

// printFuzzReport prints the summary, and the failure with its replay
// command; a failure is exit status 1.
func printFuzzReport(w io.Writer, rep *gen.FuzzReport) error {
	first, last := rep.SeedStart+uint64(rep.Shard.Index(0)), rep.SeedStart+uint64(rep.Shard.Index(int64(rep.Runs)-1))
	if rep.Runs == 0 {
		first, last = rep.SeedStart, rep.SeedStart
	}
	shard := ""
	if !rep.Shard.Whole() {
		shard = fmt.Sprintf(", shard %s", rep.Shard)
	}
	interrupted := ""
	if rep.Interrupted {
		interrupted = ", interrupted"
	}
	fmt.Fprintf(w, "fuzz: %d runs (seeds %d..%d%s), %d failed, %s, %.0f runs/s%s\n",
		rep.Runs, first, last, shard, rep.Failures, rep.Elapsed.Round(time.Millisecond), rep.RunsPerSec, interrupted)
	f := rep.First
	if f == nil {
		return nil
	}
	fmt.Fprintf(w, "\nFAIL seed %d (run --seed %d --workers %d): %s\n", f.Seed, f.RunSeed, f.Workers, strings.Join(f.Failed, ", "))
	for _, d := range f.Details {
		fmt.Fprintf(w, "  %s\n", d)
	}
	fmt.Fprintf(w, "shrunk: %d ops -> %d ops (%d candidates)\n", f.SizeBefore, f.SizeAfter, f.ShrinkEvals)
	failed := &exitError{code: 1, err: fmt.Errorf("fuzz: seed %d broke %s", f.Seed, strings.Join(f.Failed, ", "))}
	if f.Schedule != "" {
		fmt.Fprintf(w, "%s\n", f.Schedule)
	}
	if f.WriteErr != nil {
		// The repro directory is not there: the shrunk scenario is
		// printed whole, so that the failure is not lost.
		fmt.Fprintf(w, "repro:  not written: %v\nthe shrunk scenario (save it as %s and run: %s):\n%s",
			f.WriteErr, filepath.Join(f.Dir, "scenario.toml"), f.Command, f.Shrunk.Source)
		return withOutputError(failed, f.WriteErr)
	}
	fmt.Fprintf(w, "repro:  %s/\n", f.Dir)
	switch {
	case f.CorpusErr != nil:
		fmt.Fprintf(w, "corpus: not saved: %v\n", f.CorpusErr)
	case f.CorpusFile != "" && f.CorpusRepaired:
		fmt.Fprintf(w, "corpus: %s (repaired: the file there was not this entry; cbcsim check %s replays it)\n", f.CorpusFile, sim.ShellQuote(filepath.Dir(f.CorpusFile)))
	case f.CorpusFile != "" && f.CorpusNew:
		fmt.Fprintf(w, "corpus: %s (new; cbcsim check %s replays it)\n", f.CorpusFile, sim.ShellQuote(filepath.Dir(f.CorpusFile)))
	case f.CorpusFile != "":
		fmt.Fprintf(w, "corpus: %s (already there)\n", f.CorpusFile)
	}
	fmt.Fprintf(w, "replay: %s\n", f.Command)
	return withOutputError(failed, f.CorpusErr)
}
