package sim

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// recorded is the trace of fail_fast.toml at seed 3 on 4 workers, as lines.
func recorded(t *testing.T) []string {
	t.Helper()
	sc := loadFile(t, "../scenarios/fail_fast.toml")
	_, tr := runOnce(t, sc, Options{Seed: 3, HasSeed: true, Workers: 4})
	return strings.SplitAfter(tr, "\n")
}

// lineOf is the 1-based number of the first line starting with prefix.
func lineOf(t *testing.T, lines []string, prefix string) int {
	t.Helper()
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

// Every error in a trace's header names the line of the value at fault,
// and an error in the embedded scenario the trace line that holds it.
func TestReplayErrorsHaveLines(t *testing.T) {
	t.Parallel()
	lines := recorded(t)
	for _, c := range []struct {
		prefix, from, to string
		want             string // a regexp; LINE stands for the edited line
	}{
		{"# seed:", "# seed: 3", "# seed: x", `^x\.trace: line LINE: header: missing or bad "seed"`},
		{"# victim:", "random", "bogus", `^x\.trace: line LINE: header: unknown victim strategy "bogus"`},
		{"# workers:", "4", "0", `^x\.trace: line LINE: header: workers 0 out of range`},
		{"# profile:", "service", "cluster", `^x\.trace: line LINE: header: profile cluster disagrees`},
		{"# yield_interval:", "1024", "5", `^x\.trace: line LINE: header: yield_interval 5 disagrees`},
		{"# max_steps:", "1000000", "0", `^x\.trace: line LINE: header: max_steps must be >= 1`},
		{"# run_at:", "changed", "often", `^x\.trace: line LINE: header: unknown run_at often \(want changed, or no run_at line\)`},
		{"# run_at:", "changed", "7", `^x\.trace: line LINE: header: unknown run_at 7 `},
		{"# scenario-sha256:", "sha256: d", "sha256: e", `^x\.trace: line LINE: header: scenario-sha256 ea34`},
		{"#| [task.main]", "task.main", "task.mian", `^x\.trace:LINE:5: task\.main: missing: .* \(in the embedded scenario\)`},
		{"#| workers = 4", "= 4", `= "4"`, `^x\.trace:LINE:4: scheduler\.workers: must be an integer`},
	} {
		edited := append([]string(nil), lines...)
		n := lineOf(t, edited, c.prefix)
		edited[n-1] = strings.Replace(edited[n-1], c.from, c.to, 1)
		_, err := Replay("x.trace", []byte(strings.Join(edited, "")), false, 3)
		want := regexp.MustCompile(strings.ReplaceAll(c.want, "LINE", fmt.Sprint(n)))
		if err == nil || !want.MatchString(err.Error()) {
			t.Errorf("%s: got %v, want %s", c.prefix, err, want)
		}
	}
}

// A gap in the steps is named at the event after it, and a step number far
// ahead allocates nothing for the steps it skips.
func TestReplayScheduleStepGap(t *testing.T) {
	t.Parallel()
	lines := recorded(t)
	first := lineOf(t, lines, "20 ")
	for i := first - 1; i < len(lines); i++ {
		if f := strings.Fields(lines[i]); len(f) > 0 {
			var step uint64
			fmt.Sscan(f[0], &step)
			lines[i] = strings.Replace(lines[i], f[0], fmt.Sprint(step+1_000_000_000_000), 1)
		}
	}
	_, err := Replay("x.trace", []byte(strings.Join(lines, "")), true, 3)
	want := fmt.Sprintf("x.trace: line %d: an event at step 1000000000020, but step 20 has no events", first)
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// A recorded decision that no longer applies is the whole report: the run
// stopped there, so there is no byte divergence to show (it once also
// claimed one at line 1 against "<end of file>").
func TestReplayDeletedStealFail(t *testing.T) {
	t.Parallel()
	lines := recorded(t)
	n := 0
	for i, l := range lines {
		if strings.Contains(l, " steal-fail ") {
			n = i + 1
			break
		}
	}
	if n == 0 {
		t.Fatal("no steal-fail line")
	}
	edited := append(append([]string(nil), lines[:n-1]...), lines[n:]...)
	rep, err := Replay("x.trace", []byte(strings.Join(edited, "")), true, 3)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.Write(&b, "x.trace")
	if rep.Identical || !strings.Contains(rep.Decision, fmt.Sprintf("(line %d)", n)) || strings.Contains(b.String(), "divergence") {
		t.Fatalf("report for a deleted line %d:\n%s", n, b.String())
	}
}

// A scenario without a `name` runs under its file's name, which the trace
// records in its header but does not embed: replay takes it from there
// (it once named the scenario after the trace and diverged at line 2).
func TestReplayNamelessScenario(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../scenarios/fail_fast.toml")
	src := regexp.MustCompile(`(?m)^name = .*\n`).ReplaceAllString(string(sc.Source), "")
	nameless, err := scenario.Parse("nameless.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, tr := runOnce(t, nameless, Options{Seed: 3, HasSeed: true, Workers: 2})
	for _, schedule := range []bool{false, true} {
		rep, err := Replay("x.trace", []byte(tr), schedule, 3)
		if err != nil || !rep.Identical {
			var b bytes.Buffer
			if rep != nil {
				rep.Write(&b, "x.trace")
			}
			t.Fatalf("schedule %v: %v\n%s", schedule, err, b.String())
		}
	}
}

// A decision edited into another that still applies (another worker acts
// at one step) is reported at that step's line, the first divergence; the
// decision that fails later, as a consequence, comes after it (issue 28:
// it once named only that later step).
func TestReplayEditedDecision(t *testing.T) {
	lines := recorded(t)
	found := 0
	for i := lineOf(t, lines, "20 ") - 1; i < len(lines) && found < 3; i++ {
		f := strings.Fields(lines[i])
		if len(f) < 4 || f[3] != "run" || !strings.HasPrefix(f[2], "w") {
			continue
		}
		other := "w0"
		if f[2] == "w0" {
			other = "w1"
		}
		edited := append([]string(nil), lines...)
		edited[i] = strings.Replace(lines[i], " "+f[2]+" ", " "+other+" ", 1)
		rep, err := Replay("x.trace", []byte(strings.Join(edited, "")), true, 3)
		if err != nil || rep.Identical {
			continue // not a one-event step, or the same run either way
		}
		var b bytes.Buffer
		rep.Write(&b, "x.trace")
		if rep.Line == 0 && rep.Decision != "" && !strings.Contains(rep.Decision, fmt.Sprintf("step %s ", f[0])) {
			t.Fatalf("edit at line %d (step %s): the report names neither it nor its step:\n%s", i+1, f[0], b.String())
		}
		if rep.Line != 0 && rep.Line != i+1 {
			t.Fatalf("edit at line %d: first divergence reported at line %d:\n%s", i+1, rep.Line, b.String())
		}
		found++
	}
	if found == 0 {
		t.Fatal("no edited decision that still applies")
	}
}
