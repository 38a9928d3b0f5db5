package trace

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.trace from the current encoder")

// encode returns the text form of a trace.
func encode(t testing.TB, h *Header, events []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := writeTrace(&buf, h, events)
	if err != nil {
		t.Fatalf("writeTrace: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("writeTrace returned %d bytes, wrote %d", n, buf.Len())
	}
	return buf.Bytes()
}

// smallTrace is the hand-built trace of testdata/small.trace: one of each
// kind, the value forms (bare, quoted, integer, empty) and a source with
// comments, quotes, a blank line and unicode.
func smallTrace() (*Header, []Event) {
	h := &Header{
		Fields: []Field{
			S("name", "fail fast"),
			S("scenario-sha256", "9f2c1e0b7a"),
			I("seed", 42),
			I("workers", 2),
			S("victim", "random"),
			S("profile", "default"),
			I("yield_interval", 64),
			I("max_steps", 100000),
		},
		Source: `version = 1
name = "fail fast"  # the first child fails

[[task]]
id = "t0"
# end
log = "héllo"
`,
	}
	ev := func(step, tick uint64, actor string, k Kind, fs ...Field) Event {
		if len(fs) == 0 {
			fs = nil
		}
		return Event{Step: step, Tick: tick, Actor: actor, Kind: k, Fields: fs}
	}
	events := []Event{
		ev(0, 0, "sim", KindSpawn, S("task", "t0"), S("nursery", "n0")),
		ev(0, 0, "w1", KindGlobal, S("task", "t0")),
		ev(1, 1, "w1", KindRun, S("task", "t0"), I("ops", 3)),
		ev(1, 1, "w1", KindSpawn, S("task", "t1"), S("parent", "t0"), S("nursery", "n1")),
		ev(1, 1, "w1", KindNursery, S("nursery", "n1"), S("from", "open"), S("to", "running")),
		ev(2, 2, "w0", KindStealFail, S("victim", "w1"), S("reason", "empty")),
		ev(3, 3, "w0", KindSteal, S("victim", "w1"), S("task", "t1")),
		ev(4, 4, "w0", KindRun, S("task", "t1")),
		ev(4, 4, "w0", KindLog, S("task", "t1"), S("msg", `about to fail: "boom"`)),
		ev(4, 4, "w0", KindResult, S("task", "t1"), S("err", "boom"), S("value", "")),
		ev(4, 4, "w0", KindCancel, S("nursery", "n1"), S("reason", "first-error")),
		ev(5, 5, "w1", KindPop, S("task", "t0")),
		ev(5, 5, "w1", KindExhausted, S("task", "t0"), I("budget", 0)),
		ev(5, 5, "w1", KindRecharge, S("task", "t0"), I("budget", 64)),
		ev(5, 5, "w1", KindYield, S("task", "t0"), S("reason", "budget")),
		ev(6, 6, "w1", KindBlock, S("task", "t0"), S("on", "join:n1")),
		ev(7, 7, "w0", KindPark),
		ev(8, 40, "sim", KindClock, I("from", 7), I("to", 40)),
		ev(8, 40, "w1", KindWake, S("task", "t0"), S("by", "timer")),
		ev(8, 40, "w1", KindDecide, S("next-slot", "yes"), S("task", "t0")),
		ev(8, 40, "w1", KindChan, I("task", 2), S("op", "recv"), S("ch", "c"), I("peer", 1), S("via", "buffer")),
		ev(8, 40, "w1", KindLock, I("task", 2), S("op", "lock"), S("on", "mutex#1")),
		ev(9, 41, "w1", KindObserve, S("task", "t0"), S("at", "checkpoint"), S("id", "-7")),
		ev(9, 41, "w1", KindCleanup, S("task", "t0")),
		ev(10, 42, "sim", KindNote, S("text", "deadlock and livelock below are examples")),
		ev(10, 42, "sim", KindDeadlock, I("parked", 2)),
		ev(10, 42, "sim", KindLivelock, I("steps", -1)),
		ev(11, 43, "sim", KindOutcome, S("status", "error"), S("err", "boom"), I("steps", 11)),
	}
	return h, events
}

func TestGolden(t *testing.T) {
	t.Parallel()
	h, events := smallTrace()
	got := encode(t, h, events)
	path := filepath.Join("testdata", "small.trace")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./trace -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encoding differs from %s (run go test ./trace -update to accept):\n%s", path, firstDiff(got, want))
	}

	// The golden file parses back to the hand-built trace.
	tr, err := Parse(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Header, *h) {
		t.Errorf("header: got %#v, want %#v", tr.Header, *h)
	}
	if !reflect.DeepEqual(tr.Events, events) {
		t.Errorf("events differ: got %#v", tr.Events)
	}
	headerLines := bytes.Count(want, []byte("\n")) - len(events)
	for i, l := range tr.Lines {
		if l != headerLines+i+1 {
			t.Fatalf("Lines[%d] = %d, want %d", i, l, headerLines+i+1)
		}
	}
	// Every kind appears in the golden trace.
	seen := map[Kind]bool{}
	for _, e := range tr.Events {
		seen[e.Kind] = true
	}
	for k := KindPop; k < KindEnd; k++ {
		if !seen[k] {
			t.Errorf("kind %v missing from the golden trace", k)
		}
	}
}

