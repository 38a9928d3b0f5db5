package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunBundledPasses(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "3", "--workers", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Tasks", "Nurseries", "Workers", "pass  invariant no-orphan", "seed=3",
		"reproduce: cbcsim run ../../scenarios/fail_fast.toml --seed 3 --workers 4 --victim random"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRunWrongExpectationExits1(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.toml", `version = 1
[task.main]
ops = [ { return = 5 } ]
[expect]
value = 6
`)
	code, out, errOut := runCLI("run", p, "--seed", "1", "--workers", "1")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "FAIL  expect    expect.value") || !strings.Contains(errOut, "expect.value: want ok:6, got ok:5") {
		t.Fatalf("the failed expectation is not named with what was observed:\n%s\n%s", out, errOut)
	}
}

func TestRunBadInputExits2(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, src, want string }{
		{"bad-version", "version = 3\n[task.main]\nops = []\n", "version"},
		{"unknown-task", "version = 1\n[task.main]\nops = [ { nursery = \"n\", body = [ { spawn = \"nope\" } ] } ]\n", "task.main.ops[0].body[0]"},
		{"two-ops", "version = 1\n[task.main]\nops = [ { log = \"a\", yield = true } ]\n", "task.main.ops[0]"},
		{"malformed", "version = 1\n[task.main\n", "bad"},
	}
	for _, c := range cases {
		p := writeFile(t, c.name+".toml", c.src)
		code, _, errOut := runCLI("run", p)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, errOut)
			continue
		}
		if !strings.Contains(errOut, p) {
			t.Errorf("%s: message does not name the file: %s", c.name, errOut)
		}
		if c.want != "bad" && !strings.Contains(errOut, c.want) {
			t.Errorf("%s: message lacks %q: %s", c.name, c.want, errOut)
		}
		if strings.Contains(errOut, "goroutine ") {
			t.Errorf("%s: stack trace printed: %s", c.name, errOut)
		}
	}
	if code, _, _ := runCLI("run", "/nonexistent/x.toml"); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("run", "../../scenarios/fail_fast.toml", "--workers", "0x"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, _ := runCLI("run", "../../scenarios/fail_fast.toml", "--workers", "300"); code != 2 {
		t.Errorf("workers out of range: exit %d, want 2", code)
	}
}

func TestRunTraceIsByteIdentical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trace"), filepath.Join(dir, "b.trace")
	for _, p := range []string{a, b} {
		if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "9", "--workers", "4", "--trace", p); code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatalf("traces differ or are empty (%d, %d bytes)", len(da), len(db))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestRunJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "1", "--json")
	if code != 0 || !strings.Contains(out, `"outcome": "failed"`) || !strings.Contains(out, `"replay": "cbcsim run`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good := "../../scenarios/fail_fast.toml"
	bad := writeFile(t, "bad.toml", "version = 1\n")
	if code, _, errOut := runCLI("validate", good); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut := runCLI("validate", good, bad)
	if code != 2 || !strings.Contains(errOut, bad) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestOutOfRangeFlagsExit2: a flag given a value outside its range is bad
// input with a message, never silently its default.
func TestOutOfRangeFlagsExit2(t *testing.T) {
	t.Parallel()
	sc := "../../scenarios/fail_fast.toml"
	tr := filepath.Join(t.TempDir(), "t.trace")
	if code, _, errOut := runCLI("run", sc, "--seed", "1", "--trace", tr); code != 0 {
		t.Fatalf("writing a trace: exit %d: %s", code, errOut)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", sc, "--max-steps", "-1"}, "--max-steps must be at least 1, not -1"},
		{[]string{"run", sc, "--max-steps", "0"}, "--max-steps must be at least 1, not 0"},
		{[]string{"run", sc, "--workers", "0"}, "--workers 0 is out of range 1..256"},
		{[]string{"run", sc, "--workers", "257"}, "--workers 257 is out of range 1..256"},
		{[]string{"run", sc, "--victim", ""}, "--victim is empty"},
		{[]string{"replay", tr, "--context", "-1"}, "--context must be 0 or more, not -1"},
		{[]string{"diff", tr, tr, "--context", "-1"}, "--context must be 0 or more, not -1"},
		{[]string{"check", sc, "--seeds", "9223372036854775807", "--workers", "1"}, "more than"},
		{[]string{"check", sc, "--seeds", "-1"}, "--seeds must be at least 1"},
		{[]string{"fuzz", "--seeds", "-5"}, "--seeds must be at least 1"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q\n%s", c.args, code, errOut, c.want, out)
		}
	}
}
