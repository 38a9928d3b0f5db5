package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The traces in testdata/diff are real runs of scenarios/fail_fast.toml
// with 4 workers (regenerate with `cbcsim run scenarios/fail_fast.toml
// --seed N --workers 4 --trace seedN.trace`):
//
//	seed6, seed12, seed13  seeds 6, 12 and 13
//	effect      seed6 with one effect edited: line 106, task 4's result
//	            cancelled:SiblingFailed -> ok:3
//	truncated   the first 90 lines of seed6, cut inside step 13
//	program     seed 6 of fail_fast.toml with immediate_fail computing
//	            10 ops before it fails: a different program
//	places-every, places-changed  seed 7 of channel_buffered.toml at 3
//	            workers, its run lines saying every place (written before
//	            "run_at: changed") and only the changed ones
//
// The *.golden files hold a `diff A B [--context N]` command, a `----`
// line and the report; `go test ./trace -run TestDiffGolden -update`
// rewrites the reports.

func loadDiffTrace(t *testing.T, name string) *Trace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "diff", name))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

// parseText parses a trace held in a string.
func parseText(t *testing.T, text string) *Trace {
	t.Helper()
	tr, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// edited returns the text of testdata/diff/name with old replaced by new,
// once; old must occur.
func edited(t *testing.T, name, old, new string) *Trace {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "diff", name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	return parseText(t, strings.Replace(string(data), old, new, 1))
}

func report(t *testing.T, d *DiffResult) string {
	t.Helper()
	var b strings.Builder
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func wantContains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("report lacks %q:\n%s", w, got)
		}
	}
}

func TestDiffSelfIsEqual(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"seed6.trace", "seed13.trace", "effect.trace", "truncated.trace", "program.trace"} {
		a, b := loadDiffTrace(t, name), loadDiffTrace(t, name)
		d := Diff(a, b)
		if !d.Equal() || d.Verdict != Same || d.Div != nil || len(d.Header) != 0 || d.Source.Differs {
			t.Errorf("%s: diff with itself: %+v", name, d)
		}
		if len(d.Results)+len(d.OnlyA)+len(d.OnlyB)+len(d.Nurseries) != 0 {
			t.Errorf("%s: diff with itself lists result differences: %+v", name, d)
		}
		if d.Headline() != "identical" {
			t.Errorf("%s: headline %q", name, d.Headline())
		}
		wantContains(t, report(t, d), "identical: same header, same scenario source, same")
	}
	// The hand-built trace of every kind, with sim and worker events in one step.
	h, events := smallTrace()
	tr := &Trace{Header: *h, Events: events}
	if d := Diff(tr, tr); !d.Equal() {
		t.Errorf("small trace with itself: %+v", d)
	}
}

func TestDiffSeedsDriverChoice(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "seed12.trace"))
	if d.Verdict != ScheduleDiff || d.Equal() {
		t.Fatalf("verdict %v, want schedule-diff", d.Verdict)
	}
	if want := "step 1: the driver chose w0 in A, w3 in B"; d.Reason != want {
		t.Errorf("reason %q, want %q", d.Reason, want)
	}
	if len(d.Header) != 1 || d.Header[0] != (HeaderDiff{Key: "seed", A: "6", B: "12", InA: true, InB: true}) {
		t.Errorf("header diffs %+v, want only the seed", d.Header)
	}
	if d.Div.Step != 1 || d.Div.LineA != d.Div.LineB || d.Div.LineA != 62 {
		t.Errorf("divergence %+v, want step 1 at line 62", d.Div)
	}
	wantContains(t, report(t, d), "SCHEDULE DIFF", "the seeds differ, so different decisions are expected",
		"differs: actor: w0 in A, w3 in B")
}

