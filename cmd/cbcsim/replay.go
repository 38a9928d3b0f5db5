package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/trace"
)

func init() { subcommand(newReplayCmd) }

func newReplayCmd() *cobra.Command {
	var (
		schedule bool
		context  int
		strategy strategyFlags
		tables   bool
	)
	cmd := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Re-run a trace from the trace alone and compare byte for byte",
		Long: `Replay rebuilds the run from the trace file alone (it embeds the scenario,
the seed and the configuration), runs it again and compares the new trace
with the file byte for byte. With --schedule the run follows the decisions
recorded in the trace (which worker acted at each step, which victim each
steal attempt chose) instead of the PRNG, so a trace stays replayable after
the generator changes; a recorded decision that no longer applies is named
with its step and line. A replay that reproduces the run then reports its
checks: the ones that failed, with what each stuck task waits on (--tables
adds the task, nursery and worker tables). A trace of a Go test body
(simtest) or of a C program holds no program to run: replay says so, and
for simtest prints the go test command that reruns it. Exit status: 0
identical and every check holds, 1 diverged or a check failed, 2 bad
input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if context < 0 {
				return badInput(fmt.Errorf("--context must be 0 or more, not %d", context))
			}
			data, err := trace.ReadFile(args[0])
			var pe *trace.ParseError
			if errors.As(err, &pe) {
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			if err != nil {
				return badInput(err) // a *PathError names the file
			}
			if err := strategy.check(); err != nil {
				return badInput(err)
			}
			if cmd.Flags().Changed("strategy") || cmd.Flags().Changed("pct-depth") {
				// The header names the strategy; a flag may only confirm it,
				// so that a replay never silently re-runs a different search.
				if err := sim.CheckTraceStrategy(args[0], data, strategy.name, strategy.depth); err != nil {
					return badInput(err)
				}
			}
			rep, err := sim.Replay(args[0], data, schedule, context)
			var bt *sim.BadTraceError
			if errors.As(err, &bt) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			return reportReplay(cmd.OutOrStdout(), args[0], rep, tables)
		},
	}
	cmd.Flags().BoolVar(&schedule, "schedule", false, "follow the recorded decisions instead of the PRNG")
	cmd.Flags().IntVar(&context, "context", 3, "lines of context before the first divergence")
	cmd.Flags().BoolVar(&tables, "tables", false, "print the replayed run's task, nursery and worker tables and every check")
	strategy.add(cmd)
	return cmd
}

// reportReplay prints the replay's report (and with tables the run's
// tables) and returns its exit status: 1 when the replay diverged or the
// reproduced run fails a check.
func reportReplay(w io.Writer, file string, rep *sim.ReplayReport, tables bool) error {
	if err := rep.Write(w, file); err != nil {
		return err
	}
	if tables && rep.Run != nil {
		fmt.Fprintln(w)
		if err := rep.Run.WriteTables(w); err != nil {
			return err
		}
	}
	if !rep.Identical {
		return &exitError{code: 1, err: fmt.Errorf("%s: replay diverged", file)}
	}
	if rep.Failed() {
		return &exitError{code: 1, err: fmt.Errorf("%s: the run fails its checks (identical to the recording)", file)}
	}
	return nil
}