// firstDiff describes the first line where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n  got:  " + x + "\n  want: " + y
		}
	}
	return "(no line differs)"
}

func itoa(i int) string { return strconv.Itoa(i) }

// badBase is a valid trace; the table below breaks it in one place.
const badBase = `# cbcsim-trace 1
# name: "fail fast"
# seed: 42
# source: 2
#| a = 1
#|
# end
`

func TestParseErrors(t *testing.T) {
	t.Parallel()
	hdr := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	ev := func(lines ...string) string { return badBase + strings.Join(lines, "\n") + "\n" }
	tests := []struct {
		name  string
		input string
		line  int
		msg   string // a substring of the message
	}{
		{"empty input", "", 1, "missing format version"},
		{"no version line", "hello\n", 1, "missing format version"},
		{"version 4", hdr("# cbcsim-trace 4", "# source: 0", "# end"), 1, "unknown format version 4: this build reads versions 1 to 3"},
		{"version 0", hdr("# cbcsim-trace 0", "# source: 0", "# end"), 1, "unknown format version 0"},
		{"version 01", hdr("# cbcsim-trace 01", "# source: 0", "# end"), 1, "bad format version"},
		{"version garbage", hdr("# cbcsim-trace 1 x", "# source: 0", "# end"), 1, "bad format version"},
		{"header only version", hdr("# cbcsim-trace 1"), 2, "missing \"# source: N\" line"},
		{"end before source", hdr("# cbcsim-trace 1", "# seed: 1", "# end"), 3, "before \"# end\""},
		{"header without space", hdr("# cbcsim-trace 1", "#seed: 1"), 2, "malformed header line"},
		{"header bad key", hdr("# cbcsim-trace 1", "# Seed: 1"), 2, "malformed header line"},
		{"header no colon space", hdr("# cbcsim-trace 1", "# seed:1"), 2, "malformed header line"},
		{"header event line", hdr("# cbcsim-trace 1", "0 0 w1 pop"), 2, "malformed header line"},
		{"header leading zero", hdr("# cbcsim-trace 1", "# seed: 042"), 2, "non-canonical integer"},
		{"header unterminated", hdr("# cbcsim-trace 1", `# name: "fail`), 2, "unterminated quote"},
		{"header quoted bare", hdr("# cbcsim-trace 1", `# name: "fail"`), 2, "must be written bare"},
		{"header trailing garbage", hdr("# cbcsim-trace 1", "# seed: 42 x"), 2, "trailing garbage"},
		{"header missing value", hdr("# cbcsim-trace 1", "# seed: "), 2, "missing value"},
		{"source count bad", hdr("# cbcsim-trace 1", "# source: x"), 2, "bad source line count"},
		{"source count nonl zero", hdr("# cbcsim-trace 1", "# source: 0 nonl"), 2, "empty source"},
		{"source line prefix", hdr("# cbcsim-trace 1", "# source: 1", "#|x"), 3, "want prefix"},
		{"source empty line with space", hdr("# cbcsim-trace 1", "# source: 2", "#| a", "#| "), 4, "without a space"},
		{"source nonl ends empty", hdr("# cbcsim-trace 1", "# source: 2 nonl", "#| a", "#|"), 4, "ends in an empty line"},
		{"source too few lines", hdr("# cbcsim-trace 1", "# source: 3", "#| a", "# end"), 4, "source line 2 of 3"},
		{"source lines cut", hdr("# cbcsim-trace 1", "# source: 3", "#| a"), 4, "got 1 of 3"},
		{"missing end", hdr("# cbcsim-trace 1", "# source: 1", "#| a"), 4, "missing \"# end\""},
		{"end replaced", hdr("# cbcsim-trace 1", "# source: 1", "#| a", "0 0 w1 pop"), 4, "want \"# end\""},
		{"unknown kind", ev("0 0 w1 pop", "1 1 w1 frob"), 9, "unknown kind \"frob\""},
		{"bad step", ev("x 0 w1 pop"), 8, "bad step"},
		{"negative step", ev("-1 0 w1 pop"), 8, "bad step"},
		{"step leading zero", ev("01 0 w1 pop"), 8, "bad step"},
		{"step overflow", ev("18446744073709551616 0 w1 pop"), 8, "bad step"},
		{"bad tick", ev("0 t w1 pop"), 8, "bad tick"},
		{"bad actor", ev("0 0 W1 pop"), 8, "bad actor"},
		{"missing kind", ev("0 0 w1"), 8, "missing kind"},
		{"missing tick", ev("0"), 8, "missing tick"},
		{"step backwards", ev("5 0 w1 pop", "5 0 w1 run", "4 0 w1 pop"), 10, "goes backwards: the event on line 9"},
		{"field without =", ev("0 0 w1 pop task"), 8, "malformed field"},
		{"field empty key", ev("0 0 w1 pop =t0"), 8, "malformed field"},
		{"field bad key", ev("0 0 w1 pop Task=t0"), 8, "malformed field"},
		{"field missing value", ev("0 0 w1 pop task="), 8, "missing value"},
		{"unterminated quote", ev(`0 0 w1 log msg="abc`), 8, "unterminated quote"},
		{"escaped final quote", ev(`0 0 w1 log msg="abc\"`), 8, "unterminated quote"},
		{"garbage after quote", ev(`0 0 w1 log msg="a b"c`), 8, "trailing garbage"},
		{"trailing space", ev("0 0 w1 pop "), 8, "trailing space"},
		{"trailing space after field", ev("0 0 w1 pop task=t0 "), 8, "trailing space"},
		{"double space", ev("0  0 w1 pop"), 8, "bad tick"},
		{"double space before field", ev("0 0 w1 pop  task=t0"), 8, "malformed field"},
		{"blank line", ev("0 0 w1 pop", "", "1 1 w1 pop"), 9, "blank line"},
		{"comment in events", ev("0 0 w1 pop", "# note"), 9, "header line after"},
		{"no final newline", badBase + "0 0 w1 pop", 8, "missing newline"},
		{"crlf", strings.ReplaceAll(ev("0 0 w1 pop"), "\n", "\r\n"), 1, "bad format version"},
		{"crlf event", ev("0 0 w1 pop\r"), 8, "unknown kind"},
		{"int out of range", ev("0 0 w1 run n=9223372036854775808"), 8, "out of range"},
		{"minus zero", ev("0 0 w1 run n=-0"), 8, "non-canonical integer"},
		{"int leading zero", ev("0 0 w1 run n=007"), 8, "non-canonical integer"},
		{"digit then letters", ev("0 0 w1 run h=3fa"), 8, "malformed value"},
		{"bad byte in value", ev("0 0 w1 run v=a=b"), 8, "malformed value"},
		{"quoted could be bare", ev(`0 0 w1 log msg="t0"`), 8, "must be written bare"},
		{"non-canonical escape", ev(`0 0 w1 log msg="\u00e9 x"`), 8, "non-canonical quoted string"},
		{"hex escape for ascii", ev(`0 0 w1 log msg="\x41 b"`), 8, "non-canonical quoted string"},
		{"bad escape", ev(`0 0 w1 log msg="\q"`), 8, "bad quoted string"},
		{"single quotes", ev(`0 0 w1 log msg='a'`), 8, "malformed value"},
		{"backquotes", ev("0 0 w1 log msg=`a`"), 8, "malformed value"},
		{"raw tab in quotes", ev("0 0 w1 log msg=\"a\tb\""), 8, "non-canonical quoted string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Parse(strings.NewReader(tc.input))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", tr)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("got %q, want line %d containing %q", err, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "line "+itoa(tc.line)+": ") {
				t.Errorf("Error() = %q, want prefix %q", err, "line N: ")
			}
		})
	}
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestParseReadError(t *testing.T) {
	t.Parallel()
	_, err := Parse(&errReader{data: []byte(badBase + "0 0 w1 pop\n"), err: errors.New("disk on fire")})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 9 || !strings.Contains(pe.Msg, "disk on fire") {
		t.Fatalf("got %v, want a *ParseError on line 9 naming the read error", err)
	}
}

func TestParseLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200_000)
	h := &Header{Source: long + "\n" + long}
	events := []Event{{Actor: "w0", Kind: KindLog, Fields: []Field{S("msg", long), S("q", long+" "+long)}}}
	text := encode(t, h, events)
	tr, err := Parse(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Source != h.Source || !reflect.DeepEqual(tr.Events, events) {
		t.Fatal("long lines did not round-trip")
	}
}

func TestSourceForms(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "#\n#|\n# end", "\r\n", "x\n\n"} {
		h := &Header{Source: src}
		text := encode(t, h, nil)
		tr, err := Parse(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("source %q: %v\n%s", src, err, text)
		}
		if tr.Header.Source != src {
			t.Errorf("source %q came back as %q", src, tr.Header.Source)
		}
	}
}

func TestValueForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    Field
		text string
	}{
		{I("n", 0), "n=0"},
		{I("n", -12), "n=-12"},
		{S("s", "t3"), "s=t3"},
		{S("s", "-"), "s=-"},
		{S("s", "-5a"), "s=-5a"},
		{S("s", "+5"), "s=+5"},
		{S("s", "join:n1/a|b*c@d"), "s=join:n1/a|b*c@d"},
		{S("s", ""), `s=""`},
		{S("s", "5"), `s="5"`},
		{S("s", "-5"), `s="-5"`},
		{S("s", "007"), `s="007"`},
		{S("s", "a b"), `s="a b"`},
		{S("s", `a"b`), `s="a\"b"`},
		{S("s", "a=b"), `s="a=b"`},
		{S("s", "é"), `s="é"`},
		{S("s", "\xff"), `s="\xff"`},
	}
	for _, tc := range tests {
		e := Event{Step: 1, Tick: 2, Actor: "w0", Kind: KindNote, Fields: []Field{tc.f}}
		got := string(AppendEvent(nil, &e))
		want := "1 2 w0 note " + tc.text + "\n"
		if got != want {
			t.Errorf("%+v: got %q, want %q", tc.f, got, want)
		}
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	want := "pop global steal steal-fail park run yield block wake exhausted recharge " +
		"spawn nursery cancel observe cleanup log result clock outcome deadlock livelock note decide chan lock"
	var names []string
	for k := KindPop; k < KindEnd; k++ {
		names = append(names, k.String())
		if got, ok := ParseKind(k.String()); !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, ok)
		}
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("kinds in order:\n got  %s\n want %s", got, want)
	}
	if _, ok := ParseKind("frob"); ok {
		t.Error(`ParseKind("frob") succeeded`)
	}
	if s := Kind(0).String(); s != "kind(0)" {
		t.Errorf("Kind(0).String() = %q", s)
	}
}

