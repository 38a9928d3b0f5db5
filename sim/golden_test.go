package sim

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cbcsim/cbcsim/internal/testkit"
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
	t.Parallel()
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
				testkit.Golden(t, filepath.Join("testdata", "golden", name+".golden"), b.Bytes(), *update)
			})
		}
	}
}
