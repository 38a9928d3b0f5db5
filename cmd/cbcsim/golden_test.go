package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenCLI pins what the subcommands print, tables included, as
// golden files a reviewer reads as diffs (rewrite them with -update). Each
// case is a command line run from this directory; its exit status and
// stdout are the golden file.
func TestGoldenCLI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
	}{
		{"run-fail-fast", []string{"run", "../../scenarios/fail_fast.toml", "--seed", "3", "--workers", "2"}},
		{"run-lifo", []string{"run", "../../scenarios/lifo_cleanup.toml", "--seed", "5", "--workers", "1"}},
		{"run-deadlock", []string{"run", "../../scenarios/deadlock_channel.toml", "--seed", "1", "--workers", "2"}},
		{"check-two", []string{"check", "../../scenarios/fail_fast.toml", "../../scenarios/nested_cancel.toml",
			"--seeds", "5", "--workers", "1,3", "--jobs", "2", "--out", ""}},
		{"check-shard", []string{"check", "../../scenarios/fail_fast.toml", "--seeds", "5", "--workers", "1,3",
			"--jobs", "2", "--out", "", "--shard", "2/3"}},
		{"validate", []string{"validate", "../../scenarios/collect_all.toml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := runCLI(c.args...)
			got := fmt.Sprintf("$ cbcsim %s\nexit %d\n%s", strings.Join(c.args, " "), code, out)
			testkit.Golden(t, filepath.Join("testdata", c.name+".golden"), []byte(got), *update)
		})
	}
}
