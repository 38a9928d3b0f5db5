package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
)

func TestFuzzBadInputExits2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fuzz"}, "give --seeds N or --duration D"},
		{[]string{"fuzz", "--seeds", "10", "--duration", "1s"}, "not both"},
		{[]string{"fuzz", "--seeds", "0"}, "--seeds must be at least 1"},
		{[]string{"fuzz", "--duration", "-1s"}, "--duration must be positive"},
		{[]string{"fuzz", "--seeds", "10", "--start", "0"}, "--seed-start must be at least 1"},
		{[]string{"fuzz", "--seeds", "10", "--seed-start", "0"}, "--seed-start must be at least 1"},
		{[]string{"fuzz", "--seeds", "10", "--workers", "0"}, "--workers: 0 is out of range 1..256"},
		{[]string{"fuzz", "--seeds", "10", "--workers", "1,300"}, "--workers: 300 is out of range 1..256"},
		{[]string{"fuzz", "--seeds", "10", "--workers", "two"}, `--workers: "two" is not a number`},
		{[]string{"fuzz", "--seeds", "10", "--jobs", "0"}, "--jobs must be at least 1"},
		{[]string{"fuzz", "--seeds", "10", "--shard", "4/3"}, `--shard "4/3": the index "4" is not a number in 1..3`},
		{[]string{"fuzz", "--seeds", "10", "--shard", "auto"}, "SHARD_COUNT is not set"},
		{[]string{"fuzz", "--seeds", "10", "--shrink-budget", "0"}, "--shrink-budget must be at least 1"},
		{[]string{"fuzz", "--seeds", "10", "extra"}, "unknown command"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s%s", c.args, code, out, errOut)
			continue
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errOut, c.want)
		}
	}
}

func TestFuzzPassesExits0(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "fz")
	code, stdout, errOut := runCLI("fuzz", "--seeds", "150", "--start", "7", "--workers", "1,3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	for _, want := range []string{
		"fuzz: seeds 7..156, workers 1,3, out " + out + ", shrink budget 2000",
		"fuzz: 150 runs (seeds 7..156), 0 failed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a passing run created %s", out)
	}
}

// TestFuzzFailureExits1 makes the fuzzer stricter than the invariants (a
// panicking task is a failure), and checks the exit status, the printed
// repro, and that the printed command runs the written scenario.
func TestFuzzFailureExits1(t *testing.T) {
	fuzzFailing = func(run *sim.Run) []string {
		for _, task := range run.Tasks {
			if strings.HasPrefix(task.Result, "panic:") {
				return []string{"task-panicked"}
			}
		}
		return nil
	}
	t.Cleanup(func() { fuzzFailing = nil })

	out := filepath.Join(t.TempDir(), "fz")
	code, stdout, errOut := runCLI("fuzz", "--seeds", "300", "--out", out, "--shrink-budget", "500")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, errOut)
	}
	m := regexp.MustCompile(`replay: (cbcsim run (\S+) --seed (\d+) --workers (\d+))`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no replay command in:\n%s", stdout)
	}
	for _, want := range []string{"FAIL seed ", "task-panicked", "shrunk: ", "schedule shrunk: ", "repro:  " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(errOut, "broke task-panicked") {
		t.Errorf("stderr lacks the failure:\n%s", errOut)
	}
	dir := filepath.Dir(m[2])
	for _, name := range []string{"scenario.toml", "original.toml", "run.trace", "shrunk.trace", "README.txt", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%v", err)
		}
	}
	// The replay: the invariants hold (the failure was the test's own
	// predicate), so `run` exits 0, and it names the same seed and workers.
	code, runOut, runErr := runCLI("run", m[2], "--seed", m[3], "--workers", m[4])
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", m[1], code, runOut, runErr)
	}
	if !strings.Contains(runOut, "panic:") || !strings.Contains(runOut, "--seed "+m[3]+" --workers "+m[4]) {
		t.Fatalf("%s did not replay the panicking run:\n%s", m[1], runOut)
	}
	// The trace written beside it replays byte for byte.
	if code, out, errOut := runCLI("replay", filepath.Join(dir, "run.trace")); code != 0 {
		t.Fatalf("replay of run.trace: exit %d\n%s%s", code, out, errOut)
	}
	// So does the shrunk schedule, by its recorded decisions.
	if code, out, errOut := runCLI("replay", "--schedule", filepath.Join(dir, "shrunk.trace")); code != 0 {
		t.Fatalf("replay --schedule of shrunk.trace: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFuzzFailurePCTReproduces: under pct the printed replay command
// carries the strategy and its depth, and, run as printed, runs the
// failing (panicking) run again.
func TestFuzzFailurePCTReproduces(t *testing.T) {
	fuzzFailing = func(run *sim.Run) []string {
		for _, task := range run.Tasks {
			if strings.HasPrefix(task.Result, "panic:") {
				return []string{"task-panicked"}
			}
		}
		return nil
	}
	t.Cleanup(func() { fuzzFailing = nil })
	out := filepath.Join(t.TempDir(), "fz")
	code, stdout, errOut := runCLI("fuzz", "--seeds", "300", "--out", out, "--shrink-budget", "500", "--strategy", "pct", "--pct-depth", "2")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, errOut)
	}
	args := printedCommand(t, stdout, "replay")
	if !strings.Contains(strings.Join(args, " "), "--strategy pct --pct-depth 2") {
		t.Fatalf("the printed command %v lacks the strategy", args)
	}
	code, runOut, runErr := runCLI(args...)
	if code != 0 || !strings.Contains(runOut, "panic:") {
		t.Fatalf("%v: exit %d, no panicking task\n%s%s", args, code, runOut, runErr)
	}
}
