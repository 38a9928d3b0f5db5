package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/trace"
)

func init() { subcommand(newDiffCmd) }

func newDiffCmd() *cobra.Command {
	context := trace.DefaultContext
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two traces and explain the first divergence",
		Long: `Compare two trace files and explain where they first part: which decision
differs (the driver's choice of worker, or a thief's choice of victim), or,
when the decisions are the same and the effects are not, that the simulator
is nondeterministic. Shows the divergent line of each file with context and
summarises the task results and outcomes of both runs. See docs/diff.md.

Exit status: 0 the traces are identical, 1 they differ, 2 bad input.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return badInput(fmt.Errorf("diff takes two trace files, A and B; got %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if context < 0 {
				return badInput(fmt.Errorf("--context must be 0 or more, not %d", context))
			}
			// load reads and parses one trace file. Every failure is bad
			// input and names the file; a parse error also names the line.
			// (A closure, not a package function: other commands in this
			// package load traces too, with their own needs.)
			load := func(path string) (*trace.Trace, error) {
				f, err := os.Open(path)
				if err != nil {
					return nil, badInput(err)
				}
				defer f.Close()
				t, err := trace.Parse(f)
				if err != nil {
					return nil, badInput(fmt.Errorf("%s: %w", path, err))
				}
				return t, nil
			}
			a, err := load(args[0])
			if err != nil {
				return err
			}
			b, err := load(args[1])
			if err != nil {
				return err
			}
			d := trace.DiffContext(a, b, context)
			d.NameA, d.NameB = args[0], args[1]
			if err := d.Write(cmd.OutOrStdout()); err != nil {
				return fmt.Errorf("writing the report: %w", err)
			}
			if d.Equal() {
				return nil
			}
			return &exitError{code: 1, err: errors.New("traces differ: " + d.Headline())}
		},
	}
	cmd.Flags().IntVar(&context, "context", context, "event lines to show before and after the first divergence")
	return cmd
}
