package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "check",
		Short:  "not implemented yet",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return badInput(errors.New("check is not implemented yet"))
		},
	}
}