func TestHeaderGet(t *testing.T) {
	t.Parallel()
	h := Header{Fields: []Field{I("seed", 42), S("name", "a"), S("name", "b")}}
	if f, ok := h.Get("seed"); !ok || f.Int != 42 || !f.IsInt {
		t.Errorf("Get(seed) = %+v, %v", f, ok)
	}
	if f, ok := h.Get("name"); !ok || f.Str != "a" {
		t.Errorf("Get(name) = %+v, %v; want the first", f, ok)
	}
	if _, ok := h.Get("workers"); ok {
		t.Error("Get(workers) found a missing key")
	}
}

func TestWriterPanics(t *testing.T) {
	t.Parallel()
	good := &Event{Actor: "w0", Kind: KindPop}
	tests := []struct {
		name string
		do   func(w *Writer)
		want string
	}{
		{"bad key", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Actor: "w0", Kind: KindPop, Fields: []Field{S("Task", "t0")}})
		}, "trace: WriteEvent: bad key"},
		{"empty key", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Actor: "w0", Kind: KindPop, Fields: []Field{I("", 1)}})
		}, "trace: WriteEvent: bad key"},
		{"bad actor", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Actor: "w 0", Kind: KindPop})
		}, "trace: WriteEvent: bad actor"},
		{"zero kind", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Actor: "w0"})
		}, "trace: WriteEvent: bad kind"},
		{"step backwards", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Step: 2, Actor: "w0", Kind: KindPop})
			w.WriteEvent(&Event{Step: 1, Actor: "w0", Kind: KindPop})
		}, "trace: WriteEvent: step went backwards"},
		{"no header", func(w *Writer) { w.WriteEvent(good) }, "trace: WriteEvent: header not written"},
		{"run, no header", func(w *Writer) { w.WriteRun(0, 0, "w0", 1) }, "trace: WriteRun: header not written"},
		{"run tail, no header", func(w *Writer) {
			t := NewRunTail("w0", 1)
			w.WriteRunTail(0, 0, &t) // step and tick are the kept text's: only the missing room tells
		}, "trace: WriteRunTail: header not written"},
		{"run tail, step backwards", func(w *Writer) {
			w.WriteHeader(&Header{})
			t := NewRunTail("w0", 1)
			w.WriteRunTail(5, 5, &t)
			w.WriteRunTail(4, 6, &t)
		}, "trace: WriteRunTail: step went backwards"},
		{"run after an event, step backwards", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteEvent(&Event{Step: 2, Actor: "w0", Kind: KindPop})
			w.WriteRun(1, 1, "w0", 1)
		}, "trace: WriteRun: step went backwards"},
		{"run, bad actor", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteRun(0, 0, "W0", 1)
		}, "trace: WriteRun: bad actor"},
		{"two headers", func(w *Writer) {
			w.WriteHeader(&Header{})
			w.WriteHeader(&Header{})
		}, "trace: WriteHeader: header already written"},
		{"header key source", func(w *Writer) {
			w.WriteHeader(&Header{Fields: []Field{I("source", 1)}})
		}, "trace: WriteHeader: bad key"},
		{"header bad key", func(w *Writer) {
			w.WriteHeader(&Header{Fields: []Field{I("a b", 1)}})
		}, "trace: WriteHeader: bad key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.do(NewWriter(io.Discard))
		})
	}
	t.Run("AppendEvent", func(t *testing.T) {
		defer func() {
			if r := recover(); r != "trace: AppendEvent: bad key" {
				t.Errorf("panic %v", r)
			}
		}()
		AppendEvent(nil, &Event{Actor: "w0", Kind: KindPop, Fields: []Field{S("k=", "v")}})
	})
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space") }