func TestDiffSeedsVictim(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "seed13.trace"))
	if d.Verdict != ScheduleDiff {
		t.Fatalf("verdict %v, want schedule-diff", d.Verdict)
	}
	if want := "step 1, w0 steal attempt 2: victim w2 in A, w3 in B"; d.Reason != want {
		t.Errorf("reason %q, want %q", d.Reason, want)
	}
	if d.Div.Index != 2 || d.Div.TextA != "1 1 w0 steal-fail victim=2" || d.Div.TextB != "1 1 w0 steal-fail victim=3" {
		t.Errorf("divergence %+v", d.Div)
	}
}

func TestDiffEffectIsNondeterminism(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "effect.trace"))
	if d.Verdict != Nondeterminism {
		t.Fatalf("verdict %v, want nondeterminism", d.Verdict)
	}
	div := d.Div
	if div.LineA != 106 || div.LineB != 106 || div.Step != 20 {
		t.Errorf("divergence at lines %d/%d step %d, want line 106, step 20", div.LineA, div.LineB, div.Step)
	}
	if div.TextA != "20 20 w2 result task=4 result=cancelled:SiblingFailed" || div.TextB != "20 20 w2 result task=4 result=ok:3" {
		t.Errorf("divergent lines %q / %q", div.TextA, div.TextB)
	}
	if want := []string{"result: cancelled:SiblingFailed in A, ok:3 in B"}; !reflect.DeepEqual(div.Differs, want) {
		t.Errorf("differs %q, want %q", div.Differs, want)
	}
	if !strings.Contains(d.Reason, "A line 106, B line 106") {
		t.Errorf("reason does not name the line: %q", d.Reason)
	}
	if want := []ItemDiff{{ID: "4", Name: "medium_success", A: "cancelled:SiblingFailed", B: "ok:3"}}; !reflect.DeepEqual(d.Results, want) {
		t.Errorf("results %+v, want %+v", d.Results, want)
	}
	if !strings.HasPrefix(d.Headline(), "NONDETERMINISM: same decisions, different effects") {
		t.Errorf("headline %q", d.Headline())
	}
	wantContains(t, report(t, d), "verdict: NONDETERMINISM: same decisions, different effects",
		"decisions at step 20, in both: the driver chose w2, no steal attempts",
		"this is a bug in the simulator", ">    106  20 20 w2 result task=4 result=ok:3",
		"the runs end differently: 1 task result")
}

// TestDiffDecideIsDecision: seeds 1 and 3 of the fail-fast scenario of
// docs/trace-format.md part at a decide line (step 4, the credit batch of
// a spawn): the chooser's answer to a policy decision is a decision, so
// the verdict is a schedule diff naming it, not nondeterminism.
func TestDiffDecideIsDecision(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "decide-seed1.trace"), loadDiffTrace(t, "decide-seed3.trace"))
	if d.Verdict != ScheduleDiff {
		t.Fatalf("verdict %v (%s), want schedule-diff", d.Verdict, d.Reason)
	}
	if want := "step 4, w1 decision credit (task 1): no in A, yes in B"; d.Reason != want {
		t.Errorf("reason %q, want %q", d.Reason, want)
	}
	if d.Div.TextA != "4 4 w1 decide credit=no task=1" {
		t.Errorf("divergent line %q, want the decide line", d.Div.TextA)
	}
}

