package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// report draws a trace, or two with their divergence, into one file.
func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trace"), filepath.Join(dir, "b.trace")
	for _, run := range []struct{ seed, path string }{{"1", a}, {"2", b}} {
		if code, _, stderr := runCLI("run", "../../scenarios/deadlock_channel.toml", "--seed", run.seed, "--workers", "2", "--trace", run.path); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	one := filepath.Join(dir, "one.html")
	if code, stdout, stderr := runCLI("report", a, "-o", one); code != 0 || stdout != "" {
		t.Fatalf("report: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	page, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<!DOCTYPE html>", "t1 main", "t2 receiver", "worker w0", "worker w1", "recv c",
		"replayed along its recorded schedule): all "} {
		if !strings.Contains(string(page), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if !regexp.MustCompile(`all \d+ checks held`).Match(page) {
		t.Errorf("report does not say every check held")
	}
	two := filepath.Join(dir, "diff.html")
	if code, _, stderr := runCLI("report", a, b, "-o", two); code != 0 {
		t.Fatalf("report A B: exit %d: %s", code, stderr)
	}
	page, _ = os.ReadFile(two)
	if !strings.Contains(string(page), `id="divergence"`) || !strings.Contains(string(page), "A a.trace") {
		t.Errorf("the two-trace report has no divergence marker or no label A")
	}
	// A failing run's page says which checks failed, found by replaying it.
	lock := filepath.Join(dir, "lock.trace")
	if code, _, stderr := runCLI("run", "../../scenarios/bugs/lock_order.toml", "--seed", "5", "--workers", "2", "--trace", lock); code != 1 {
		t.Fatalf("run lock_order seed 5: exit %d, want 1 (a deadlock): %s", code, stderr)
	}
	code, stdout, stderr := runCLI("report", lock)
	if code != 0 || !strings.Contains(stdout, "checks FAIL") || !strings.Contains(stdout, "  FAIL expect.outcome: want ok, got deadlock") ||
		!strings.Contains(stdout, "wait-for cycle: a_to_b -&gt; b_to_a -&gt; a_to_b") {
		t.Errorf("the failing run's page: exit %d, lacks its failed checks or its cycle: %s", code, stderr)
	}
	code, stdout, _ = runCLI("report", a)
	if code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") {
		t.Errorf("report to stdout: exit %d, %.40q", code, stdout)
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trace")
	if err := os.WriteFile(bad, []byte("# cbcsim-trace 3\n# source: 0\n# end\n1 1 w0 bogus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.html")
	for _, args := range [][]string{
		{"report", bad, "-o", out},
		{"report", filepath.Join(dir, "missing.trace"), "-o", out},
		{"report", "-", "-", "-o", out},
		{"report", bad, "-o", bad},
		{"report"},
	} {
		code, _, stderr := runCLI(args...)
		if code != 2 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s", out)
	}
}
