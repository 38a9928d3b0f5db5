package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shellWords splits a command line printed by sim.Config.Command the way a
// POSIX shell would: blanks separate words, single quotes quote, and a
// backslash outside quotes escapes the next character, which is how
// ShellQuote writes a quote inside a quoted word.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// printedCommand finds the first "LABEL: cbcsim ..." line in out and
// returns its arguments after "cbcsim".
func printedCommand(t *testing.T, out, label string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)` + label + `:\s+(cbcsim .*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q command in:\n%s", label, out)
	}
	return shellWords(t, m[1])[1:]
}

// TestReproCommandReproducesRun: the command run prints, executed, gives
// the same trace byte for byte, for a run whose every flag differs from
// the scenario's and whose path needs quoting, under the random walk and
// under pct (whose strategy and depth the command must carry).
func TestReproCommandReproducesRun(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../scenarios/fail_fast.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		strategy []string
	}{{"random", nil}, {"pct", []string{"--strategy", "pct", "--pct-depth", "4"}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "it's a dir")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			sc := filepath.Join(dir, "fail fast.toml")
			if err := os.WriteFile(sc, src, 0o644); err != nil {
				t.Fatal(err)
			}
			first, second := filepath.Join(dir, "a.trace"), filepath.Join(dir, "b.trace")
			args := append([]string{"run", sc, "--seed", "11", "--workers", "3", "--victim", "least_loaded", "--max-steps", "99999", "--trace", first}, tc.strategy...)
			code, out, errOut := runCLI(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			again := printedCommand(t, out, "reproduce")
			if want := strings.Join(tc.strategy, " "); !strings.Contains(strings.Join(again, " "), want) {
				t.Fatalf("the printed command %v lacks %q", again, want)
			}
			again = append(again, "--trace", second)
			if code, out2, errOut := runCLI(again...); code != 0 {
				t.Fatalf("%v: exit %d: %s%s", again, code, out2, errOut)
			}
			a, _ := os.ReadFile(first)
			b, _ := os.ReadFile(second)
			if len(a) == 0 || string(a) != string(b) {
				t.Fatalf("the printed command %v gave a different trace", again)
			}
		})
	}
}

// TestReproCommandReproducesCheckFailure: the command check prints for a
// failure, executed, fails the same way.
func TestReproCommandReproducesCheckFailure(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.toml", checkWrongSrc)
	code, out, errOut := runCLI("check", p, "--seeds", "2", "--seed-start", "4", "--workers", "3", "--out", "")
	if code != 1 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	args := printedCommand(t, out, "reproduce")
	code, runOut, runErr := runCLI(args...)
	if code != 1 || !strings.Contains(runErr, "expect.value: want ok:6, got ok:5") || !strings.Contains(runOut, "seed=4") {
		t.Fatalf("%v: exit %d: %s%s", args, code, runOut, runErr)
	}
}

// TestReproCommandReproducesCheckFailurePCT: under pct, check's printed
// command names the strategy and its depth, and reproduces the failure.
func TestReproCommandReproducesCheckFailurePCT(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "wrong.toml", checkWrongSrc)
	code, out, errOut := runCLI("check", p, "--seeds", "2", "--seed-start", "4", "--workers", "3", "--out", "", "--strategy", "pct", "--pct-depth", "2")
	if code != 1 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	args := printedCommand(t, out, "reproduce")
	if !strings.Contains(strings.Join(args, " "), "--strategy pct --pct-depth 2") {
		t.Fatalf("the printed command %v lacks the strategy", args)
	}
	code, runOut, runErr := runCLI(args...)
	if code != 1 || !strings.Contains(runErr, "expect.value: want ok:6, got ok:5") || !strings.Contains(runOut, "seed=4") {
		t.Fatalf("%v: exit %d: %s%s", args, code, runOut, runErr)
	}
}

// Replaying a failing trace reproduces it and reports it: exit 1, the
// failed check named with its detail, each stuck task with the channel it
// waits on; --tables adds the tables.
func TestReplayFailingTraceExits1(t *testing.T) {
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "lo.trace")
	if code, out, errOut := runCLI("run", "../../scenarios/bugs/lock_order.toml", "--seed", "2", "--trace", tr); code != 1 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI("replay", tr, "--tables")
	if code != 1 {
		t.Fatalf("replay: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"identical: ", "checks: 2 of 17 FAIL, as when it was recorded", "FAIL  expect    expect.outcome",
		"want ok, got deadlock", "a_to_b (t2) waits to receive on channel lock_b", "could wake it: b_to_a (t3, holds lock_b)",
		"wait-for cycle: a_to_b -> b_to_a -> a_to_b", "Tasks", "Workers",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "the run fails its checks") {
		t.Errorf("stderr: %q", errOut)
	}
}

// run --json carries the waits of a deadlocked run, by task name, and the
// wait-for cycle.
func TestRunJSONWaits(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("run", "../../scenarios/bugs/lock_order.toml", "--seed", "2", "--json")
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`"name": "a_to_b"`, `"kind": "recv"`, `"object": "lock_b"`, `"why": "holds lock_b"`,
		`"wait_cycle": [`, `"at": "task.a_to_b.ops[1]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}
