package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diffData is where the trace package keeps real traces for diff tests.
const diffData = "../../trace/testdata/diff/"

// runTrace runs fail_fast.toml with the given seed and 4 workers and returns
// the path of its trace.
func runTrace(t *testing.T, dir string, seed string) string {
	t.Helper()
	p := filepath.Join(dir, "seed"+seed+".trace")
	if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", seed, "--workers", "4", "--trace", p); code != 0 {
		t.Fatalf("run --seed %s: exit %d\n%s%s", seed, code, out, errOut)
	}
	return p
}

func TestDiffIdenticalExits0(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := runTrace(t, dir, "5")
	b := filepath.Join(dir, "again.trace")
	if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "5", "--workers", "4", "--trace", b); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI("diff", a, b)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "identical: same header, same scenario source") || !strings.Contains(out, a) || !strings.Contains(out, b) {
		t.Fatalf("report does not say identical, naming both files:\n%s", out)
	}
}

func TestDiffSeedsExits1(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := runTrace(t, dir, "1"), runTrace(t, dir, "2")
	code, out, errOut := runCLI("diff", a, b)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"seed  1 in A, 2 in B", "verdict: SCHEDULE DIFF", "the driver chose", "first divergence:", "summary"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(errOut, "cbcsim: traces differ: schedule-diff: step ") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestDiffNondeterminismExits1(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("diff", diffData+"seed6.trace", diffData+"effect.trace", "--context", "0")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"verdict: NONDETERMINISM: same decisions, different effects", "A line 106: 20 20 w2 result task=4 result=cancelled:SiblingFailed",
		"B line 106: 20 20 w2 result task=4 result=ok:3"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// --context 0 shows only the divergent line on each side.
	if strings.Contains(out, "   105  ") || strings.Contains(out, "   107  ") {
		t.Errorf("--context 0 shows neighbouring lines:\n%s", out)
	}
	if !strings.Contains(errOut, "NONDETERMINISM") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestDiffBadInputExits2(t *testing.T) {
	t.Parallel()
	good := diffData + "seed6.trace"
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Line 71 of seed6.trace is "4 4 w2 run task=1"; a leading zero is not
	// canonical.
	const line, broken = "\n4 4 w2 run task=1\n", "\n4 4 w2 run task=01\n"
	if !strings.Contains(string(data), line) {
		t.Fatal("the line to break is not in the trace")
	}
	bad := writeFile(t, "bad.trace", strings.Replace(string(data), line, broken, 1))
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"parse error in B", []string{"diff", good, bad}, []string{bad, "line 71"}},
		{"parse error in A", []string{"diff", bad, good}, []string{bad, "line 71"}},
		{"missing file", []string{"diff", good, "/nonexistent/x.trace"}, []string{"/nonexistent/x.trace"}},
		{"one file", []string{"diff", good}, []string{"two trace files"}},
		{"three files", []string{"diff", good, good, good}, []string{"two trace files"}},
		{"negative context", []string{"diff", good, good, "--context", "-1"}, []string{"--context"}},
		{"bad context", []string{"diff", good, good, "--context", "x"}, []string{"context"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s%s", c.name, code, out, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: message lacks %q: %s", c.name, w, errOut)
			}
		}
		if strings.Contains(errOut, "goroutine ") {
			t.Errorf("%s: stack trace printed: %s", c.name, errOut)
		}
	}
}

// diff compares the format versions first: a version-1 trace against a
// version-3 one of the same seed says so, and the divergence that follows
// is put down to the versions, not to nondeterminism.
func TestDiffVersionsFirst(t *testing.T) {
	t.Parallel()
	v3 := filepath.Join(t.TempDir(), "v3.trace")
	if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "3", "--workers", "2", "--trace", v3); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ := runCLI("diff", "../../sim/testdata/v1/fail_fast.round1.seed3.w2.trace", v3)
	if code != 1 {
		t.Fatalf("diff: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"DIFFERENT FORMAT VERSIONS: A is version 1, B version 3", "CONFIG DIFF", "the format version (1 and 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NONDETERMINISM") {
		t.Errorf("diff calls a version difference nondeterminism:\n%s", out)
	}
}

// A version-3 trace recorded before the story events against one after
// them: a configuration difference, not nondeterminism.
func TestDiffStoryBeforeAfter(t *testing.T) {
	t.Parallel()
	v3 := filepath.Join(t.TempDir(), "v3.trace")
	if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "3", "--workers", "2", "--trace", v3); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ := runCLI("diff", "../../sim/testdata/v3plain/fail_fast.seed3.w2.trace", v3)
	if code != 1 || !strings.Contains(out, "CONFIG DIFF") || !strings.Contains(out, "the story events") || strings.Contains(out, "NONDETERMINISM") {
		t.Fatalf("diff: exit %d\n%s", code, out)
	}
}
