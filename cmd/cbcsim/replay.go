package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newReplayCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "replay",
		Short:  "not implemented yet",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return badInput(errors.New("replay is not implemented yet"))
		},
	}
}
