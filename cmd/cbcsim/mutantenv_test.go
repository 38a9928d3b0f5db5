//go:build !mutants

package main

import (
	"strings"
	"testing"
)

// A binary without the mutants tag refuses CBCSIM_MUTANT rather than
// show the correct scheduler as though it were the broken one.
func TestMutantEnvRefusedWithoutTag(t *testing.T) {
	t.Setenv("CBCSIM_MUTANT", "cleanup-fifo")
	code, _, stderr := runCLI("run", "../../scenarios/inv_lifo_resources.toml")
	if code != 2 || !strings.Contains(stderr, "built without the mutants tag") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	t.Setenv("CBCSIM_MUTANT", "")
	if code, _, stderr := runCLI("run", "../../scenarios/inv_lifo_resources.toml"); code != 0 {
		t.Fatalf("empty CBCSIM_MUTANT: exit %d, %s", code, stderr)
	}
}
