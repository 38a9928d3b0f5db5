package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/testkit"
)

const checkWrongSrc = `version = 1
name = "wrong value"
[task.main]
ops = [ { return = 5 } ]
[expect]
value = 6
`

func TestCheckBundledPasses(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "repro")
	code, stdout, stderr := runCLI("check", "../../scenarios/fail_fast.toml", "../../scenarios/lifo_cleanup.toml",
		"--seeds", "3", "--workers", "1,2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"seeds 1..3 × workers 1,2, seeded portfolio (seed mod 5: random, pct 2, pct 3, pct 5, pct 8) mode: 12 runs",
		`scenario "fail-fast cancels siblings" (../../scenarios/fail_fast.toml)`,
		"WORKERS", "FIRST FAILING SEED", "│ all", "ok: all 12 runs passed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a passing check created %s (%v)", out, err)
	}
}

func TestCheckExpandsDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := "version = 1\n[task.main]\nops = [ { return = 1 } ]\n"
	for _, name := range []string{"b.toml", "a.toml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(ok), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a scenario"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("check", dir, "--seeds", "2", "--workers", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a, b := strings.Index(stdout, `scenario "a"`), strings.Index(stdout, `scenario "b"`)
	if !strings.Contains(stdout, "check: 2 scenario(s)") || a < 0 || b < a {
		t.Fatalf("want a.toml then b.toml:\n%s", stdout)
	}
}

func TestCheckWrongExpectationExits1(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.toml", checkWrongSrc)
	out := filepath.Join(t.TempDir(), "repro")
	code, stdout, stderr := runCLI("check", p, "--seeds", "3", "--seed-start", "4", "--workers", "1,4", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"workers 1: 3 of 3 runs failed; first failing seed 4",
		"workers 4: 3 of 3 runs failed; first failing seed 4",
		"expect.value: want ok:6, got ok:5",
		"reproduce: cbcsim run " + p + " --seed 4 --workers 1 --victim random",
		"replay:    cbcsim replay " + filepath.Join(out, "wrong-seed4-w1", "run.trace"),
		"also seeds 5, 6",
		"FAIL: 6 of 6 runs failed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "6 of 6 runs failed, 0 nondeterministic") {
		t.Errorf("stderr: %s", stderr)
	}
	for _, w := range []int{1, 4} {
		dir := filepath.Join(out, fmt.Sprintf("wrong-seed4-w%d", w))
		readme := testkit.ReproDir(t, dir, checkWrongSrc, 4, w)
		for _, want := range []string{"seed:     4", fmt.Sprintf("workers:  %d", w), "expect.value: want ok:6, got ok:5",
			fmt.Sprintf("cbcsim run %s --seed 4 --workers %d --victim random", p, w), "cbcsim replay " + filepath.Join(dir, "run.trace")} {
			if !strings.Contains(string(readme), want) {
				t.Errorf("%s/README.txt lacks %q:\n%s", dir, want, readme)
			}
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 2 {
		t.Errorf("%d repro directories, want 2", len(entries))
	}
}

func TestCheckReportSameForAnyJobs(t *testing.T) {
	t.Parallel()
	race := writeFile(t, "race.toml", testkit.FirstErrorRace)
	wrong := writeFile(t, "wrong.toml", checkWrongSrc)
	out := filepath.Join(t.TempDir(), "repro")
	var reports []string
	for _, jobs := range []string{"1", "4"} {
		code, stdout, stderr := runCLI("check", race, "../../scenarios/fail_fast.toml", wrong, "--seeds", "5", "--jobs", jobs, "--out", out)
		if code != 1 {
			t.Fatalf("--jobs %s: exit %d, want 1\n%s\n%s", jobs, code, stdout, stderr)
		}
		reports = append(reports, stdout)
	}
	if reports[0] != reports[1] {
		t.Fatalf("--jobs 1 and --jobs 4 differ:\n%s\n----\n%s", reports[0], reports[1])
	}
}

func TestCheckRealMode(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI("check", "../../scenarios/basic_completion.toml", "--seeds", "2", "--workers", "1,2", "--real")
	if code != 0 || !strings.Contains(stdout, "real mode: 4 runs") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCheckRealLean: --lean runs real mode as a Go program's scheduler;
// without --real it is bad input, for check and for run.
func TestCheckRealLean(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI("check", "../../scenarios/fail_fast.toml", "--seeds", "2", "--workers", "1,2", "--real", "--lean")
	if code != 0 || !strings.Contains(stdout, "real lean mode: 4 runs") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("run", "../../scenarios/fail_fast.toml", "--real", "--lean", "--workers", "2")
	if code != 0 || !strings.Contains(stdout, "--real --lean") {
		t.Fatalf("run --real --lean: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, cmd := range []string{"check", "run"} {
		args := []string{cmd, "../../scenarios/fail_fast.toml", "--lean"}
		if cmd == "check" {
			args = append(args, "--seeds", "1")
		}
		code, _, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, "--lean needs --real") {
			t.Fatalf("%s --lean without --real: exit %d, %q", cmd, code, stderr)
		}
	}
}

func TestCheckBadInputExits2(t *testing.T) {
	t.Parallel()
	good := "../../scenarios/fail_fast.toml"
	malformed := writeFile(t, "malformed.toml", "version = 1\n[task.main\n")
	unknownTask := writeFile(t, "unknown.toml", "version = 1\n[task.main]\nops = [ { nursery = \"n\", body = [ { spawn = \"nope\" } ] } ]\n")
	empty := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{good}, "--seeds is required"},
		{[]string{good, "--seeds", "0"}, "--seeds must be at least 1, not 0"},
		{[]string{good, "--seeds", "x"}, "--seeds"},
		{[]string{good, "--seeds", "2", "--workers", "1,x"}, `--workers: "x" is not a number`},
		{[]string{good, "--seeds", "2", "--workers", "1,,2"}, "empty entry"},
		{[]string{good, "--seeds", "2", "--workers", "0"}, "--workers: 0 is out of range 1..256"},
		{[]string{good, "--seeds", "2", "--workers", "300"}, "--workers: 300 is out of range 1..256"},
		{[]string{good, "--seeds", "2", "--workers", "2,4,2"}, "--workers: 2 is listed twice"},
		{[]string{good, "--seeds", "2", "--jobs", "0"}, "--jobs must be at least 1"},
		{[]string{good, "--seeds", "2", "--resample", "-1"}, "--resample must be 0 or more"},
		{[]string{good, "--seeds", "2", "--real", "--resample", "3"}, "--resample and --real cannot be combined"},
		{[]string{good, "--seeds", "2", "--seed-start", "9223372036854775807"}, "go past the largest seed"},
		{[]string{good, "--seeds", "9223372036854775807", "--workers", "1"}, "is more than 1099511627776 runs"},
		{[]string{good, "--seeds", "2", "--shard", "1/0"}, `the count "0" is not a number in 1..`},
		{[]string{good, "--seeds", "2", "--shard", "2"}, "want K/N"},
		{[]string{malformed, "--seeds", "2"}, malformed + ":2"},
		{[]string{good, unknownTask, "--seeds", "2"}, unknownTask},
		{[]string{unknownTask, "--seeds", "2"}, "task.main.ops[0].body[0]"},
		{[]string{empty, "--seeds", "2"}, "the directory has no *.toml or *.trace files"},
		{[]string{"/nonexistent/x.toml", "--seeds", "2"}, "/nonexistent/x.toml"},
		{[]string{"--seeds", "2"}, "arg"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(append([]string{"check"}, c.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s%s", c.args, code, stdout, stderr)
			continue
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: message lacks %q: %s", c.args, c.want, stderr)
		}
		if strings.Contains(stderr, "goroutine ") {
			t.Errorf("%v: stack trace printed: %s", c.args, stderr)
		}
	}
	// Every bad file is named, not only the first.
	code, _, stderr := runCLI("check", malformed, unknownTask, "--seeds", "1")
	if code != 2 || !strings.Contains(stderr, malformed) || !strings.Contains(stderr, unknownTask) || !strings.Contains(stderr, "2 of 2 file(s) invalid") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// The repro directories a failing check writes are replayed by `check
// OUT` (one level deep) and `check OUT/DIR`, each by its run.trace alone:
// no --seeds, the scenario.toml beside it not run again.
func TestCheckReplaysReproDirectories(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.toml", checkWrongSrc)
	out := filepath.Join(t.TempDir(), "repro")
	if code, stdout, stderr := runCLI("check", p, "--seeds", "1", "--workers", "1,4", "--out", out); code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	w1, w4 := filepath.Join(out, "wrong-seed1-w1", "run.trace"), filepath.Join(out, "wrong-seed1-w4", "run.trace")
	for _, tc := range []struct {
		arg  string
		want []string
	}{
		{out, []string{"check: 2 recorded run(s), no seeded runs", "FAIL " + w1, "FAIL " + w4, "2 of 2 recorded run(s)"}},
		{filepath.Dir(w4), []string{"check: 1 recorded run(s), no seeded runs", "FAIL " + w4, "1 of 1 recorded run(s)"}},
	} {
		code, stdout, stderr := runCLI("check", tc.arg, "--out", "")
		if code != 1 {
			t.Fatalf("check %s: exit %d, want 1\n%s\n%s", tc.arg, code, stdout, stderr)
		}
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("check %s: output lacks %q:\n%s", tc.arg, want, stdout)
			}
		}
		if strings.Contains(stdout, "scenario.toml") {
			t.Errorf("check %s ran a repro directory's scenario.toml:\n%s", tc.arg, stdout)
		}
	}
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("check", empty, "--seeds", "1"); code != 2 || !strings.Contains(stderr, "no repro directories") {
		t.Errorf("check of a directory with nothing to run: exit %d, %s", code, stderr)
	}
}

// --real-timeout bounds real mode only and must be positive; a real run
// stopped by it exits 1 at the limit.
func TestRealTimeoutFlag(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "sleep.toml", "version = 1\n[task.main]\nops = [ { sleep = 9223372036854775807 } ]\n")
	for _, args := range [][]string{
		{"run", p, "--real-timeout", "1s"},
		{"run", p, "--real", "--real-timeout", "0s"},
		{"check", p, "--seeds", "1", "--real-timeout", "-1s"},
	} {
		if code, _, stderr := runCLI(args...); code != 2 || !strings.Contains(stderr, "--real-timeout") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	code, stdout, _ := runCLI("run", p, "--real", "--workers", "2", "--real-timeout", "200ms")
	if code != 1 || !strings.Contains(stdout, "outcome=livelock") || !strings.Contains(stdout, "wall-time limit of 200ms") {
		t.Errorf("run --real: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("check", p, "--seeds", "1", "--workers", "2", "--real", "--real-timeout", "200ms", "--out", "")
	if code != 1 || !strings.Contains(stdout, "wall-time limit of 200ms") || !strings.Contains(stdout, "--real-timeout 200ms") {
		t.Errorf("check --real: exit %d\n%s", code, stdout)
	}
}

// --quiet prints what failed and the summary; --report writes the grid.
func TestCheckQuietAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.toml")
	if err := os.WriteFile(wrong, []byte(checkWrongSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("check", "../../scenarios/fail_fast.toml", "--seeds", "3", "--workers", "1,2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Count(stdout, "\n"); lines != 3 || strings.Contains(stdout, "WORKERS") {
		t.Errorf("a passing --quiet check printed %d lines, want 3:\n%s", lines, stdout)
	}
	page := filepath.Join(dir, "check.html")
	code, stdout, _ = runCLI("check", "../../scenarios/fail_fast.toml", wrong, "--seeds", "2", "--workers", "1,2",
		"--quiet", "--report", page, "--out", filepath.Join(dir, "repro"))
	if code != 1 || strings.Contains(stdout, "WORKERS") || !strings.Contains(stdout, "expect.value: want ok:6, got ok:5") {
		t.Fatalf("exit %d, want 1 with the failure and no tables:\n%s", code, stdout)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<td class="pass" title="2 runs passed">pass 2</td>`, "FAIL 2 of 2 (seeds 1, 2)", "1 workers", "2 workers", `class="lane lane-task"`,
		"<title>seed 2 failed</title>"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("check's page lacks %q", s)
		}
	}
	if code, _, _ := runCLI("check", wrong, "--seeds", "1", "--report", wrong); code != 2 {
		t.Errorf("--report over an input: exit %d, want 2", code)
	}
}

// fuzz --corpus makes the corpus even when it finds nothing, and check
// of an empty corpus passes: the CI steps fuzz --corpus DIR; check DIR
// work on a project whose fuzzing finds nothing (docs/ci.md).
func TestCheckEmptyCorpus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "testdata", "corpus")
	if code, stdout, stderr := runCLI("fuzz", "--seeds", "3", "--workers", "1", "--out", filepath.Join(dir, "out"), "--corpus", corpus); code != 0 {
		t.Fatalf("fuzz: exit %d\n%s%s", code, stdout, stderr)
	}
	js, junit := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, stdout, stderr := runCLI("check", corpus, "--json", js, "--junit", junit)
	if code != 0 || !strings.Contains(stdout, "holds no recorded runs yet") || !strings.Contains(stdout, "ok: no recorded runs to check") {
		t.Fatalf("check of the empty corpus: exit %d\n%s%s", code, stdout, stderr)
	}
	// CI finds its reports: no runs, a passing case for the corpus.
	data, err := os.ReadFile(js)
	if err != nil || !strings.Contains(string(data), `"runs": 0`) || !strings.Contains(string(data), `"name": "no recorded runs"`) {
		t.Errorf("the JSON report of an empty corpus (%v):\n%s", err, data)
	}
	data, err = os.ReadFile(junit)
	if err != nil || !strings.Contains(string(data), `tests="1" failures="0"`) {
		t.Errorf("the JUnit report of an empty corpus (%v):\n%s", err, data)
	}
	if code, _, _ := runCLI("check", corpus, "--seeds", "2"); code != 2 {
		t.Errorf("an empty directory with --seeds: exit %d, want 2 (no scenarios)", code)
	}
}
