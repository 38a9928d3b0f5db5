package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func newCheckCmd() *cobra.Command {
	var (
		seeds     int
		workers   string
		real      bool
		lean      bool
		out       string
		jobs      int
		seedStart uint64
		resample  int
		strategy  strategyFlags
	)
	cmd := &cobra.Command{
		Use:   "check FILE|DIR... --seeds N",
		Short: "Run scenarios over many seeds and worker counts; a table per scenario, a repro per failure",
		Long: `Check runs every scenario (a DIR stands for its *.toml files) under seeds
S..S+N-1 and every worker count, in parallel, and prints a table per scenario,
then each kind of failure with the command that reproduces it. The first
failing seed of each failing (scenario, workers) pair gets a repro directory
under --out: scenario.toml, run.trace and README.txt. A few runs per scenario
are executed twice and their traces compared byte for byte; a difference is a
failure of its own (nondeterminism). Exit status: 0 when every run passed, 1
when a run failed or was nondeterministic, 2 for bad input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("seeds") {
				return badInput(errors.New("--seeds is required: how many seeds to run per scenario and worker count"))
			}
			if seeds < 1 {
				return badInput(fmt.Errorf("--seeds must be at least 1, got %d", seeds))
			}
			ws, err := parseWorkerList(workers)
			if err != nil {
				return badInput(err)
			}
			if jobs < 1 {
				return badInput(fmt.Errorf("--jobs must be at least 1, got %d", jobs))
			}
			if resample < 0 {
				return badInput(fmt.Errorf("--resample must be 0 or more, got %d", resample))
			}
			if lean && !real {
				return badInput(errLeanNeedsReal)
			}
			if err := strategy.check(); err != nil {
				return badInput(err)
			}
			if real && cmd.Flags().Changed("resample") && resample > 0 {
				return badInput(errors.New("--resample and --real cannot be combined: real mode has no deterministic trace to compare"))
			}
			paths, err := expandScenarioPaths(args)
			if err != nil {
				return badInput(err)
			}
			scs, err := loadScenarios(paths)
			if err != nil {
				return badInput(err)
			}
			stderr := cmd.ErrOrStderr()
			report, err := sim.CheckScenarios(scs, paths, sim.CheckOptions{
				Seeds: seeds, SeedStart: seedStart, Workers: ws, Real: real, Lean: lean, Jobs: jobs,
				Resample: resample, ReproDir: out, ProgressTerminal: isTerminal(stderr),
				Strategy: strategy.name, PCTDepth: strategy.depth, ShrinkSchedule: shrinkCheckSchedule,
			}, stderr)
			if err != nil {
				return badInput(err)
			}
			if err := report.Write(cmd.OutOrStdout()); err != nil {
				return err
			}
			if report.Failed() {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d runs failed, %d nondeterministic",
					report.FailedRuns, report.Runs, len(report.Nondeterminism))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&seeds, "seeds", 0, "seeds per scenario and worker count (required)")
	f.StringVar(&workers, "workers", "1,2,4,8", "comma-separated worker counts, each 1..256")
	f.BoolVar(&real, "real", false, "run on real worker goroutines: no traces, no byte comparison")
	f.BoolVar(&lean, "lean", false, "with --real: keep no tasks, as a Go program's scheduler (main's expectations only)")
	f.StringVar(&out, "out", "repro", `directory for repro directories ("" writes none)`)
	f.IntVar(&jobs, "jobs", runtime.NumCPU(), "runs executed in parallel")
	f.Uint64Var(&seedStart, "seed-start", 1, "first seed; runs use seeds S..S+N-1")
	f.IntVar(&resample, "resample", sim.DefaultResample, "runs per scenario executed twice and compared byte for byte (0: none)")
	strategy.add(f)
	return cmd
}

// parseWorkerList parses --workers: "1,2,4,8".
func parseWorkerList(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("--workers %q has an empty entry (want a comma-separated list such as 1,2,4,8)", s)
		}
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("--workers: %q is not a number (want a comma-separated list such as 1,2,4,8)", part)
		}
		if n < 1 || n > sched.WorkersMax {
			return nil, fmt.Errorf("--workers: %d is out of range 1..%d", n, sched.WorkersMax)
		}
		if seen[n] {
			return nil, fmt.Errorf("--workers: %d is listed twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// expandScenarioPaths replaces each directory by its *.toml files, sorted by
// name, and drops repeated files. A path that is not a directory is kept as
// it is: loading it reports whether it exists.
func expandScenarioPaths(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if c := filepath.Clean(p); !seen[c] {
			seen[c] = true
			out = append(out, p)
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
			return nil, fmt.Errorf("reading directory %s: %w", arg, err)
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".toml") {
				add(filepath.Join(arg, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: the directory has no *.toml files", arg)
		}
	}
	return out, nil
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