func TestWriterError(t *testing.T) {
	t.Parallel()
	w := NewWriter(failWriter{})
	if err := w.WriteHeader(&Header{}); err != nil {
		t.Fatalf("WriteHeader buffered, should not fail yet: %v", err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush: want the writer's error")
	}
	if err := w.WriteEvent(&Event{Actor: "w0", Kind: KindPop}); err == nil {
		t.Fatal("WriteEvent after a failed flush: want the sticky error")
	}
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	h, events := smallTrace()
	var r Recorder
	r.Header = *h
	// One Event value, reused and overwritten as the scheduler does.
	var e Event
	for i := range events {
		e.Step, e.Tick, e.Actor, e.Kind = events[i].Step, events[i].Tick, events[i].Actor, events[i].Kind
		e.Fields = append(e.Fields[:0], events[i].Fields...)
		r.Record(&e)
		for j := range e.Fields {
			e.Fields[j] = S("clobbered", "x")
		}
	}
	if !reflect.DeepEqual(r.Events, events) {
		t.Fatalf("recorded events differ from the originals:\n%#v", r.Events)
	}
	// Appending to a recorded Fields slice must not touch its neighbour.
	_ = append(r.Events[0].Fields, S("extra", "y"))
	if !reflect.DeepEqual(r.Events[1], events[1]) {
		t.Fatal("append to one event's Fields overwrote the next")
	}

	var buf bytes.Buffer
	n, err := r.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d, %v (wrote %d)", n, err, buf.Len())
	}
	want, err := os.ReadFile(filepath.Join("testdata", "small.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Recorder.WriteTo differs from the golden file:\n%s", firstDiff(buf.Bytes(), want))
	}

	// A parsed trace writes back byte for byte.
	tr, err := Parse(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if _, err := tr.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Trace.WriteTo: %v\n%s", err, firstDiff(buf.Bytes(), want))
	}

	defer func() {
		if r := recover(); r != "trace: Record: step went backwards" {
			t.Errorf("panic %v", r)
		}
	}()
	r.Record(&Event{Step: 0, Actor: "w0", Kind: KindPop})
}

