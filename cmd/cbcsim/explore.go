package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// exploreFlags are explore's flags: --workers, --jobs and --shard from
// the sweep vocabulary (explore runs no seeds, so it takes no other; it
// refuses --shard, see check), and its own.
type exploreFlags struct {
	sw           sweepFlags
	preemptions  int
	maxSchedules int
	out          string
}

func init() { subcommand(newExploreCmd) }

func newExploreCmd() *cobra.Command {
	var ef exploreFlags
	cmd := &cobra.Command{
		Use:   "explore FILE [--workers N,...] [--jobs N]",
		Short: "Run every schedule of a scenario up to a preemption bound (systematic search)",
		Long: `Explore runs a scenario under every schedule with 0 preemptions, then 1,
then 2, up to --preemptions, each re-executed from the start on the real
scheduler core (docs/explore.md), once per worker count of --workers (default:
the scenario's). A decision point is a step at which more than one worker has
something to do, or a steal with more than one victim that has something to
steal; a preemption switches away from a worker that still had something to
do. It prints the schedules run per bound, the distinct outcomes and a
verdict: exhaustive up to K preemptions, stopped at --max-schedules (not
exhaustive), or the first failing schedule, shrunk and written under --out as
scenario.toml, run.trace (replay it with cbcsim replay --schedule),
found.trace and README.txt. The schedules run in batches on --jobs
goroutines; what runs and every line on stdout are the same for any
--jobs (the time and rate go to stderr).
--shard is refused: a schedule is found by running others, so the search
cannot be split ahead of time. Progress goes to stderr. The first SIGINT or
SIGTERM stops the search and prints its report ("interrupted at N
schedules, not exhaustive"), then exits 130 or 143 (1 if a schedule
failed); a second exits at once. Exit status: 0 no schedule failed, 1 one
did, 2 bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return ef.run(cmd, args[0]) },
	}
	ef.sw.addWorkers(cmd, nil)
	ef.sw.addJobs(cmd)
	f := cmd.Flags()
	f.IntVar(&ef.preemptions, "preemptions", explore.DefaultPreemptions, "preemption bound K: every schedule with at most K preemptions")
	f.IntVar(&ef.maxSchedules, "max-schedules", explore.DefaultMaxSchedules, "stop after this many schedules per worker count (the verdict then says not exhaustive)")
	f.StringVar(&ef.out, "out", "explore-out", "directory for the repro of a failing schedule")
	return cmd
}

// run is `cbcsim explore FILE`: check the flags, load, and explore under
// each worker count in turn, stopping at the first failing schedule.
func (ef *exploreFlags) run(cmd *cobra.Command, file string) error {
	sc, workers, err := ef.check(cmd, file)
	if err != nil {
		return err
	}
	ctx, finish := interruptible()
	for _, w := range workers {
		if ctx.Err() != nil {
			break // interrupted: the next worker count does not start
		}
		if err := ef.explore(ctx, cmd, file, sc, w); err != nil {
			return finish(err)
		}
	}
	return finish(nil)
}

// check refuses out-of-range flags, loads the scenario and resolves it
// under every worker count (0: the scenario's) before anything runs.
func (ef *exploreFlags) check(cmd *cobra.Command, file string) (*scenario.Scenario, []int, error) {
	switch {
	case ef.preemptions < 0 || ef.preemptions > explore.PreemptionsMax:
		return nil, nil, badInput(fmt.Errorf("--preemptions must be in 0..%d, got %d", explore.PreemptionsMax, ef.preemptions))
	case ef.maxSchedules < 1:
		return nil, nil, badInput(fmt.Errorf("--max-schedules must be at least 1, got %d", ef.maxSchedules))
	case ef.sw.jobs < 1:
		return nil, nil, badInput(fmt.Errorf("--jobs must be at least 1, not %d", ef.sw.jobs))
	case ef.sw.shard != "":
		return nil, nil, badInput(fmt.Errorf("--shard %q: explore cannot be sharded: its schedules are found by running others, so its search cannot be split before it runs (run one explore per worker count instead; docs/explore.md#jobs-and-shards)", ef.sw.shard))
	}
	workers := []int{0}
	if cmd.Flags().Changed("workers") {
		if err := ef.sw.resolveWorkers(); err != nil {
			return nil, nil, err
		}
		workers = ef.sw.workerList
	}
	sc, err := scenario.Load(file)
	if err != nil {
		return nil, nil, badInput(err)
	}
	for _, w := range workers {
		cfg, err := explore.Resolve(sc, w)
		if err != nil {
			return nil, nil, badInput(fmt.Errorf("%s: %w", file, err))
		}
		// The repro of a failing schedule must be writable before the
		// search, not found unwritable after it.
		if err := outfile.CheckDir(explore.ReproDir(ef.out, file, cfg.Workers)); err != nil {
			return nil, nil, badInput(fmt.Errorf("--out: %w", err))
		}
	}
	return sc, workers, nil
}

// explore runs the search on w workers and prints its report; a failing
// schedule is written under --out and is exit status 1.
func (ef *exploreFlags) explore(ctx context.Context, cmd *cobra.Command, file string, sc *scenario.Scenario, w int) error {
	stderr := cmd.ErrOrStderr()
	rep, err := explore.Run(sc, explore.Options{Workers: w, Preemptions: ef.preemptions, MaxSchedules: ef.maxSchedules,
		Jobs: ef.sw.jobs, Progress: stderr, ProgressTerminal: isTerminal(stderr), Context: ctx})
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	stdout := cmd.OutOrStdout()
	if err := rep.Write(stdout, file); err != nil {
		return err
	}
	if err := rep.WriteRate(stderr, ef.sw.jobs); err != nil {
		return err
	}
	if rep.Failure == nil {
		return nil
	}
	failed := &exitError{code: 1, err: fmt.Errorf("%s: schedule %d failed: %s", file, rep.Schedules, rep.Failure.Signature)}
	dir, err := explore.WriteRepro(ef.out, file, sc, rep)
	if err != nil {
		// The failure stands (exit 1) with the disk's error beside it.
		fmt.Fprintf(stdout, "repro:  not written (%v)\nfind it again: cbcsim explore %s --workers %d --preemptions %d\n",
			err, sim.ShellQuote(file), rep.Config.Workers, rep.Bound)
		return withOutputError(failed, fmt.Errorf("writing the repro: %w", err))
	}
	fmt.Fprintf(stdout, "repro:  %s/\nreplay: cbcsim replay --schedule %s\n", dir, filepath.Join(dir, "run.trace"))
	return failed
}

// shrinkCheckSchedule is check's Options.ShrinkSchedule: the explorer's
// shrinker, writing DIR/shrunk.trace.
func shrinkCheckSchedule(_ *scenario.Scenario, _ int, trace []byte, dir string) (string, error) {
	out := filepath.Join(dir, "shrunk.trace")
	f, err := explore.ShrinkTrace(filepath.Join(dir, "run.trace"), trace, out, explore.Options{})
	if err != nil {
		return "", err
	}
	return f.Summary(out), nil
}
