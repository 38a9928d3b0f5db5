//go:build mutants

package main

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
)

// CBCSIM_MUTANT switches a mutant on for the whole command: the LIFO
// scenario fails under cleanup-fifo, and says the mutant is on; an
// unknown name is bad input that lists the known ones.
func TestMutantEnv(t *testing.T) {
	defer mutant.Set(mutant.None)
	t.Setenv("CBCSIM_MUTANT", "cleanup-fifo")
	code, _, stderr := runCLI("run", "../../scenarios/inv_lifo_resources.toml")
	if code != 1 || !strings.Contains(stderr, "mutant cleanup-fifo is on") || !strings.Contains(stderr, "lifo-cleanup") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	mutant.Set(mutant.None)
	t.Setenv("CBCSIM_MUTANT", "bogus")
	code, _, stderr = runCLI("run", "../../scenarios/inv_lifo_resources.toml")
	if code != 2 || !strings.Contains(stderr, `no such mutant`) || !strings.Contains(stderr, "cleanup-fifo") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
}
