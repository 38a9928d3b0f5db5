package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func init() { subcommand(newValidateCmd) }

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Load and check scenarios without running them",
		Long: `Validate loads each scenario and reports every load error with the file, the
TOML path and, where known, the line and column. Exit status 0 when all are
valid, 2 otherwise.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, path := range args {
				sc, err := scenario.Load(path)
				if err == nil {
					_, err = sim.Resolve(sc, sim.Options{})
					if err != nil {
						err = fmt.Errorf("%s: %w", path, err)
					}
				}
				if err != nil {
					bad++
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "ok  %s (%s)\n", path, sc.Name)
			}
			if bad > 0 {
				return badInput(fmt.Errorf("%d of %d file(s) invalid", bad, len(args)))
			}
			return nil
		},
	}
}
