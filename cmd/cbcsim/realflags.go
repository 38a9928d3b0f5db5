package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
)

// realTimeout is --real-timeout, shared by run and check: real mode's
// bound in wall time (docs/reliability.md).
type realTimeout struct{ d time.Duration }

func (r *realTimeout) add(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&r.d, "real-timeout", sim.DefaultRealTimeout,
		"with --real: wall time after which a run's sleeps and timeouts end and it is reported as a livelock at this limit")
}

// check refuses a bound that is not positive, and one given without --real.
func (r *realTimeout) check(cmd *cobra.Command, real bool) error {
	if !cmd.Flags().Changed("real-timeout") {
		return nil
	}
	if !real {
		return badInput(fmt.Errorf("--real-timeout needs --real: the seeded driver's clock jumps to the next timer and needs no wall-time bound"))
	}
	if r.d <= 0 {
		return badInput(fmt.Errorf("--real-timeout must be positive, got %v", r.d))
	}
	return nil
}