// TestDecisionDiffDecides: decisionDiff reports the first decide answered
// otherwise, in the step's event order with the steal victims; a decide
// that asks another question is an effect.
func TestDecisionDiffDecides(t *testing.T) {
	t.Parallel()
	step := func(evs ...Event) stepDecisions { return decisionsOf(evs) }
	dec := func(name, answer string, task int64) Event {
		return Event{Step: 1, Actor: "w0", Kind: KindDecide, Fields: []Field{S(name, answer), I(KeyTask, task)}}
	}
	steal := func(victim int64) Event {
		return Event{Step: 1, Actor: "w0", Kind: KindStealFail, Fields: []Field{I("victim", victim)}}
	}
	for _, c := range []struct {
		name string
		a, b stepDecisions
		want string
	}{
		{"answer", step(dec("next-slot", "yes", 2)), step(dec("next-slot", "no", 2)), "step 1, w0 decision next-slot (task 2): yes in A, no in B"},
		{"other question", step(dec("next-slot", "yes", 2)), step(dec("hand-off", "no", 2)), ""},
		{"other task", step(dec("next-slot", "yes", 2)), step(dec("next-slot", "no", 3)), ""},
		{"decide first", step(dec("steal-next", "no", 1), steal(1)), step(dec("steal-next", "yes", 1), steal(2)), "step 1, w0 decision steal-next (task 1): no in A, yes in B"},
		{"victim first", step(steal(1), dec("steal-next", "no", 1)), step(steal(2), dec("steal-next", "yes", 1)), "step 1, w0 steal attempt 1: victim w1 in A, w2 in B"},
		{"same", step(dec("credit", "no", 1)), step(dec("credit", "no", 1)), ""},
	} {
		got, ok := decisionDiff(1, c.a, c.b)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}

func TestDiffPrefix(t *testing.T) {
	t.Parallel()
	full, cut := loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "truncated.trace")
	for _, c := range []struct {
		a, b  *Trace
		short string
	}{{full, cut, "B is a prefix of A"}, {cut, full, "A is a prefix of B"}} {
		d := Diff(c.a, c.b)
		if d.Verdict != Prefix || d.Equal() {
			t.Fatalf("verdict %v, want prefix", d.Verdict)
		}
		if !strings.HasPrefix(d.Reason, c.short) || !strings.Contains(d.Reason, "line 90") {
			t.Errorf("reason %q", d.Reason)
		}
		if len(d.Explain) != 1 || !strings.Contains(d.Explain[0], "cut short") {
			t.Errorf("explain %q", d.Explain)
		}
		if d.Div.Index != len(cut.Events) {
			t.Errorf("index %d, want %d", d.Div.Index, len(cut.Events))
		}
		if (d.Div.LineA == 0) == (d.Div.LineB == 0) {
			t.Errorf("exactly one side should have ended: lines %d/%d", d.Div.LineA, d.Div.LineB)
		}
		wantContains(t, report(t, d), "PREFIX", "(no more events)", "the runs end differently: the outcome")
	}
	// Traces built in memory have no line numbers; Diff does not need them.
	h, events := smallTrace()
	if d := Diff(&Trace{Header: *h, Events: events[:5]}, &Trace{Header: *h, Events: events}); d.Verdict != Prefix || d.Div.Index != 5 {
		t.Errorf("in-memory prefix: %v at %+v", d.Verdict, d.Div)
	}
	// An empty event section is a prefix of any other.
	empty := &Trace{Header: full.Header}
	if d := Diff(empty, full); d.Verdict != Prefix || !strings.HasPrefix(d.Reason, "A has no events") {
		t.Errorf("empty: %v %q", d.Verdict, d.Reason)
	}
}

func TestDiffDifferentPrograms(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "program.trace"))
	if !d.Source.Differs || d.Source.Line != 37 {
		t.Fatalf("source diff %+v, want line 37", d.Source)
	}
	if d.Source.A != `ops = [ { fail = "Failed" } ]` || d.Source.B != `ops = [ { compute = 10 }, { fail = "Failed" } ]` {
		t.Errorf("source lines %q / %q", d.Source.A, d.Source.B)
	}
	// The decisions at the divergent step are the same, but under another
	// program that is not nondeterminism.
	if d.Verdict != ConfigDiff {
		t.Errorf("verdict %v, want config-diff", d.Verdict)
	}
	rep := report(t, d)
	if !strings.Contains(rep, "DIFFERENT PROGRAMS") || strings.Index(rep, "DIFFERENT PROGRAMS") > strings.Index(rep, "header:") {
		t.Errorf("the different programs are not said first:\n%s", rep)
	}
	if strings.Contains(rep, "NONDETERMINISM") {
		t.Errorf("different programs reported as nondeterminism:\n%s", rep)
	}
	wantContains(t, rep, "the runs differ in the scenario source, which can change the effects")

	// The same events under a different source: Same events, yet not Equal.
	a := loadDiffTrace(t, "seed6.trace")
	b := loadDiffTrace(t, "seed6.trace")
	b.Header.Source += "# one more line\n"
	d = Diff(a, b)
	if d.Verdict != Same || d.Equal() || !d.Source.Differs || !d.Source.MissingA {
		t.Errorf("extra source line: %+v", d)
	}
	wantContains(t, report(t, d), "DIFFERENT PROGRAMS", "A: (no such line)", "B: # one more line", "SAME EVENTS")
}

