package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/bench"
)

// maxParked bounds --parked: the default, a million, already takes a few
// GB, and the memory grows with it (docs/reliability.md).
const maxParked = 1_000_000

func init() { subcommand(newBenchCmd) }

func newBenchCmd() *cobra.Command {
	var (
		quick    bool
		asJSON   bool
		duration time.Duration
		count    int
		workers  int
		parked   int
	)
	cmd := &cobra.Command{
		Use:   "bench [--quick] [--json]",
		Short: "Measure the scheduler in real mode against goroutines, errgroup and conc",
		Long: `Bench runs the workloads of the sched benchmarks (package bench) in this
process and prints one table: for each operation cbcsim's figure, each
peer's (goroutines with sync.WaitGroup, errgroup, conc, a bare iter.Pull
switch) and the ratio peer/cbcsim, above 1x when cbcsim costs less. Then
the fan-out tree's throughput from 1 worker to GOMAXPROCS, and the targets
of docs/spec.md (peer and design targets) beside the figures.

Each figure is the median of --count rounds, a round measuring every
implementation once, in turn, for at least --duration each; a ratio is the
median of the rounds' ratios, so a slow moment of a shared machine slows
every implementation of that round alike.
A full run takes about two minutes on two cores, most of it parking a
million tasks; --quick shrinks everything to a few seconds, for a smoke
test (its figures are rough). Progress goes to stderr. docs/performance.md
says what bounds each figure. Exit status: 0 once measured (a missed target
is a finding, not a failure), 2 for bad input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			switch {
			case f.Changed("duration") && duration <= 0:
				return badInput(fmt.Errorf("--duration must be positive, not %s", duration))
			case f.Changed("count") && count < 1:
				return badInput(fmt.Errorf("--count must be at least 1, not %d", count))
			case f.Changed("workers") && workers < 1:
				return badInput(fmt.Errorf("--workers must be at least 1, not %d", workers))
			case f.Changed("parked") && (parked < 1 || parked > maxParked):
				return badInput(fmt.Errorf("--parked must be between 1 and %d, not %d", maxParked, parked))
			}
			o := bench.Options{Quick: quick, Duration: duration, Count: count, Workers: workers, ParkedTasks: parked}
			rep, err := bench.Run(o, cmd.ErrOrStderr())
			if err != nil {
				return err // "bench: WORKLOAD/IMPL: ..." names what failed
			}
			if asJSON {
				return rep.WriteJSON(cmd.OutOrStdout())
			}
			return rep.Write(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "small sizes and short measurements: a smoke test, rough figures")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON instead of tables")
	f.DurationVar(&duration, "duration", 0, "least time one measurement lasts (default 300ms, 2ms with --quick)")
	f.IntVar(&count, "count", 0, "measurements per figure, the median is kept (default 3, 1 with --quick)")
	f.IntVar(&workers, "workers", 0, "cbcsim workers in the comparisons (default GOMAXPROCS)")
	f.IntVar(&parked, "parked", 0, "tasks parked at once, 1..1000000 (default 1000000, 1000 with --quick)")
	return cmd
}
