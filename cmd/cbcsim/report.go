package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/trace"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

func init() { subcommand(newReportCmd) }

// inputName is how a message names an input: its path, or stdin.
func inputName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// readInput reads the file at path, or stdin for "-".
func readInput(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path) // *PathError names the file
}

func newReportCmd() *cobra.Command {
	var outPath string
	cmd := &cobra.Command{
		Use:   "report TRACE [TRACE_B] -o FILE.html",
		Short: "Draw a run (or two, compared) as one self-contained HTML page",
		Long: `Report draws a trace as one HTML page that needs nothing else (no network,
no other file): a lane per worker and per task, slices split at every
preemption, nursery spans, spawn and wake arrows, the task and nursery tree
with results, and for a deadlock what each task waits on as a wait-for
graph. With two traces it draws both on one step scale with their first
divergence marked (as cbcsim diff finds it). Each trace is replayed along
its recorded schedule first, and the checks that failed head the page.
docs/report.md describes the page.

The page goes to -o FILE (written atomically), or to stdout with -o - or
without -o. A huge trace gives a bounded page: the timeline stops at a step
and the page says so. Exit status: 0 on success, 2 for bad input.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && args[0] == "-" && args[1] == "-" {
				return badInput(fmt.Errorf("only one TRACE can be - (stdin)"))
			}
			if err := outfile.Distinct([]string{outPath}, args); err != nil {
				return badInput(fmt.Errorf("-o: %w", err))
			}
			var ts []*trace.Trace
			var labels, notes []string
			for _, a := range args {
				data, err := readInput(a, cmd.InOrStdin())
				if err != nil {
					return badInput(err)
				}
				t, err := trace.Parse(bytes.NewReader(data))
				if err != nil {
					return badInput(fmt.Errorf("%s: %w", inputName(a), err))
				}
				ts = append(ts, t)
				labels = append(labels, filepath.Base(a))
				notes = append(notes, sim.ReplayNotes(a, data)...)
			}
			if len(args) == 2 {
				labels = []string{"A " + labels[0], "B " + labels[1]}
			}
			p := htmlreport.ForTraces(labels, ts)
			p.Notes = notes
			if outPath == "" || outPath == "-" {
				return htmlreport.Write(cmd.OutOrStdout(), p)
			}
			if err := htmlreport.WriteFile(outPath, p); err != nil {
				return fmt.Errorf("writing %s: %w", outPath, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&outPath, "output", "o", "", "write the page to this file (atomically) instead of stdout")
	return cmd
}
