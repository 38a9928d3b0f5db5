package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func newExploreCmd() *cobra.Command {
	var (
		workers      int
		preemptions  int
		maxSchedules int
		out          string
	)
	cmd := &cobra.Command{
		Use:   "explore FILE --workers N",
		Short: "Run every schedule of a scenario up to a preemption bound (systematic search)",
		Long: `Explore runs a scenario under every schedule with 0 preemptions, then 1,
then 2, up to --preemptions, each re-executed from the start on the real
scheduler core (docs/explore.md). A decision point is a step at which more
than one worker has something to do, or a steal with more than one victim
that has something to steal; a preemption switches away from a worker that
still had something to do. It prints the schedules run per bound, the
distinct outcomes and a verdict: exhaustive up to K preemptions, stopped at
--max-schedules (not exhaustive), or the first failing schedule, shrunk and
written under --out as scenario.toml, run.trace (replay it with
cbcsim replay --schedule), found.trace and README.txt. Progress goes to
stderr. Exit status: 0 no schedule failed, 1 one did, 2 bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if preemptions < 0 {
				return badInput(fmt.Errorf("--preemptions must be 0 or more, got %d", preemptions))
			}
			if maxSchedules < 1 {
				return badInput(fmt.Errorf("--max-schedules must be at least 1, got %d", maxSchedules))
			}
			sc, err := scenario.Load(args[0])
			if err != nil {
				return badInput(err)
			}
			if _, err := explore.Resolve(sc, workers); err != nil {
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			rep, err := explore.Run(sc, explore.Options{Workers: workers, Preemptions: preemptions,
				MaxSchedules: maxSchedules, Progress: cmd.ErrOrStderr()})
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			stdout := cmd.OutOrStdout()
			if err := rep.Write(stdout, args[0]); err != nil {
				return err
			}
			if rep.Failure == nil {
				return nil
			}
			dir, err := explore.WriteRepro(out, args[0], sc, rep)
			if err != nil {
				return fmt.Errorf("writing the repro: %w", err)
			}
			fmt.Fprintf(stdout, "repro:  %s/\nreplay: cbcsim replay --schedule %s\n", dir, filepath.Join(dir, "run.trace"))
			return &exitError{code: 1, err: fmt.Errorf("%s: schedule %d failed: %s", args[0], rep.Schedules, rep.Failure.Signature)}
		},
	}
	f := cmd.Flags()
	f.IntVar(&workers, "workers", 0, "worker count 1..256 (default: the scenario's, else the CPU count)")
	f.IntVar(&preemptions, "preemptions", explore.DefaultPreemptions, "preemption bound K: every schedule with at most K preemptions")
	f.IntVar(&maxSchedules, "max-schedules", explore.DefaultMaxSchedules, "stop after this many schedules (the verdict then says not exhaustive)")
	f.StringVar(&out, "out", "explore-out", "directory for the repro of a failing schedule")
	return cmd
}

// shrinkCheckSchedule is check's CheckOptions.ShrinkSchedule: the
// explorer's shrinker, writing DIR/shrunk.trace.
func shrinkCheckSchedule(_ *scenario.Scenario, _ int, trace []byte, dir string) (string, error) {
	out := filepath.Join(dir, "shrunk.trace")
	f, err := explore.ShrinkTrace(filepath.Join(dir, "run.trace"), trace, out, explore.Options{})
	if err != nil {
		return "", err
	}
	return f.Summary(out), nil
}
