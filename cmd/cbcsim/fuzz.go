package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newFuzzCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "fuzz",
		Short:  "not implemented yet",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return badInput(errors.New("fuzz is not implemented yet"))
		},
	}
}
