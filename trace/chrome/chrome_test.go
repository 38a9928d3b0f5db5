package chrome

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/trace"
)

// chromeFile is the JSON Object Format of the trace.Trace trace.Event Format, with only
// the fields Write may write: decoding with DisallowUnknownFields
// catches a misspelt or stray key.
type chromeFile struct {
	TraceEvents []chromeJSONEvent `json:"traceEvents"`
	OtherData   map[string]any    `json:"otherData"`
}

type chromeJSONEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   *uint64        `json:"ts"`
	Dur  *uint64        `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// fataler is what checkChrome needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// chromeOut runs Write, checks that a second run gives the same
// bytes, and returns the output.
func chromeOut(t fataler, tr *trace.Trace) []byte {
	t.Helper()
	var a, b bytes.Buffer
	if err := Write(&a, tr); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := Write(&b, tr); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("Write is not deterministic:\n%s", testkit.FirstDiff(a.Bytes(), b.Bytes()))
	}
	return a.Bytes()
}

// jsonString is s as it reads back from JSON: encoding/json, like
// Write, replaces each invalid UTF-8 byte with U+FFFD.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	return back
}

// argEqual reports whether the decoded JSON arg v holds f's value.
func argEqual(v any, f trace.Field) bool {
	switch v := v.(type) {
	case json.Number:
		return f.IsInt && v.String() == strconv.FormatInt(f.Int, 10)
	case string:
		return !f.IsInt && v == jsonString(f.Str)
	}
	return false
}

// wantLaneName is the lane Write must give actor.
func wantLaneName(actor string) string {
	if n, ok := workerNumber(actor); ok {
		return "worker " + strconv.FormatUint(n, 10)
	}
	switch actor {
	case "sim":
		return "driver"
	}
	return "actor " + actor
}

// checkChrome decodes out, the Write output for tr, and checks its
// structure against tr independently of the converter: the metadata, one
// instant per non-run event with every field as an arg, slices that do not
// overlap on a lane, and every run step covered by exactly one slice of
// its task. With strictTicks, every slice starts and ends on the ticks of
// its runs (true of every simulator trace, whose ticks increase per lane).
func checkChrome(t fataler, tr *trace.Trace, out []byte, strictTicks bool) *chromeFile {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("output is not valid JSON:\n%s", out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var f chromeFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("data after the JSON object: %v", err)
	}

	// Metadata: one process, one named lane per actor.
	name := "trace"
	if h, ok := tr.Header.Get("name"); ok {
		name = text(h)
	}
	tidOf := map[string]int{} // lane name -> tid
	named := map[int]string{} // tid -> lane name
	sorted := map[int]bool{}
	processes := 0
	var body []chromeJSONEvent
	for i, e := range f.TraceEvents {
		if e.Pid == nil || *e.Pid != pid || e.Tid == nil || e.Name == "" {
			t.Fatalf("event %d: want pid %d, a tid and a name: %+v", i, pid, e)
		}
		if e.Ph != "M" {
			body = append(body, e)
			continue
		}
		if e.Ts != nil || e.Dur != nil || e.Cat != "" || e.S != "" || len(e.Args) != 1 {
			t.Fatalf("event %d: metadata with stray fields: %+v", i, e)
		}
		if len(body) > 0 {
			t.Fatalf("event %d: metadata after the first event", i)
		}
		switch e.Name {
		case "process_name":
			processes++
			if got := e.Args["name"]; got != jsonString("cbcsim: "+name) {
				t.Fatalf("process name %q, want %q", got, "cbcsim: "+name)
			}
		case "thread_name":
			ln, ok := e.Args["name"].(string)
			if !ok || ln == "" {
				t.Fatalf("event %d: thread_name without a name: %+v", i, e)
			}
			if _, dup := tidOf[ln]; dup {
				t.Fatalf("two lanes named %q", ln)
			}
			if _, dup := named[*e.Tid]; dup || *e.Tid == pid {
				t.Fatalf("tid %d named twice, or the process's own", *e.Tid)
			}
			tidOf[ln], named[*e.Tid] = *e.Tid, ln
		case "thread_sort_index":
			if _, ok := e.Args["sort_index"].(json.Number); !ok {
				t.Fatalf("event %d: thread_sort_index without a number: %+v", i, e)
			}
			sorted[*e.Tid] = true
		default:
			t.Fatalf("event %d: unknown metadata %q", i, e.Name)
		}
	}
	if processes != 1 {
		t.Fatalf("%d process_name events, want 1", processes)
	}
	for tid, ln := range named {
		if !sorted[tid] {
			t.Fatalf("lane %q has no thread_sort_index", ln)
		}
	}
	laneTid := func(actor string) int {
		t.Helper()
		tid, ok := tidOf[wantLaneName(actor)]
		if !ok {
			t.Fatalf("no lane %q for actor %q", wantLaneName(actor), actor)
		}
		return tid
	}
	laneTid("sim")

	// Instants, in trace order; slices, by lane.
	var instants []chromeJSONEvent
	lanes := map[int][]chromeJSONEvent{}
	for _, e := range body {
		if named[*e.Tid] == "" || e.Ts == nil || e.Cat == "" {
			t.Fatalf("event on an unnamed lane, or without ts or cat: %+v", e)
		}
		switch e.Ph {
		case "i":
			if e.Dur != nil || (e.S != "t" && e.S != "p" && e.S != "g") {
				t.Fatalf("instant with a dur or a bad scope: %+v", e)
			}
			instants = append(instants, e)
		case "X":
			if e.Dur == nil || e.S != "" || e.Cat != "run" {
				t.Fatalf("slice without a dur, or with a scope: %+v", e)
			}
			if *e.Dur == 0 && *e.Ts != math.MaxUint64 {
				t.Fatalf("empty slice: %+v", e)
			}
			lanes[*e.Tid] = append(lanes[*e.Tid], e)
		default:
			t.Fatalf("unexpected phase %q: %+v", e.Ph, e)
		}
	}
	k := 0
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Kind == trace.KindRun {
			continue
		}
		if k >= len(instants) {
			t.Fatalf("event %d (%s) has no instant", i, ev.Kind)
		}
		in := instants[k]
		k++
		wantScope := "t"
		switch ev.Kind {
		case trace.KindOutcome:
			wantScope = "g"
		case trace.KindDeadlock, trace.KindLivelock:
			wantScope = "p"
		}
		if *in.Ts != ev.Tick || *in.Tid != laneTid(ev.Actor) || in.S != wantScope ||
			!strings.HasPrefix(in.Name, jsonString(ev.Kind.String())) {
			t.Fatalf("event %d (%s at tick %d on %s): instant %+v", i, ev.Kind, ev.Tick, ev.Actor, in)
		}
		if !argEqual(in.Args["step"], uintField("step", ev.Step)) {
			t.Fatalf("event %d: args.step = %v, want %d", i, in.Args["step"], ev.Step)
		}
		uses := map[string]int{"step": 1}
		for _, fl := range ev.Fields {
			uses[fl.Key]++
			key := fl.Key
			if uses[fl.Key] > 1 {
				key += "#" + strconv.Itoa(uses[fl.Key])
			}
			if !argEqual(in.Args[key], fl) {
				t.Fatalf("event %d: args[%q] = %#v, want %+v", i, key, in.Args[key], fl)
			}
		}
		if len(in.Args) != 1+len(ev.Fields) {
			t.Fatalf("event %d: %d args, want %d", i, len(in.Args), 1+len(ev.Fields))
		}
	}
	if k != len(instants) {
		t.Fatalf("%d instants for %d non-run events", len(instants), k)
	}

	// Slices on a lane do not overlap.
	for tid, ss := range lanes {
		slices.SortStableFunc(ss, func(a, b chromeJSONEvent) int {
			if *a.Ts < *b.Ts {
				return -1
			} else if *a.Ts > *b.Ts {
				return 1
			}
			return 0
		})
		for j := 1; j < len(ss); j++ {
			if *ss[j-1].Ts+*ss[j-1].Dur > *ss[j].Ts {
				t.Fatalf("lane %q: slices overlap: %+v and %+v", named[tid], ss[j-1], ss[j])
			}
		}
	}

	// Every run step is covered by exactly one slice of its task. A step
	// takes one tick on its lane, from max(its tick, the end of the lane's
	// previous step).
	free := map[int]uint64{}
	covered := map[*chromeJSONEvent]int64{}
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Kind != trace.KindRun {
			continue
		}
		tid := laneTid(ev.Actor)
		at := max(ev.Tick, free[tid])
		free[tid] = at + 1
		if at == math.MaxUint64 {
			free[tid] = at
		}
		if strictTicks && at != ev.Tick {
			t.Fatalf("event %d: run at tick %d placed at %d", i, ev.Tick, at)
		}
		var hits []*chromeJSONEvent
		ss := lanes[tid]
		for j := range ss {
			s := &ss[j]
			end := *s.Ts + *s.Dur
			if *s.Ts <= at && (at < end || (at == end && at == math.MaxUint64)) {
				hits = append(hits, s)
			}
		}
		if len(hits) > 1 && at == math.MaxUint64 {
			// Steps saturated at the last tick all sit at the same
			// instant; tell their slices apart by the steps they cover.
			var mine []*chromeJSONEvent
			for _, h := range hits {
				if first, last := stepOf(h.Args["first_step"]), stepOf(h.Args["last_step"]); first <= ev.Step && ev.Step <= last {
					mine = append(mine, h)
				}
			}
			hits = mine
		}
		if len(hits) != 1 {
			t.Fatalf("event %d (run at tick %d on %s): covered by %d slices", i, ev.Tick, ev.Actor, len(hits))
		}
		s := hits[0]
		task, hasTask := field(ev, "task")
		if got, ok := s.Args["task"]; ok != hasTask || (hasTask && !argEqual(got, task)) {
			t.Fatalf("event %d: run of task %v in slice %+v", i, task, *s)
		}
		if first, last := stepOf(s.Args["first_step"]), stepOf(s.Args["last_step"]); ev.Step < first || ev.Step > last {
			t.Fatalf("event %d at step %d: in a slice of steps %d..%d", i, ev.Step, first, last)
		}
		covered[s]++
	}
	for tid, ss := range lanes {
		for j := range ss {
			if n, _ := ss[j].Args["steps"].(json.Number).Int64(); n != covered[&ss[j]] {
				t.Fatalf("lane %q: slice %+v covers %d run steps", named[tid], ss[j], covered[&ss[j]])
			}
		}
	}
	return &f
}

// stepOf reads a step arg, written as a number or (past int64) as text.
func stepOf(v any) uint64 {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = v
	}
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// chromeGoldenInputs are the traces with a golden export: the hand-built
// trace with every kind, and real simulator traces in testdata/chrome.
func chromeGoldenInputs(t *testing.T) map[string]string {
	t.Helper()
	in := map[string]string{filepath.Join("testdata", "small.trace"): filepath.Join("testdata", "small.json")}
	paths, err := filepath.Glob(filepath.Join("testdata", "*.trace"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no traces in testdata/chrome: %v", err)
	}
	for _, p := range paths {
		in[p] = strings.TrimSuffix(p, ".trace") + ".json"
	}
	return in
}

// TestChromeGolden checks the export of each golden input byte for byte
// (go test ./trace -update rewrites the .json files) and checks its
// structure.
func TestChromeGolden(t *testing.T) {
	t.Parallel()
	inputs := chromeGoldenInputs(t)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range inputs {
			if !yield(k) {
				return
			}
		}
	})
	for _, in := range keys {
		golden := inputs[in]
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := trace.Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			got := chromeOut(t, tr)
			checkChrome(t, tr, got, true)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./trace -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("export of %s differs from %s (run go test ./trace/chrome -update to accept):\n%s", in, golden, testkit.FirstDiff(got, want))
			}
		})
	}
}

// chromeSlices exports the trace text and lists its slices, in file order,
// as "LANE NAME [TS,END) steps=N".
func chromeSlices(t *testing.T, events string) []string {
	t.Helper()
	src := "# cbcsim-trace 1\n# name: x\n# workers: 2\n# source: 0\n# end\n" + events
	tr, err := trace.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	f := checkChrome(t, tr, chromeOut(t, tr), false)
	lane := map[int]string{}
	var got []string
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				lane[*e.Tid] = e.Args["name"].(string)
			}
		case "X":
			got = append(got, fmt.Sprintf("%s %s [%d,%d) steps=%v", lane[*e.Tid], e.Name, *e.Ts, *e.Ts+*e.Dur, e.Args["steps"]))
		}
	}
	return got
}

// TestChromeSliceRules pins down when a slice goes on and when it ends.
func TestChromeSliceRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, events string
		want         []string
	}{
		{"effects of the run keep the slice",
			"1 1 w0 run task=1\n1 1 w0 spawn task=2 parent=1 nursery=1 name=kid\n1 1 w0 log task=1 text=hi\n" +
				"1 1 w0 cancel task=2 reason=X\n1 1 w0 result task=2 result=cancelled:X\n2 2 sim clock from=2 to=2\n3 3 w0 run task=1\n",
			[]string{"worker 0 t1 main [1,4) steps=2"}},
		{"another worker's step preempts the task",
			"1 1 w0 run task=1\n2 2 w1 park\n3 3 w0 run task=1\n4 4 w0 run task=1\n5 5 w1 run task=2\n6 6 w0 run task=1\n",
			[]string{"worker 0 t1 main [1,2) steps=1", "worker 0 t1 main [3,5) steps=2", "worker 1 t2 [5,6) steps=1", "worker 0 t1 main [6,7) steps=1"}},
		{"the worker takes other work",
			"0 0 w0 global task=1\n1 1 w0 run task=2\n2 2 w0 pop task=3\n3 3 w0 run task=2\n4 4 w0 steal-fail victim=1\n5 5 w0 run task=2\n6 6 w0 park\n7 7 w0 run task=2\n",
			[]string{"worker 0 t2 [1,2) steps=1", "worker 0 t2 [3,4) steps=1", "worker 0 t2 [5,6) steps=1", "worker 0 t2 [7,8) steps=1"}},
		{"the task yields, blocks or ends",
			"1 1 w0 run task=t1\n1 1 w0 yield task=t1 why=explicit\n2 2 w0 run task=t1\n2 2 w0 block task=t1 on=x\n" +
				"3 3 w0 run task=t1\n3 3 w0 result task=t1 result=ok\n",
			[]string{"worker 0 t1 main [1,2) steps=1", "worker 0 t1 main [2,3) steps=1", "worker 0 t1 main [3,4) steps=1"}},
		{"another task, another slice",
			"1 1 w0 run task=1\n2 2 w0 run task=2\n3 3 w1 run task=1\n4 4 w0 run task=2\n",
			[]string{"worker 0 t1 main [1,2) steps=1", "worker 0 t2 [2,3) steps=1", "worker 1 t1 main [3,4) steps=1", "worker 0 t2 [4,5) steps=1"}},
		{"repeated ticks never overlap",
			"1 5 w0 run task=1\n1 5 w0 run task=2\n2 5 w0 run task=2\n3 4 w0 run task=1\n",
			[]string{"worker 0 t1 main [5,6) steps=1", "worker 0 t2 [6,8) steps=2", "worker 0 t1 main [8,9) steps=1"}},
		{"runs without a task and runs of other actors",
			"1 1 w0 run\n2 2 w0 run\n3 3 sim run task=1\n4 4 w01 run task=1\n",
			[]string{"worker 0 run [1,3) steps=2", "driver t1 main [3,4) steps=1", "actor w01 t1 main [4,5) steps=1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := chromeSlices(t, c.events); !slices.Equal(got, c.want) {
				t.Errorf("slices:\n got  %q\n want %q", got, c.want)
			}
		})
	}
}

// TestChromeNamesAndLanes checks the names Write makes up: task
// labels from spawn events, lanes from the header and the actors, and ids
// written as integers or as strings.
func TestChromeNamesAndLanes(t *testing.T) {
	t.Parallel()
	src := "# cbcsim-trace 1\n# name: \"a \\\"quoted\\\" name\"\n# workers: 3\n# source: 0\n# end\n" +
		"0 0 w2 global task=1\n1 1 w2 run task=1\n1 1 w2 spawn task=2 parent=1 nursery=1 name=child admit=run\n" +
		"2 2 w10 steal victim=2 task=2\n3 3 w10 run task=2\n3 3 w10 note a=1 a=2 step=3\n4 4 zed log task=t9 text=\"\\xff\\n\"\n" +
		"5 5 sim deadlock live=1\n6 6 sim outcome outcome=deadlock result=none\n"
	tr, err := trace.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	out := chromeOut(t, tr)
	f := checkChrome(t, tr, out, true)
	var lanes, names []string
	for _, e := range f.TraceEvents {
		switch {
		case e.Name == "thread_name":
			lanes = append(lanes, e.Args["name"].(string))
		case e.Name == "process_name":
			names = append(names, e.Args["name"].(string))
		case e.Ph != "M":
			names = append(names, e.Name)
		}
	}
	if want := []string{"worker 0", "worker 1", "worker 2", "worker 10", "driver", "actor zed"}; !slices.Equal(lanes, want) {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	want := []string{`cbcsim: a "quoted" name`, "global t1", "t1 main", "spawn t2 child", "steal t2 from w2", "t2 child",
		"note", "log t9: \ufffd\n", "deadlock", "outcome deadlock none"}
	if !slices.Equal(names, want) {
		t.Errorf("names:\n got  %q\n want %q", names, want)
	}
	if !bytes.Contains(out, []byte(`"args":{"step":3,"a":1,"a#2":2,"step#2":3}`)) {
		t.Errorf("repeated keys are not numbered:\n%s", out)
	}
	if f.OtherData["workers"] != json.Number("3") || f.OtherData["time_unit"] == nil {
		t.Errorf("otherData lacks the header or the time unit: %v", f.OtherData)
	}
}

// TestChromeProperties checks the structure of the export of random traces:
// fully random ones (any kind, actor and tick) and scheduler-like ones
// (a few workers and tasks, mostly runs, ticks that may repeat).
func TestChromeProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h, events := drawTrace(t)
		tr := &trace.Trace{Header: *h, Events: events}
		checkChrome(t, tr, chromeOut(t, tr), false)
	})
	kinds := []trace.Kind{trace.KindRun, trace.KindRun, trace.KindRun, trace.KindRun, trace.KindYield, trace.KindBlock, trace.KindResult, trace.KindPop, trace.KindSteal, trace.KindPark, trace.KindSpawn, trace.KindLog, trace.KindWake}
	rapid.Check(t, func(t *rapid.T) {
		strict := rapid.Bool().Draw(t, "strict")
		n := rapid.IntRange(0, 60).Draw(t, "events")
		var events []trace.Event
		var step, tick uint64
		for i := 0; i < n; i++ {
			step += rapid.Uint64Range(0, 1).Draw(t, "stepDelta")
			tick += rapid.Uint64Range(0, 2).Draw(t, "tickDelta")
			if strict {
				// One event per tick, so a lane's runs have rising ticks.
				step, tick = uint64(i), uint64(i)
			}
			e := trace.Event{
				Step:  step,
				Tick:  tick,
				Actor: rapid.SampledFrom([]string{"w0", "w1", "w2", "sim"}).Draw(t, "actor"),
				Kind:  rapid.SampledFrom(kinds).Draw(t, "kind"),
			}
			if rapid.IntRange(0, 9).Draw(t, "withTask") > 0 {
				task := rapid.Int64Range(1, 3).Draw(t, "task")
				if rapid.Bool().Draw(t, "stringTask") {
					e.Fields = append(e.Fields, trace.S("task", "t"+strconv.FormatInt(task, 10)))
				} else {
					e.Fields = append(e.Fields, trace.I("task", task))
				}
			}
			events = append(events, e)
		}
		tr := &trace.Trace{Header: trace.Header{Fields: []trace.Field{trace.S("name", "p"), trace.I("workers", 3)}}, Events: events}
		checkChrome(t, tr, chromeOut(t, tr), strict)
	})
}

func TestChromeErrors(t *testing.T) {
	t.Parallel()
	tr, err := trace.Parse(strings.NewReader(badBase + "0 0 w0 run task=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(failWriter{}, tr); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("write error: got %v", err)
	}
	if err := Write(io.Discard, nil); err == nil {
		t.Error("nil trace: no error")
	}
	// The zero trace.Trace (and a hand-built one with an unset trace.Kind) exports.
	for _, tr := range []*trace.Trace{{}, {Events: []trace.Event{{Actor: "w0"}}}} {
		checkChrome(t, tr, chromeOut(t, tr), true)
	}
}

// FuzzWriteChrome checks that every trace trace.Parse accepts exports to
// well-formed JSON with the structure checkChrome demands.
func FuzzWriteChrome(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "small.trace"), filepath.Join("testdata", "fail_fast.trace")} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		checkChrome(t, tr, chromeOut(t, tr), false)
	})
}
