//go:build mutants

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/mutant"
)

// TestMutantsCorpusKeepsFailing: a bug the fuzzer finds (the lost-wakeup
// mutant: a send hands its value to a blocked receiver and never wakes
// it) is saved with --corpus; `cbcsim check CORPUS` fails while the bug
// is in, and passes once it is fixed (the mutant off). Saving the same
// failure again adds nothing to the corpus. Run it with
//
//	go test -tags mutants -run TestMutantsCorpus ./cmd/cbcsim
func TestMutantsCorpusKeepsFailing(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	mutant.Set(mutant.LostWakeup)
	defer mutant.Set(mutant.None)
	fuzz := func() {
		t.Helper()
		code, out, errOut := runCLI("fuzz", "--seeds", "200", "--jobs", "1", "--shrink-budget", "300",
			"--out", filepath.Join(dir, "out"), "--corpus", corpus)
		if code != 1 || !strings.Contains(out, "corpus: ") {
			t.Fatalf("fuzz under lost-wakeup: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	fuzz()
	entries := corpusFiles(t, corpus)
	if len(entries) != 2 || !strings.HasSuffix(entries[0], ".toml") || !strings.HasSuffix(entries[1], ".trace") ||
		strings.TrimSuffix(entries[0], ".toml") != strings.TrimSuffix(entries[1], ".trace") {
		t.Fatalf("the corpus holds %v, want NAME.toml and NAME.trace", entries)
	}
	fuzz()
	if again := corpusFiles(t, corpus); !slices.Equal(again, entries) {
		t.Fatalf("saving the same failure again changed the corpus: %v, then %v", entries, again)
	}

	code, out, errOut := runCLI("check", corpus, "--out", filepath.Join(dir, "repro"), "--json", filepath.Join(dir, "bug.json"))
	if code != 1 || !strings.Contains(out, "FAIL "+filepath.Join(corpus, strings.TrimSuffix(entries[0], ".toml")+".trace")) {
		t.Fatalf("check of the corpus with the bug in: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	t.Logf("with the bug:\n%s", out)
	mutant.Set(mutant.None)
	code, out, errOut = runCLI("check", corpus, "--seeds", "5", "--out", filepath.Join(dir, "repro"), "--json", filepath.Join(dir, "fixed.json"))
	if code != 0 {
		t.Fatalf("check of the corpus with the bug fixed: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	t.Logf("fixed:\n%s", out)
}

func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}
