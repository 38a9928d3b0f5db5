package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/check"
	"github.com/cbcsim/cbcsim/sim/gen"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// checkFlags are check's flags: the sweep vocabulary and its own.
type checkFlags struct {
	sw       sweepFlags
	real     bool
	lean     bool
	out      string
	resample int
	reports  reportFlags
	timeout  realTimeout
	quiet    bool   // --quiet: failures and the summary only
	page     string // --report FILE.html
}

func init() { subcommand(newCheckCmd) }

func newCheckCmd() *cobra.Command {
	var cf checkFlags
	cmd := &cobra.Command{
		Use:   "check FILE|DIR... [--seeds N]",
		Short: "Run scenarios over many seeds and worker counts; a table per scenario, a repro per failure",
		Long: `Check runs every scenario (a DIR stands for its *.toml files) under seeds
S..S+N-1 and every worker count, in parallel, and prints a table per scenario,
then each kind of failure with the command that reproduces it. The first
failing seed of each failing (scenario, workers) pair gets a repro directory
under --out: scenario.toml, run.trace and README.txt. A few runs per scenario
are executed twice and their traces compared byte for byte; a difference is a
failure of its own (nondeterminism).

A *.trace file (given, or in a DIR: a regression corpus written by fuzz
--corpus) is a recorded run, and so is a repro directory's run.trace (a DIR
that is a repro directory, or one a DIR holds, one level deep): it is run once more along its recorded schedule
(from its seed when the schedule no longer applies) and checked. --seeds is
required unless there are recorded runs. --json and --junit write reports for
CI (docs/ci.md). The first SIGINT or SIGTERM stops handing out runs: those
under way finish, the report covers the runs made ("N of M runs made"), and
the JSON says "interrupted"; a second one exits at once. Exit status: 0 when
every run passed, 1 when a run failed or was nondeterministic, 2 for bad
input, 130 or 143 when a signal stopped a check whose runs made all passed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return cf.run(cmd, args) },
	}
	cf.sw.add(cmd, check.DefaultWorkers())
	cf.sw.addStrategy(cmd)
	f := cmd.Flags()
	f.BoolVar(&cf.real, "real", false, "run on real worker goroutines: no traces, no byte comparison")
	f.BoolVar(&cf.lean, "lean", false, "with --real: keep no tasks, as a Go program's scheduler (main's expectations only)")
	f.StringVar(&cf.out, "out", "repro", `directory for repro directories ("" writes none)`)
	f.IntVar(&cf.resample, "resample", check.DefaultResample, "runs per scenario executed twice and compared byte for byte (0: none)")
	f.BoolVar(&cf.quiet, "quiet", false, "print only the failures and the summary (not the table of each scenario)")
	onceStringVar(cmd, &cf.page, "report", "", "write an HTML page here: the pass and fail grid of scenarios by workers, the failures, the first failing run drawn (docs/report.md)")
	cf.reports.add(cmd)
	cf.timeout.add(cmd)
	return cmd
}

// run is `cbcsim check`: check the flags, load every scenario, run the
// sweep, print the report; a failed or nondeterministic run is exit 1. A
// signal ends the sweep early, with its report (interruptible).
func (cf *checkFlags) run(cmd *cobra.Command, args []string) error {
	ctx, finish := interruptible()
	return finish(cf.sweep(ctx, cmd, args))
}

// sweep is run's body, under the interrupt's context.
func (cf *checkFlags) sweep(ctx context.Context, cmd *cobra.Command, args []string) error {
	paths, traces, empty, err := expandScenarioPaths(args, cmd.Flags().Changed("seeds"))
	if err != nil {
		return badInput(err)
	}
	if err := cf.check(cmd, len(traces) > 0 || len(empty) > 0); err != nil {
		return err
	}
	for _, dir := range empty {
		fmt.Fprintf(cmd.OutOrStdout(), "check: %s holds no recorded runs yet (an empty corpus: fuzz --corpus found nothing to save)\n", dir)
	}
	if err := cf.reports.prepare(append(append([]string(nil), paths...), traces...)); err != nil {
		return err
	}
	if cf.page != "" {
		if err := outfile.Check(cf.page); err != nil {
			return badInput(fmt.Errorf("--report %s: %w", cf.page, err))
		}
		if err := outfile.Distinct(append([]string{cf.page}, cf.reports.paths()...), append(append([]string(nil), paths...), traces...)); err != nil {
			return badInput(fmt.Errorf("--report: %w", err))
		}
	}
	if !cmd.Flags().Changed("seeds") {
		paths = nil // the recorded runs alone
	}
	if len(paths) == 0 && len(traces) == 0 { // empty corpora only
		fmt.Fprintln(cmd.OutOrStdout(), "ok: no recorded runs to check")
		return cf.reports.write(check.EmptyCorpora(empty, cf.sw.workerList))
	}
	if cf.out != "" {
		if err := outfile.CheckDir(cf.out); err != nil {
			return badInput(fmt.Errorf("--out: %w", err))
		}
	}
	scs, err := loadScenarios(paths)
	if err != nil {
		return badInput(err)
	}
	stderr := cmd.ErrOrStderr()
	if cf.quiet && !isTerminal(stderr) {
		stderr = io.Discard // a progress line every two seconds is not quiet; a terminal's one rewritten line stays
	}
	report, err := check.Scenarios(scs, paths, check.Options{
		Seeds: cf.sw.seeds, SeedStart: cf.sw.seedStart, Workers: cf.sw.workerList, Mode: sim.ModeOf(cf.real, cf.lean), RealTimeout: cf.timeout.d,
		Jobs: cf.sw.jobs, Resample: cf.resample, ReproDir: cf.out, ProgressTerminal: isTerminal(stderr), Shard: cf.sw.shardOf,
		Strategy: cf.sw.strategy.name, PCTDepth: cf.sw.strategy.depth, ShrinkSchedule: shrinkCheckSchedule,
		Traces: traces, ExecRecorded: gen.ExecuteRecorded, Context: ctx,
	}, stderr)
	if err != nil {
		return badInput(err)
	}
	write := report.Write
	if cf.quiet {
		write = report.WriteQuiet
	}
	if err := write(cmd.OutOrStdout()); err != nil {
		return err
	}
	var verdict error
	if report.Failed() {
		verdict = &exitError{code: 1, err: fmt.Errorf("%d of %d runs failed, %d nondeterministic",
			report.FailedRuns, report.Runs, len(report.Nondeterminism))}
	}
	return withOutputError(verdict, errors.Join(cf.reports.write(report.CI()), cf.writePage(report)))
}

// writePage writes --report FILE.html: the grid, the failures and the
// first failure's run (docs/report.md).
func (cf *checkFlags) writePage(report *check.Report) error {
	if cf.page == "" {
		return nil
	}
	p, err := report.Page()
	if err == nil {
		err = htmlreport.WriteFile(cf.page, p)
	}
	if err != nil {
		return fmt.Errorf("the HTML report %s: %w", cf.page, err)
	}
	return nil
}

// check refuses missing, out-of-range and conflicting flags.
func (cf *checkFlags) check(cmd *cobra.Command, recorded bool) error {
	if !cmd.Flags().Changed("seeds") && !recorded {
		return badInput(errors.New("--seeds is required: how many seeds to run per scenario and worker count"))
	}
	if err := cf.sw.resolve(cmd); err != nil {
		return err
	}
	if err := cf.timeout.check(cmd, cf.real); err != nil {
		return err
	}
	switch {
	case cf.resample < 0:
		return badInput(fmt.Errorf("--resample must be 0 or more, got %d", cf.resample))
	case cf.lean && !cf.real:
		return badInput(errLeanNeedsReal)
	case cf.real && cmd.Flags().Changed("resample") && cf.resample > 0:
		return badInput(errors.New("--resample and --real cannot be combined: real mode has no deterministic trace to compare"))
	}
	return nil
}

// expandScenarioPaths replaces each directory by its *.toml files (the
// scenarios) and *.trace files (recorded runs), sorted by name, and drops
// repeated files. A repro directory (one holding run.trace, as check,
// fuzz and explore write them) stands for its run.trace alone: the
// failing run as recorded, its scenario embedded, so the scenario.toml
// beside it needs no --seeds. A directory's subdirectories are looked
// into one level deep for repro directories, so that `check repro`
// replays everything a campaign wrote. A path that is not a directory is
// kept as it is, a recorded run if it ends in .trace: loading it reports
// whether it exists. A directory with none of these is an error, except
// without --seeds (seeded false): then it is a regression corpus with no
// entries yet (fuzz --corpus creates it empty when it finds nothing), and
// it is returned in empty.
func expandScenarioPaths(args []string, seeded bool) (scenarios, traces, empty []string, err error) {
	seen := map[string]bool{}
	add := func(p string) {
		if c := filepath.Clean(p); !seen[c] {
			seen[c] = true
			if check.IsTrace(p) {
				traces = append(traces, p)
			} else {
				scenarios = append(scenarios, p)
			}
		}
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil || !fi.IsDir() {
			add(arg)
			continue
		}
		entries, err := os.ReadDir(arg) // sorted by name
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading directory %s: %w", arg, err)
		}
		if isReproDir(entries) {
			add(filepath.Join(arg, reproTrace))
			continue
		}
		n := 0
		for _, e := range entries {
			name := filepath.Join(arg, e.Name())
			switch {
			case e.IsDir():
				sub, err := os.ReadDir(name)
				if err == nil && isReproDir(sub) {
					add(filepath.Join(name, reproTrace))
					n++
				}
			case (strings.HasSuffix(e.Name(), ".toml") || check.IsTrace(e.Name())) && !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0:
				// A FIFO in a corpus would block the read: named, not opened.
				return nil, nil, nil, fmt.Errorf("%s: not a regular file (%s): a directory's scenarios and traces must be", name, e.Type())
			case strings.HasSuffix(e.Name(), ".toml") || check.IsTrace(e.Name()):
				add(name)
				n++
			}
		}
		if n == 0 && seeded {
			return nil, nil, nil, fmt.Errorf("%s: the directory has no *.toml or *.trace files and no repro directories", arg)
		}
		if n == 0 {
			empty = append(empty, arg)
		}
	}
	return scenarios, traces, empty, nil
}

// reproTrace is the failing run in a repro directory.
const reproTrace = "run.trace"

// isReproDir: the entries hold a regular run.trace.
func isReproDir(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.Name() == reproTrace && e.Type().IsRegular() {
			return true
		}
	}
	return false
}

// loadScenarios loads every file before anything runs; it reports every
// file that fails, each with the scenario package's own message (file,
// TOML path, line and column).
func loadScenarios(paths []string) ([]*scenario.Scenario, error) {
	var scs []*scenario.Scenario
	var errs []error
	for _, p := range paths {
		sc, err := scenario.Load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scs = append(scs, sc)
	}
	if len(errs) > 1 {
		errs = append(errs, fmt.Errorf("%d of %d file(s) invalid", len(errs), len(paths)))
	}
	return scs, errors.Join(errs...)
}

// isTerminal reports whether w is a terminal, so that progress can rewrite
// one line instead of printing one every two seconds.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
