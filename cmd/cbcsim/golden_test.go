package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenCLI pins what the subcommands print, tables included, as
// golden files a reviewer reads as diffs (rewrite them with -update). Each
// case is a command line run from this directory; its exit status and
// stdout are the golden file.
func TestGoldenCLI(t *testing.T) {
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
			path := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal([]byte(got), want) {
				t.Fatalf("%s differs; rerun with -update and read the diff:\n%s", path, got)
			}
		})
	}
}