func TestWriteEventAllocs(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.WriteHeader(&Header{}); err != nil {
		t.Fatal(err)
	}
	e := Event{Actor: "w3", Kind: KindSteal}
	allocs := testing.AllocsPerRun(10000, func() {
		e.Step++
		e.Tick += 2
		e.Fields = append(e.Fields[:0],
			S("victim", "w1"), S("task", "t1234"), I("ops", -17),
			S("msg", `quoted "text" with spaces é`), S("empty", ""))
		if err := w.WriteEvent(&e); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("WriteEvent: %v allocations per call, want 0", allocs)
	}
}

// TestDocExample keeps the example in docs/trace-format.md parseable and
// canonical.
func TestDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "trace-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Example\n\n```\n")
	example, _, ok2 := strings.Cut(after, "```\n")
	if !ok || !ok2 {
		t.Fatal("no example block under \"## Example\" in docs/trace-format.md")
	}
	tr, err := Parse(strings.NewReader(example))
	if err != nil {
		t.Fatalf("docs/trace-format.md example: %v", err)
	}
	var buf bytes.Buffer
	if _, err := tr.WriteTo(&buf); err != nil || buf.String() != example {
		t.Errorf("docs example does not re-encode to itself: %v\n%s", err, firstDiff(buf.Bytes(), []byte(example)))
	}
}

// TestManyFields crosses the Fields slabs of Parse and Recorder many times,
// including events whose fields straddle a slab boundary or outgrow a slab.
func TestManyFields(t *testing.T) {
	t.Parallel()
	var rec Recorder
	var e Event
	for i := 0; i < 3000; i++ {
		e = Event{Step: uint64(i), Actor: "w0", Kind: KindNote, Fields: e.Fields[:0]}
		n := i % 41
		if i == 2000 {
			n = 3 * slabSize
		}
		for j := 0; j < n; j++ {
			e.Fields = append(e.Fields, I("k"+strconv.Itoa(j), int64(i*j)))
		}
		rec.Record(&e)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	tr, err := Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rec.Events {
		if !reflect.DeepEqual(tr.Events[i], rec.Events[i]) {
			t.Fatalf("event %d differs after parsing", i)
		}
		if f := tr.Events[i].Fields; cap(f) != len(f) {
			t.Fatalf("event %d: Fields cap %d > len %d", i, cap(f), len(f))
		}
	}
}
