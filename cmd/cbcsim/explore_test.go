package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestExploreExhaustiveExits0(t *testing.T) {
	t.Parallel()
	// channel_rendezvous: 23 steps on 2 workers.
	code, out, errOut := runCLI("explore", "../../scenarios/channel_rendezvous.toml", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`exhaustive up to 2 preemptions: (\d+) schedules, all passed`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no exhaustive verdict with a schedule count:\n%s", out)
	}
	if !strings.Contains(out, "schedules by preemptions: 0:") || !strings.Contains(out, "ok main=ok") {
		t.Errorf("no per-bound counts or outcomes:\n%s", out)
	}
}

func TestExploreStoppedSaysNotExhaustive(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("explore", "../../scenarios/channel_buffered.toml", "--workers", "2", "--max-schedules", "5")
	if code != 0 || !strings.Contains(out, "stopped at 5 schedules, not exhaustive") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// A failing schedule: exit 1, a repro directory whose README names the
// command, and whose run.trace replays with --schedule (and is refused
// without it, with exit 2 and a sentence).
func TestExploreFailureWritesRepro(t *testing.T) {
	t.Parallel()
	outDir := filepath.Join(t.TempDir(), "eo")
	code, out, errOut := runCLI("explore", "../../scenarios/bugs/run_ahead_fail_fast.toml", "--workers", "2", "--out", outDir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"FAIL at schedule", "expect.nursery.n.results", "shrunk: ", "repro:  " + outDir} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	dir := filepath.Join(outDir, "run_ahead_fail_fast-w2")
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "run.trace")
	if !strings.Contains(string(readme), "cbcsim replay --schedule "+trace) {
		t.Errorf("README lacks the replay command:\n%s", readme)
	}
	if code, out, errOut := runCLI("replay", "--schedule", trace); code != 1 || !strings.Contains(out, "identical") || !strings.Contains(out, "expect.nursery.n.results") {
		t.Fatalf("replay --schedule: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI("replay", trace); code != 2 || !strings.Contains(errOut, "--schedule") {
		t.Fatalf("plain replay of an explore trace: exit %d, %s", code, errOut)
	}
}

func TestExploreBadInputExits2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"explore", "nope.toml"},
		{"explore", "../../scenarios/basic_completion.toml", "--preemptions", "-1"},
		{"explore", "../../scenarios/basic_completion.toml", "--max-schedules", "0"},
		{"explore", "../../scenarios/basic_completion.toml", "--workers", "300"},
		{"explore", "../../scenarios/basic_completion.toml", "--jobs", "0"},
	} {
		if code, out, errOut := runCLI(args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

func TestStrategyFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := filepath.Join(dir, "p.trace")
	code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "3", "--workers", "2", "--strategy", "pct", "--trace", tr)
	if code != 0 || !strings.Contains(out, "--strategy pct --pct-depth 3") {
		t.Fatalf("exit %d, the repro command lacks the strategy:\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI("replay", tr); code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI("replay", tr, "--strategy", "random"); code != 2 || !strings.Contains(errOut, "recorded with strategy pct") {
		t.Fatalf("replay --strategy random of a pct trace: exit %d %s", code, errOut)
	}
	for _, args := range [][]string{
		{"run", "../../scenarios/fail_fast.toml", "--strategy", "dfs"},
		{"run", "../../scenarios/fail_fast.toml", "--pct-depth", "2"},
		{"check", "../../scenarios/fail_fast.toml", "--seeds", "1", "--strategy", "pct", "--pct-depth", "0", "--real"},
		{"fuzz", "--seeds", "1", "--strategy", "explore"},
	} {
		if code, out, errOut := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s%s", args, code, out, errOut)
		}
	}
}

// check --strategy pct finds a run-ahead bug and writes the shrunk
// schedule beside the failing run's trace.
func TestCheckPCTShrinksSchedule(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "repro")
	code, stdout, errOut := runCLI("check", "../../scenarios/bugs/run_ahead_order.toml", "--seeds", "100", "--workers", "2", "--strategy", "pct", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, errOut)
	}
	m := regexp.MustCompile(`schedule shrunk: \d+ preemptions?, \d+ steps -> 0 preemptions, \d+ steps`).FindString(stdout)
	if m == "" {
		t.Fatalf("no shrunk schedule in:\n%s", stdout)
	}
	traces, _ := filepath.Glob(filepath.Join(out, "*", "shrunk.trace"))
	if len(traces) != 1 {
		t.Fatalf("shrunk traces: %v", traces)
	}
	// It reproduces the failure: exit 1, identical, the check named.
	if code, o, e := runCLI("replay", "--schedule", traces[0]); code != 1 || !strings.Contains(o, "identical") || !strings.Contains(o, "FAIL") {
		t.Fatalf("replay --schedule %s: exit %d\n%s%s", traces[0], code, o, e)
	}
}

// The search, every line it prints and every file of its repro are the
// same for any --jobs: the schedules run in batches whose results are
// folded in job order. The time and rate go to stderr.
func TestExploreJobsIdentical(t *testing.T) {
	t.Parallel()
	bugs, _ := filepath.Glob("../../scenarios/bugs/*.toml")
	cases := [][]string{
		{"../../scenarios/channel_rendezvous.toml", "--workers", "2,3"},
		{"../../scenarios/channel_buffered.toml", "--workers", "2", "--max-schedules", "150"},
	}
	for _, b := range bugs {
		cases = append(cases, []string{b, "--workers", "2"})
	}
	for _, c := range cases {
		var outs [2]string
		var dirs [2]string
		for i, jobs := range []string{"1", "2"} {
			dirs[i] = filepath.Join(t.TempDir(), "eo")
			code, out, errOut := runCLI(append([]string{"explore", "--jobs", jobs, "--out", dirs[i]}, c...)...)
			if code == 2 {
				t.Fatalf("%v --jobs %s: exit 2\n%s", c, jobs, errOut)
			}
			outs[i] = strings.ReplaceAll(out, dirs[i], "OUT")
		}
		if outs[0] != outs[1] {
			t.Errorf("%v: --jobs 1 and 2 print differently:\n%s\n----\n%s", c, outs[0], outs[1])
		}
		files, _ := filepath.Glob(filepath.Join(dirs[0], "*", "*"))
		if strings.Contains(c[0], "bugs/") && !strings.Contains(c[0], "fixed") && len(files) == 0 {
			t.Errorf("%v: no repro written", c)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(dirs[0], f)
			a, errA := os.ReadFile(f)
			b, errB := os.ReadFile(filepath.Join(dirs[1], rel))
			if errA != nil || errB != nil || strings.ReplaceAll(string(a), dirs[0], "OUT") != strings.ReplaceAll(string(b), dirs[1], "OUT") {
				t.Errorf("%v: repro file %s differs between --jobs 1 and 2 (%v, %v)", c, rel, errA, errB)
			}
		}
	}
}

func TestExploreRefusesShard(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI("explore", "../../scenarios/basic_completion.toml", "--shard", "1/2")
	if code != 2 || !strings.Contains(errOut, "explore cannot be sharded") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
