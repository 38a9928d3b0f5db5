package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenConfigs are the seeds and worker counts every bundled scenario's
// trace is pinned at: a refactor of the simulator must leave each byte of
// these traces (and each check's verdict) unchanged, or the diff says what
// changed and why.
var goldenConfigs = []struct {
	seed    uint64
	workers int
}{{7, 1}, {7, 3}}

// TestGoldenBundled runs every bundled scenario at goldenConfigs and
// compares its trace, tables and checks with testdata/golden. Rewrite them
// with -update and read the diff.
func TestGoldenBundled(t *testing.T) {
	for _, sc := range bundled(t) {
		for _, g := range goldenConfigs {
			name := fmt.Sprintf("%s.seed%d.w%d", sc.Name, g.seed, g.workers)
			t.Run(name, func(t *testing.T) {
				run, tr := runOnce(t, sc, Options{Seed: g.seed, HasSeed: true, Workers: g.workers})
				var b bytes.Buffer
				b.WriteString(tr)
				b.WriteString("---- tables\n")
				if err := run.WriteTables(&b); err != nil {
					t.Fatal(err)
				}
				b.WriteString("---- checks\n")
				for _, c := range run.Checks {
					fmt.Fprintf(&b, "%s %s ok=%v %s\n", c.Class, c.Name, c.OK, c.Detail)
				}
				compareGolden(t, filepath.Join("testdata", "golden", name+".golden"), b.Bytes())
			})
		}
	}
}

// compareGolden compares got with the golden file at path, or rewrites the
// file under -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got  %s\n want %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: got %d lines, want %d", path, len(gl), len(wl))
	}
}
