package gen

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenGenerated pins what the generator makes of seeds 1..60 and
// what the shrinker makes of a few of them: a refactor of either must not
// change a seed's scenario, or the seeds in bug reports stop replaying.
// Rewrite with -update and read the diff.
func TestGoldenGenerated(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	g := Scenario()
	for seed := 1; seed <= 60; seed++ {
		sc := g.Example(seed)
		fmt.Fprintf(&b, "# seed %d\n%s\n", seed, sc.Source)
		if seed%10 == 0 {
			// Shrink against "still has a spawn": deterministic, and it
			// exercises every candidate kind on the way down.
			shrunk := Shrink(sc, func(c *scenario.Scenario) bool { return bytes.Contains(c.Source, []byte("spawn")) }, 200)
			fmt.Fprintf(&b, "# seed %d shrunk\n%s\n", seed, shrunk.Source)
		}
	}
	path := filepath.Join("testdata", "generated.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("generated scenarios differ from %s; rerun with -update and read the diff", path)
	}
}
