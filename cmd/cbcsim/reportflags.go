package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim/ci"
)

// reportFlags are --json FILE and --junit FILE: the reports CI reads, of
// check, fuzz and merge (docs/ci.md).
type reportFlags struct {
	json, junit string
}

func (r *reportFlags) add(cmd *cobra.Command) {
	onceStringVar(cmd, &r.json, "json", "", `write the JSON report here: "runs", "failed" and each failure's command (docs/ci.md)`)
	onceStringVar(cmd, &r.junit, "junit", "", "write a JUnit XML report here, for GitHub, GitLab or Jenkins (docs/ci.md)")
}

// prepare makes the directories the reports go to and checks that each
// report can be written there, before any run: a path that cannot be
// written (a directory, a dangling link, a symlink loop, a read-only
// directory) is bad input found now, not after hours of fuzzing. A CI
// step then needs no mkdir of its own. A report that would replace one
// of the command's inputs, or the other report, is refused too.
func (r *reportFlags) prepare(inputs []string) error {
	for _, p := range r.paths() {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return badInput(fmt.Errorf("%s: is a directory, not a report file", p))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return badInput(fmt.Errorf("the report %s: %w", p, err))
		}
		if err := outfile.Check(p); err != nil {
			return badInput(fmt.Errorf("the report %s: %w", p, err))
		}
	}
	if err := outfile.Distinct(r.paths(), inputs); err != nil {
		return badInput(err)
	}
	return nil
}

// paths are the reports asked for.
func (r *reportFlags) paths() []string {
	var ps []string
	for _, p := range []string{r.json, r.junit} {
		if p != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

// write writes the reports asked for, each atomically, the second even
// when the first failed. A file that cannot be written is an error of
// the disk, not of the runs: the caller reports it beside the runs' own
// verdict (withOutputError). The old file at a path that could not be
// written is removed, so that CI never reads the report of an earlier
// sweep as this one's.
func (r *reportFlags) write(rep *ci.Report) error {
	var errs []error
	for _, w := range []struct {
		path, what string
		write      func(string, *ci.Report) error
	}{{r.json, "JSON", ci.WriteJSONFile}, {r.junit, "JUnit", ci.WriteJUnitFile}} {
		if w.path == "" {
			continue
		}
		if err := w.write(w.path, rep); err != nil {
			stale := ""
			if fi, serr := os.Stat(w.path); serr == nil && fi.Mode().IsRegular() && os.Remove(w.path) == nil {
				stale = " (the old report there is removed)"
			}
			errs = append(errs, fmt.Errorf("writing the %s report: %w%s", w.what, err, stale))
		}
	}
	return errors.Join(errs...)
}