func TestDiffSourceForms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want SourceDiff
	}{
		{"x\n", "x\n", SourceDiff{}},
		{"x\n", "x", SourceDiff{Differs: true}},
		{"x\ny\n", "x\nz\n", SourceDiff{Differs: true, Line: 2, A: "y", B: "z"}},
		{"x\n", "x\n\n", SourceDiff{Differs: true, Line: 2, MissingA: true}},
		{"", "a", SourceDiff{Differs: true, Line: 1, MissingA: true, B: "a"}},
		{"a\nb", "a\n", SourceDiff{Differs: true, Line: 2, B: "", A: "b", MissingB: true}},
	} {
		if got := diffSource(c.a, c.b); got != c.want {
			t.Errorf("diffSource(%q, %q) = %+v, want %+v", c.a, c.b, got, c.want)
		}
	}
}

func TestDiffConfigDiff(t *testing.T) {
	t.Parallel()
	a := loadDiffTrace(t, "seed6.trace")
	b := edited(t, "effect.trace", "# yield_interval: 1024", "# yield_interval: 512")
	d := Diff(a, b)
	if d.Verdict != ConfigDiff {
		t.Fatalf("verdict %v, want config-diff", d.Verdict)
	}
	if len(d.Explain) != 1 || !strings.Contains(d.Explain[0], "yield_interval") {
		t.Errorf("explain %q does not name yield_interval", d.Explain)
	}
	// A different seed alone does not explain a different effect.
	b = edited(t, "effect.trace", "# seed: 6", "# seed: 7")
	if d := Diff(a, b); d.Verdict != Nondeterminism || !strings.Contains(d.Explain[0], "only the seeds differ") {
		t.Errorf("seed only: %v %q, want nondeterminism", d.Verdict, d.Explain)
	}
}

func TestDiffSameSeedDecisionDiffers(t *testing.T) {
	t.Parallel()
	// The same header and the same history, yet w0's second victim differs:
	// a schedule difference that cannot happen with a pinned PRNG.
	a := loadDiffTrace(t, "seed6.trace")
	b := edited(t, "seed6.trace", "1 1 w0 steal-fail victim=2\n", "1 1 w0 steal-fail victim=3\n")
	d := Diff(a, b)
	if d.Verdict != ScheduleDiff || d.Reason != "step 1, w0 steal attempt 2: victim w2 in A, w3 in B" {
		t.Fatalf("%v %q", d.Verdict, d.Reason)
	}
	if len(d.Explain) != 1 || !strings.HasPrefix(d.Explain[0], "NONDETERMINISM IN A DECISION") {
		t.Errorf("explain %q", d.Explain)
	}
}

