package main

import (
	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
)

// strategyFlags are --strategy and --pct-depth, shared by run, check, fuzz
// and replay.
type strategyFlags struct {
	name  string
	depth int
}

func (s *strategyFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.name, "strategy", "", "how the seeded driver picks workers: portfolio (check's and fuzz's default: each seed one of random and pct at depths 2, 3, 5, 8), random (run's default) or pct (docs/explore.md#which-strategy)")
	f.IntVar(&s.depth, "pct-depth", 0, "with --strategy pct: the bug depth D, D-1 priority change points (default 3)")
}

// check refuses an unknown strategy or a depth without pct.
func (s *strategyFlags) check() error { return sim.CheckStrategy(s.name, s.depth) }
