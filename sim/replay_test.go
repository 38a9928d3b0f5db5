package sim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/trace"
)

// TestReplayBundled: the trace of every bundled scenario replays
// identically, from the PRNG and from the recorded schedule.
func TestReplayBundled(t *testing.T) {
	t.Parallel()
	for _, sc := range bundled(t) {
		for _, workers := range []int{1, 4} {
			_, tr := runOnce(t, sc, Options{Seed: 11, HasSeed: true, Workers: workers})
			for _, schedule := range []bool{false, true} {
				rep, err := Replay("x.trace", []byte(tr), schedule, 3)
				if err != nil {
					t.Fatalf("%s: %v", sc.Name, err)
				}
				if !rep.Identical {
					var b bytes.Buffer
					rep.Write(&b, "x.trace")
					t.Fatalf("%s workers %d schedule %v: not identical\n%s", sc.Name, workers, schedule, b.String())
				}
			}
		}
	}
}

// TestReplayEditedLine: editing one event line makes replay report exactly
// that line.
func TestReplayEditedLine(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../scenarios/fail_fast.toml")
	_, tr := runOnce(t, sc, Options{Seed: 5, HasSeed: true, Workers: 4})
	lines := strings.Split(tr, "\n")
	edited := -1
	for i, l := range lines {
		if strings.Contains(l, " result task=") {
			lines[i] = strings.Replace(l, "result=", "result=panic:", 1)
			lines[i] = strings.SplitN(lines[i], "result=", 2)[0] + "result=panic:edited"
			edited = i + 1
			break
		}
	}
	rep, err := Replay("x.trace", []byte(strings.Join(lines, "\n")), false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Identical || rep.Line != edited || rep.Want != lines[edited-1] {
		t.Fatalf("replay reported line %d (%q), want %d", rep.Line, rep.Want, edited)
	}
	if len(rep.Context) != 2 {
		t.Fatalf("context = %q, want 2 lines", rep.Context)
	}
}

// TestReplayScheduleDecisionNotApplicable: a recorded actor that cannot act
// in the new run is named with its step and line.
func TestReplayScheduleDecisionNotApplicable(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../scenarios/fail_fast.toml")
	_, tr := runOnce(t, sc, Options{Seed: 5, HasSeed: true, Workers: 4})
	lines := strings.Split(tr, "\n")
	// Find the step where the root is first run and hand it to a worker
	// that has nothing to do then.
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 5 && f[3] == "run" && f[4] == "task=1" {
			actor := f[2]
			other := "w0"
			if actor == "w0" {
				other = "w1"
			}
			lines[i] = strings.Replace(l, " "+actor+" ", " "+other+" ", 1)
			rep, err := Replay("x.trace", []byte(strings.Join(lines, "\n")), true, 2)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Identical || !strings.Contains(rep.Decision, fmt.Sprintf("line %d", i+1)) {
				t.Fatalf("decision = %q, want one naming line %d", rep.Decision, i+1)
			}
			return
		}
	}
	t.Fatal("no run of task 1 in the trace")
}

func TestReplayBadTrace(t *testing.T) {
	t.Parallel()
	_, err := Replay("x.trace", []byte("# cbcsim-trace 1\n# source: 0\n# end\n"), false, 2)
	if err == nil || !strings.Contains(err.Error(), "x.trace") {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}

// TestReplayVersion1 replays traces of format version 1 byte for byte: one
// from the first round, one recorded before nursery opens said catch=true
// on a scenario that catches, and one recorded after.
func TestReplayVersion1(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtureTraces(t, "v1", 3) {
		rep, err := Replay(fx.file, fx.data, false, 2)
		if err != nil {
			t.Fatalf("%s: %v", fx.file, err)
		}
		if !rep.Identical || rep.Config.Mode != ModeSeededKeep {
			t.Errorf("%s: identical=%v mode=%v; line %d: want %q got %q", fx.file, rep.Identical, rep.Config.Mode, rep.Line, rep.Want, rep.Got)
		}
	}
	// Without the version-1 rules the same traces do not reproduce: the
	// test above cannot pass by accident.
	data, err := os.ReadFile("testdata/v1/collect_all.precatch.seed3.w2.trace")
	if err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Replace(data, []byte("# cbcsim-trace 1\n"), []byte("# cbcsim-trace 2\n"), 1)
	rep, err := Replay("v2", v2, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Identical {
		t.Error("a version-1 trace relabelled version 2 replays identically under the lean code path")
	}
}

// fixture is a recorded trace of testdata: its file and its bytes.
type fixture struct {
	file string
	data []byte
}

// fixtureTraces reads the traces in testdata/dir, at least min of them,
// in the order of their names.
func fixtureTraces(t *testing.T, dir string, min int) []fixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.trace"))
	if err != nil || len(files) < min {
		t.Fatalf("want the traces in testdata/%s: %v %v", dir, files, err)
	}
	var traces []fixture
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, fixture{f, data})
	}
	return traces
}

// replaysIn checks that the trace data of file f replays byte for byte
// in mode, from its seed and from its recorded schedule.
func replaysIn(t *testing.T, f string, data []byte, mode Mode) {
	t.Helper()
	for _, schedule := range []bool{false, true} {
		rep, err := Replay(f, data, schedule, 2)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !rep.Identical || rep.Config.Mode != mode {
			t.Errorf("%s (schedule %v): identical=%v mode=%v decision %q; line %d: want %q got %q", f, schedule, rep.Identical, rep.Config.Mode, rep.Decision, rep.Line, rep.Want, rep.Got)
		}
	}
}