func TestDiffStepLength(t *testing.T) {
	t.Parallel()
	// B's step 19 loses an event: the step ends early there.
	a := loadDiffTrace(t, "seed6.trace")
	b := edited(t, "seed6.trace", "19 19 w0 cancel task=2 reason=SiblingFailed\n", "")
	d := Diff(a, b)
	if d.Verdict != Nondeterminism || d.Div.Step != 19 {
		t.Fatalf("%v at step %d, want nondeterminism at step 19", d.Verdict, d.Div.Step)
	}
	if len(d.Div.Differs) != 1 || d.Div.Differs[0] != "task: 2 in A, 4 in B" {
		t.Errorf("differs %q", d.Div.Differs)
	}
	// Now the last event of step 19: B moves on to step 20 while A's step goes on.
	b = edited(t, "seed6.trace", "19 19 w0 cancel task=4 reason=SiblingFailed\n", "")
	d = Diff(a, b)
	if d.Verdict != Nondeterminism || d.Div.Step != 19 {
		t.Fatalf("%v at step %d, want nondeterminism at step 19", d.Verdict, d.Div.Step)
	}
	if want := "step 19 goes on in A, but has ended in B (B's next event is in step 20)"; len(d.Div.Differs) != 1 || d.Div.Differs[0] != want {
		t.Errorf("differs %q, want %q", d.Div.Differs, want)
	}
}

func TestDiffRunEndsInOne(t *testing.T) {
	t.Parallel()
	// Same decisions through step 1; at step 2 the driver ends A's run but
	// picks a worker in B. Whether the run ends is an effect.
	const head = "# cbcsim-trace 1\n# seed: 1\n# source: 0\n# end\n0 0 w0 global task=1\n1 1 w1 steal-fail victim=0\n"
	a := parseText(t, head+"2 2 sim outcome outcome=ok\n")
	b := parseText(t, head+"2 2 w1 run task=1\n3 3 sim outcome outcome=ok\n")
	d := Diff(a, b)
	if d.Verdict != Nondeterminism || d.Decisions != "" {
		t.Fatalf("%v, decisions %q", d.Verdict, d.Decisions)
	}
	if want := []string{"actor: sim in A, w1 in B", "kind: outcome in A, run in B"}; !reflect.DeepEqual(d.Div.Differs, want) {
		t.Errorf("differs %q, want %q", d.Div.Differs, want)
	}
	if d.A.Steps != 2 || d.B.Steps != 3 || d.A.OutcomeLine != 7 || d.B.OutcomeLine != 8 {
		t.Errorf("summaries %+v %+v", d.A, d.B)
	}
}

func TestDiffOnlyInOne(t *testing.T) {
	t.Parallel()
	const head = "# cbcsim-trace 1\n# source: 0\n# end\n0 0 w0 global task=t0\n"
	a := parseText(t, head+"1 1 w0 spawn task=t1 parent=t0 name=left\n2 2 w0 result task=t1 value=1\n3 3 w0 result task=t0 err=boom value=\"\"\n")
	b := parseText(t, head+"1 1 w0 spawn task=t2 parent=t0 name=right\n2 2 w0 result task=t2 value=1\n3 3 w0 result task=t0 value=7\n")
	d := Diff(a, b)
	if want := []ItemDiff{{ID: "t0", A: `err=boom value=""`, B: "value=7"}}; !reflect.DeepEqual(d.Results, want) {
		t.Errorf("results %+v, want %+v", d.Results, want)
	}
	if want := []ItemDiff{{ID: "t1", Name: "left", A: "value=1"}}; !reflect.DeepEqual(d.OnlyA, want) {
		t.Errorf("only A %+v, want %+v", d.OnlyA, want)
	}
	if want := []ItemDiff{{ID: "t2", Name: "right", B: "value=1"}}; !reflect.DeepEqual(d.OnlyB, want) {
		t.Errorf("only B %+v, want %+v", d.OnlyB, want)
	}
	wantContains(t, report(t, d), "tasks only in A: 1", "t1 (left)", "tasks only in B: 1", "t2 (right)",
		"(none)", "the runs end differently: 1 task result, 2 tasks present in one run only")
}

