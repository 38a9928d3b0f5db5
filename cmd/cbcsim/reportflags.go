package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sim/ci"
)

// reportFlags are --json FILE and --junit FILE: the reports CI reads, of
// check, fuzz and merge (docs/ci.md).
type reportFlags struct {
	json, junit string
}

func (r *reportFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.json, "json", "", `write the JSON report here: "runs", "failed" and each failure's command (docs/ci.md)`)
	f.StringVar(&r.junit, "junit", "", "write a JUnit XML report here, for GitHub, GitLab or Jenkins (docs/ci.md)")
}

// write writes the reports asked for, each atomically. A file that
// cannot be written is an error of the disk, not of the runs: the
// caller reports it after the runs' own verdict is printed.
func (r *reportFlags) write(rep *ci.Report) error {
	if r.json != "" {
		if err := ci.WriteJSONFile(r.json, rep); err != nil {
			return fmt.Errorf("writing the JSON report: %w", err)
		}
	}
	if r.junit != "" {
		if err := ci.WriteJUnitFile(r.junit, rep); err != nil {
			return fmt.Errorf("writing the JUnit report: %w", err)
		}
	}
	return nil
}
