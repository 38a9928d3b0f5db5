package simtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/check"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// CheckScenarios runs the TOML scenarios that glob matches (a pattern of
// filepath.Glob, or a directory, meaning its *.toml files) as subtests
// named by their file names, each through the same code as `cbcsim
// check` (package sim/check): every seed and worker count, the
// scenario's [expect] and the invariants, and five runs per scenario
// executed twice and compared. Of the options, Seeds, Workers and
// Strategy apply (and their flags; -simtest.seed runs that one seed). A
// failure prints check's report, with its `cbcsim run` rerun commands,
// and writes the repro directories under the failures directory.
func CheckScenarios(t *testing.T, glob string, opts ...Option) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Fatalf("simtest: %v", err)
	}
	paths, err := scenarioPaths(glob)
	if err != nil {
		t.Fatalf("simtest: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".toml")
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.Load(path)
			if err != nil {
				t.Fatalf("simtest: %v", err)
			}
			o := check.Options{Seeds: c.seeds, SeedStart: c.seedStart, Workers: c.workers, Jobs: 1,
				Resample: check.DefaultResample, ReproDir: filepath.Join(failuresDir(), fileSafe(t.Name()))}
			o.Strategy = c.strategy
			r, err := check.Scenarios([]*scenario.Scenario{sc}, []string{path}, o, nil)
			if err != nil {
				t.Fatalf("simtest: %v", err)
			}
			if r.Failed() {
				var b bytes.Buffer
				if err := r.Write(&b); err != nil {
					t.Fatalf("simtest: writing the report: %v", err)
				}
				t.Errorf("simtest: %s: %d of %d runs failed, %d nondeterministic\n%s",
					path, r.FailedRuns, r.Runs, len(r.Nondeterminism), b.String())
			}
		})
	}
}

// scenarioPaths expands glob: a directory stands for its *.toml files.
// Matching nothing is an error, so that a moved directory does not turn
// into a test that passes without running anything.
func scenarioPaths(glob string) ([]string, error) {
	if fi, err := os.Stat(glob); err == nil && fi.IsDir() {
		glob = filepath.Join(glob, "*.toml")
	}
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, &noMatchError{glob}
	}
	return paths, nil
}

type noMatchError struct{ glob string }

func (e *noMatchError) Error() string { return e.glob + ": matches no scenario file" }