func TestDiffHeaderOnly(t *testing.T) {
	t.Parallel()
	a := loadDiffTrace(t, "seed6.trace")
	b := edited(t, "seed6.trace", "# seed: 6", "# seed: 99")
	b.Header.Fields = append(b.Header.Fields, S("extra", "x y"))
	d := Diff(a, b)
	if d.Verdict != Same || d.Equal() || d.Div != nil {
		t.Fatalf("%+v", d)
	}
	want := []HeaderDiff{{Key: "seed", A: "6", B: "99", InA: true, InB: true}, {Key: "extra", B: `"x y"`, InB: true}}
	if !reflect.DeepEqual(d.Header, want) {
		t.Errorf("header %+v, want %+v", d.Header, want)
	}
	wantContains(t, report(t, d), "header: 2 fields differ", "extra  (missing) in A, \"x y\" in B", "SAME EVENTS")
}

func TestDiffHeaderForms(t *testing.T) {
	t.Parallel()
	hdr := func(fs ...Field) *Header { return &Header{Fields: fs} }
	for _, c := range []struct {
		name string
		a, b *Header
		want []HeaderDiff
	}{
		{"int and string", hdr(I("seed", 1)), hdr(S("seed", "1")), []HeaderDiff{{Key: "seed", A: "1", B: `"1"`, InA: true, InB: true}}},
		{"repeated key", hdr(S("k", "x")), hdr(S("k", "x"), S("k", "y")), []HeaderDiff{{Key: "k", A: "x", B: "x, y", InA: true, InB: true}}},
		{"order", hdr(I("a", 1), I("b", 2)), hdr(I("b", 2), I("a", 1)), []HeaderDiff{{Key: "(order)", A: "a, b", B: "b, a", InA: true, InB: true}}},
		{"missing", hdr(I("a", 1)), hdr(), []HeaderDiff{{Key: "a", A: "1", InA: true}}},
		{"quoted hash", hdr(S("h", "abc")), hdr(S("h", "9ab")), []HeaderDiff{{Key: "h", A: "abc", B: "9ab", InA: true, InB: true}}},
	} {
		if got := diffHeader(c.a, c.b); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestDiffContextLines(t *testing.T) {
	t.Parallel()
	a, b := loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "effect.trace")
	for _, n := range []int{0, 1, 5, -1} {
		d := DiffContext(a, b, n)
		want := 2*max(n, 0) + 1
		if len(d.Div.ContextA) != want || len(d.Div.ContextB) != want {
			t.Errorf("context %d: %d and %d lines, want %d", n, len(d.Div.ContextA), len(d.Div.ContextB), want)
			continue
		}
		c := d.Div.ContextA[max(n, 0)]
		if !c.Mark || c.Line != 106 {
			t.Errorf("context %d: middle line %+v is not the marked line 106", n, c)
		}
	}
	// Near the end of a trace the context stops at an end mark.
	d := DiffContext(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "truncated.trace"), 2)
	last := d.Div.ContextB[len(d.Div.ContextB)-1]
	if last.Line != 0 || !last.Mark {
		t.Errorf("the shorter side's context does not end with a marked end: %+v", d.Div.ContextB)
	}
}

func TestDiffDeterministic(t *testing.T) {
	t.Parallel()
	a, b := loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "seed13.trace")
	d1, d2 := Diff(a, b), Diff(a, b)
	if !reflect.DeepEqual(d1, d2) {
		t.Fatal("two Diffs of the same traces differ")
	}
	if report(t, d1) != report(t, d2) {
		t.Fatal("two reports of the same Diff differ")
	}
}

func TestDiffWriteError(t *testing.T) {
	t.Parallel()
	d := Diff(loadDiffTrace(t, "seed6.trace"), loadDiffTrace(t, "seed13.trace"))
	if err := d.Write(failWriter{}); err == nil {
		t.Fatal("Write to a failing writer returned nil")
	}
}

func TestVerdictString(t *testing.T) {
	t.Parallel()
	for v, want := range map[Verdict]string{Same: "same", ScheduleDiff: "schedule-diff", Nondeterminism: "nondeterminism",
		ConfigDiff: "config-diff", Prefix: "prefix", Verdict(9): "verdict(9)"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", v, v.String(), want)
		}
	}
}

