package main

import (
	"fmt"
	"os"
	"path/filepath"

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

// prepare makes the directories the reports go to, before any run: a
// path that cannot be written is bad input found now, not after hours
// of fuzzing. A CI step then needs no mkdir of its own.
func (r *reportFlags) prepare() error {
	for _, p := range []string{r.json, r.junit} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return badInput(fmt.Errorf("%s: is a directory, not a report file", p))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return badInput(fmt.Errorf("the report %s: %w", p, err))
		}
	}
	return nil
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
