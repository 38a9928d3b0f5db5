package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/trace"
	"github.com/cbcsim/cbcsim/trace/chrome"
)

// exportFormats are the values --format accepts, in the order the error
// message lists them.
var exportFormats = []string{"chrome"}

func init() { subcommand(newExportCmd) }

func newExportCmd() *cobra.Command {
	var (
		format  string
		outPath string
	)
	cmd := &cobra.Command{
		Use:   "export TRACE --format chrome [-o OUT]",
		Short: "Convert a trace for a trace viewer (chrome: Perfetto, chrome://tracing)",
		Long: `Export reads a cbcsim trace and writes it in another tool's format.

--format chrome writes Chrome trace-event JSON, which ui.perfetto.dev
("Open trace file") and chrome://tracing ("Load") open: a lane per worker,
a slice per task run, an instant per scheduler event, and the trace's tick
as the time in microseconds (1 tick = 1 us). docs/export.md has the mapping.

The output goes to stdout, or with -o to a file that appears only once it is
complete. TRACE "-" reads the trace from stdin. Exit status: 0 on success,
2 for bad input (an unknown format, an unreadable or malformed trace).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "chrome":
			case "":
				return badInput(fmt.Errorf("--format is required: the formats are %s", strings.Join(exportFormats, ", ")))
			default:
				return badInput(fmt.Errorf("unknown --format %q: the formats are %s", format, strings.Join(exportFormats, ", ")))
			}
			if err := outfile.Distinct([]string{outPath}, []string{args[0]}); err != nil {
				return badInput(fmt.Errorf("-o: %w", err))
			}
			tr, err := exportReadTrace(args[0], cmd.InOrStdin())
			if err != nil {
				return badInput(err)
			}
			if outPath == "" || outPath == "-" {
				return chrome.Write(cmd.OutOrStdout(), tr)
			}
			af, err := sim.CreateAtomic(outPath)
			if err != nil {
				return badInput(fmt.Errorf("creating %s: %w", outPath, err))
			}
			if err := chrome.Write(af, tr); err != nil {
				af.Abort()
				return fmt.Errorf("writing %s: %w", outPath, err)
			}
			if err := af.Commit(); err != nil {
				return fmt.Errorf("writing %s: %w", outPath, err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "output format: "+strings.Join(exportFormats, ", "))
	f.StringVarP(&outPath, "output", "o", "", "write to this file (atomically) instead of stdout")
	return cmd
}

// exportReadTrace parses the trace at path ("-" is stdin). A parse error
// names the file and the line: "a.trace: line 12: bad step".
func exportReadTrace(path string, stdin io.Reader) (*trace.Trace, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err // *PathError names the file
		}
		defer f.Close()
		r = f
	} else {
		path = "stdin"
	}
	tr, err := trace.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}