// TestDiffGolden checks the report text. Each testdata/diff/*.golden file
// is a command line (`diff A B [--context N]`, the traces named relative to
// testdata/diff), a "----" line, and the report.
func TestDiffGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "diff", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/diff/*.golden files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cmd, want, ok := strings.Cut(string(data), "\n----\n")
			if !ok {
				t.Fatalf("%s: no ---- line", path)
			}
			args := strings.Fields(cmd)
			n := DefaultContext
			if len(args) == 5 && args[3] == "--context" {
				if n, err = strconv.Atoi(args[4]); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				args = args[:3]
			}
			if len(args) != 3 || args[0] != "diff" {
				t.Fatalf("%s: command %q, want `diff A B [--context N]`", path, cmd)
			}
			d := DiffContext(loadDiffTrace(t, args[1]), loadDiffTrace(t, args[2]), n)
			d.NameA, d.NameB = args[1], args[2]
			got := report(t, d)
			if *update {
				if err := os.WriteFile(path, []byte(cmd+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("report differs from %s (run go test ./trace -run TestDiffGolden -update to accept):\n%s",
					path, firstDiff([]byte(got), []byte(want)))
			}
		})
	}
}

// BenchmarkDiff diffs two identical 100,000-event traces, the worst case:
// every event is compared and summarised. ns/event is the cost of one
// event on both sides.
func BenchmarkDiff(b *testing.B) {
	const events = 100000
	data := benchTrace(events)
	ta, err := Parse(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	tb, err := Parse(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := Diff(ta, tb); !d.Equal() {
			b.Fatal("identical traces differ")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}

// TestDiffProperties diffs random traces against mutations of themselves:
// Diff never panics, Write never fails, the divergence is the first event
// that differs, and swapping A and B gives the same verdict at the same
// place.
func TestDiffProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h, events := drawTrace(t)
		a := &Trace{Header: *h, Events: events}
		b := &Trace{Header: *h, Events: append([]Event(nil), events...)}
		switch op := rapid.IntRange(0, 4).Draw(t, "op"); {
		case op == 0 && len(events) > 0: // cut short
			b.Events = b.Events[:rapid.IntRange(0, len(events)-1).Draw(t, "cut")]
		case op == 1 && len(events) > 0: // one event changed
			i := rapid.IntRange(0, len(events)-1).Draw(t, "at")
			e := b.Events[i]
			e.Fields = append(append([]Field(nil), e.Fields...), fieldGen.Draw(t, "extra"))
			b.Events[i] = e
		case op == 2 && len(events) > 0: // one actor changed
			i := rapid.IntRange(0, len(events)-1).Draw(t, "at")
			b.Events[i].Actor = actorGen.Draw(t, "actor")
		case op == 3: // one header field changed
			b.Header.Fields = append(append([]Field(nil), h.Fields...), headerFieldGen.Draw(t, "hfield"))
		}
		d, r := Diff(a, b), Diff(b, a)
		for _, x := range []*DiffResult{d, r} {
			if err := x.Write(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
		i := commonPrefix(a.Events, b.Events)
		if same := i == len(a.Events) && i == len(b.Events); same != (d.Verdict == Same) || same != (d.Div == nil) {
			t.Fatalf("same events %v, verdict %v", same, d.Verdict)
		}
		if d.Verdict != r.Verdict || d.Equal() != r.Equal() {
			t.Fatalf("verdict %v one way, %v the other", d.Verdict, r.Verdict)
		}
		if d.Div != nil && (d.Div.Index != i || r.Div.Index != i || d.Div.Step != r.Div.Step) {
			t.Fatalf("divergence at %d / %d (step %d / %d), want %d", d.Div.Index, r.Div.Index, d.Div.Step, r.Div.Step, i)
		}
		if d.Verdict == Same && d.Equal() != reflect.DeepEqual(a.Header, b.Header) {
			t.Fatalf("Equal %v for headers %+v / %+v", d.Equal(), a.Header, b.Header)
		}
	})
}
