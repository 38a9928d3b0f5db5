package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "diff",
		Short:  "not implemented yet",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return badInput(errors.New("diff is not implemented yet"))
		},
	}
}
