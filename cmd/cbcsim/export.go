package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newExportCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "export",
		Short:  "not implemented yet",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return badInput(errors.New("export is not implemented yet"))
		},
	}
}
