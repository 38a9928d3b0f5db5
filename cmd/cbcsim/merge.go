package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim/ci"
)

func init() { subcommand(newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var reports reportFlags
	cmd := &cobra.Command{
		Use:   "merge A.json B.json ... --json OUT",
		Short: "Combine the JSON reports of the shards of one check or fuzz into one",
		Long: `Merge reads the JSON reports written by check --json or fuzz --json on the
shards of one sweep (--shard K/N) and writes one report with the same fields:
runs and failed summed, the cases of one scenario and worker count summed, the
failures of one kind folded to the smallest failing seed. Reports of different
sweeps (another subcommand, other scenarios, seeds or worker counts), shards
that overlap and files that are not reports are refused. Prints one line with
the totals. Exit status: 0 when no run failed, 1 when some did, 2 for bad
input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reports.json == "" && reports.junit == "" {
				return badInput(errors.New("give --json OUT, --junit OUT or both: where the merged report goes"))
			}
			if err := reports.prepare(args); err != nil {
				return err
			}
			in, err := ci.ReadFiles(args)
			if err != nil {
				return badInput(err)
			}
			rep, err := ci.Merge(in)
			if err != nil {
				return badInput(err)
			}
			werr := reports.write(rep)
			shards := "unsharded"
			if rep.ShardCount > 0 {
				shards = fmt.Sprintf("shards %v of %d", rep.Shards, rep.ShardCount)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merge: %d report(s) of %s (%s): %d runs, %d failed, %d kind(s) of failure\n",
				len(in), rep.Sweep.Tool, shards, rep.Runs, rep.Failed, len(rep.Failures))
			if rep.Interrupted {
				fmt.Fprintln(cmd.OutOrStdout(), "merge: a shard was interrupted: its runs are those it ran before the signal")
			}
			var verdict error
			if rep.Failed > 0 || rep.Nondeterminism > 0 {
				verdict = &exitError{code: 1, err: fmt.Errorf("%d of %d runs failed", rep.Failed, rep.Runs)}
			}
			return withOutputError(verdict, werr)
		},
	}
	reports.add(cmd)
	return cmd
}