// TestReplayVersion2: the version-2 traces in testdata/v2 (recorded before
// the policies were decisions, at 1, 2 and 4 workers, random and pct)
// replay byte for byte, from their seed and from their recorded schedule,
// in ModeSeededV2; relabelled version 3, the first of them that uses a
// policy does not, so the test cannot pass by accident.
func TestReplayVersion2(t *testing.T) {
	t.Parallel()
	differs := 0
	for _, fx := range fixtureTraces(t, "v2", 10) {
		replaysIn(t, fx.file, fx.data, ModeSeededV2)
		v3 := bytes.Replace(fx.data, []byte("# cbcsim-trace 2\n"), []byte("# cbcsim-trace 3\n"), 1)
		rep, err := Replay("v3", v3, false, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Identical {
			differs++
		}
	}
	if differs == 0 {
		t.Error("every version-2 trace relabelled version 3 replays identically: the policies change nothing")
	}
}

// A version-3 trace recorded before the story events (chan, at=, until=)
// replays byte for byte: replay sees none in it and leaves them off
// (ModeSeededPlain). The traces in testdata/v3plain were written by the
// tree before them.
func TestReplayVersion3BeforeStory(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtureTraces(t, "v3plain", 3) {
		replaysIn(t, fx.file, fx.data, ModeSeededPlain)
	}
}

// A version-3 trace recorded when every run line said its task's place
// replays byte for byte: its header has no run_at line, so the replay
// writes the place on every run line again (ModeSeededAtEvery). The
// traces in testdata/v3atevery were written by the tree before a run line
// said only a change of place.
func TestReplayVersion3AtEvery(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtureTraces(t, "v3atevery", 3) {
		replaysIn(t, fx.file, fx.data, ModeSeededAtEvery)
	}
}

// TestRunLinesSayChangedPlaces: a story run's run line says its task's
// place only when it changed, and the places read back (a line's at=, else
// the task's last) are those a run that says every one writes
// (ModeSeededAtEvery), whose trace is otherwise the same but for its
// header's run_at line: for every bundled scenario at 1 and 3 workers.
// Both runs keep their tails by the same code: TestReplayVersion3AtEvery
// pins the places themselves to traces the tree before it wrote.
func TestRunLinesSayChangedPlaces(t *testing.T) {
	t.Parallel()
	for _, sc := range bundled(t) {
		for _, workers := range []int{1, 3} {
			o := Options{Seed: 7, HasSeed: true, Workers: workers}
			_, changed := runOnce(t, sc, o)
			o.Mode = ModeSeededAtEvery
			_, every := runOnce(t, sc, o)
			name := fmt.Sprintf("%s at %d workers", sc.Name, workers)
			a, restA := runPlaces(t, name, changed, true)
			b, restB := runPlaces(t, name, every, false)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s: the places read back differ:\n  changes: %v\n  every:   %v", name, a, b)
			}
			if restA != restB {
				t.Errorf("%s: the traces differ in more than the run lines' places", name)
			}
		}
	}
}

// runPlaces parses text and returns each run line's place, read as the
// task's last place when the line has no at= and carry holds (where a line
// that repeats the last place is an error), as "" otherwise; and the trace
// without its run lines' places or its header's run_at line.
func runPlaces(t *testing.T, name, text string, carry bool) ([]string, string) {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var places []string
	last := map[int64]string{}
	var rest strings.Builder
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind != trace.KindRun {
			fmt.Fprintln(&rest, e.Step, e.Actor, e.Kind, e.Fields)
			continue
		}
		task := e.Fields[0].Int
		at, has := "", len(e.Fields) > 1 && e.Fields[1].Key == trace.KeyAt
		switch {
		case has:
			at = e.Fields[1].Str
			if carry && at == last[task] {
				t.Errorf("%s: step %d: run line says task %d's place %q, which did not change", name, e.Step, task, at)
			}
		case carry:
			at = last[task]
		}
		last[task] = at
		places = append(places, at)
		fmt.Fprintln(&rest, e.Step, e.Actor, e.Kind, task)
	}
	return places, rest.String()
}

// A simtest trace is recognised: replay names the test and prints the go
// test command that reruns its run, instead of failing on the embedded
// "source".
func TestReplaySimtestTrace(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	for _, strategy := range []string{StrategyPortfolio, StrategyRandom} {
		buf.Reset()
		b := Body{Name: "TestX/sub", Source: GoTestSourcePrefix + "TestX/sub\n", Seed: 7, Trace: &buf, Strategy: strategy,
			Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}}
		if _, err := RunBody(b, func(t *sched.Task) error { return t.Checkpoint() }); err != nil {
			t.Fatal(err)
		}
		_, err := Replay("x.trace", buf.Bytes(), false, 2)
		var bt *BadTraceError
		if !errors.As(err, &bt) {
			t.Fatalf("replay of a simtest trace: %v", err)
		}
		want := "a trace of the Go test body TestX/sub (simtest)"
		rerun := "go test -run '^TestX$/^sub$' -simtest.seed=7 -simtest.workers=2"
		if strategy == StrategyRandom { // seed 7's arm is pct 3: the rerun must ask for random
			rerun += " -simtest.strategy=random"
		}
		if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, rerun+" (") {
			t.Errorf("%s: message %q lacks %q or %q", strategy, msg, want, rerun)
		}
	}
}
