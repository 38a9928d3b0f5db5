package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// awkward are strings that stress the value and source encodings: integer
// look-alikes, quotes, escapes, spaces, the header's own markers, unicode,
// invalid UTF-8 and control bytes.
var awkward = []string{
	"", " ", "  ", "-", "--", "-0", "0", "007", "-5", "+5", "-5a", "5a", "1e3", "0x10",
	"9223372036854775808", "-9223372036854775809",
	`"`, `""`, `\`, `\n`, "'", "`", "a b", "a=b", "=", "a\tb", "\n", "\r", "\r\n", "\x00", "\xff", "\x7f",
	"é", "日本語", "🦀", "\u2028", "#", "# end", "#|", "#| x", "# source: 3", "# cbcsim-trace 1",
	"0 0 w1 pop task=t0", "t3", "w255", "join:n1", "a|b/c+d*e@f.g_h",
}

var (
	keyGen = rapid.StringMatching(`[a-z0-9_.-]{1,8}`)

	strGen = rapid.OneOf(
		rapid.SampledFrom(awkward),
		rapid.String(),
		rapid.StringMatching(`[A-Za-z_.:|/+*@-][A-Za-z0-9_.:|/+*@-]{0,6}`),
		rapid.Map(rapid.Int64(), func(v int64) string { return strconv.FormatInt(v, 10) }),
		rapid.Map(rapid.SliceOfN(rapid.SampledFrom(awkward), 1, 4), func(ss []string) string { return strings.Join(ss, "") }),
	)

	fieldGen = rapid.Custom(func(t *rapid.T) Field {
		key := keyGen.Draw(t, "key")
		if rapid.Bool().Draw(t, "isInt") {
			return I(key, rapid.Int64().Draw(t, "int"))
		}
		return S(key, strGen.Draw(t, "str"))
	})

	headerFieldGen = rapid.Custom(func(t *rapid.T) Field {
		f := fieldGen.Draw(t, "field")
		if f.Key == sourceKey {
			f.Key = "not-source"
		}
		return f
	})

	sourceGen = rapid.Custom(func(t *rapid.T) string {
		lines := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(awkward), rapid.String()), 0, 8).Draw(t, "lines")
		src := strings.Join(lines, "\n")
		if rapid.Bool().Draw(t, "trailingNewline") {
			src += "\n"
		}
		return src
	})

	actorGen = rapid.OneOf(
		rapid.Map(rapid.IntRange(0, 255), func(i int) string { return "w" + strconv.Itoa(i) }),
		rapid.Just("sim"),
		keyGen,
	)
)

// nilIfEmpty returns nil for an empty slice, as Parse and Recorder do.
func nilIfEmpty(fs []Field) []Field {
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// drawTrace draws a random header and a random event sequence with steps
// that never go backwards.
func drawTrace(t *rapid.T) (*Header, []Event) {
	h := &Header{
		// A header names each key once (Parse refuses a second).
		Fields: nilIfEmpty(rapid.SliceOfNDistinct(headerFieldGen, 0, 8, func(f Field) string { return f.Key }).Draw(t, "headerFields")),
		Source: sourceGen.Draw(t, "source"),
	}
	n := rapid.IntRange(0, 30).Draw(t, "events")
	step := rapid.OneOf(rapid.Uint64Range(0, 10), rapid.Uint64Range(1<<63, 1<<63+1<<40)).Draw(t, "step0")
	var events []Event
	for i := 0; i < n; i++ {
		step += rapid.Uint64Range(0, 3).Draw(t, "stepDelta")
		events = append(events, Event{
			Step:   step,
			Tick:   rapid.Uint64().Draw(t, "tick"),
			Actor:  actorGen.Draw(t, "actor"),
			Kind:   Kind(rapid.IntRange(int(KindPop), int(KindEnd)-1).Draw(t, "kind")),
			Fields: nilIfEmpty(rapid.SliceOfN(fieldGen, 0, 6).Draw(t, "fields")),
		})
	}
	return h, events
}

// TestRoundTrip checks Parse(encode(x)) == x and that encoding is a fixed
// point: encode(Parse(encode(x))) == encode(x) byte for byte.
// init names the shared generators once, before the parallel tests draw
// from them: rapid names a generator lazily, the first time a slice of it
// is made, and two tests doing that at once race on the name
// (TestRoundTrip and TestDiffProperties both draw drawTrace).
func init() {
	for _, g := range []interface{ String() string }{keyGen, strGen, fieldGen, headerFieldGen, sourceGen, actorGen} {
		_ = g.String()
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		h, events := drawTrace(t)
		var buf bytes.Buffer
		if _, err := writeTrace(&buf, h, events); err != nil {
			t.Fatal(err)
		}
		text := buf.Bytes()

		tr, err := Parse(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(tr.Header, *h) {
			t.Fatalf("header:\n got  %#v\n want %#v\n%s", tr.Header, *h, text)
		}
		if len(tr.Events) != len(events) {
			t.Fatalf("got %d events, want %d", len(tr.Events), len(events))
		}
		for i := range events {
			if !reflect.DeepEqual(tr.Events[i], events[i]) {
				t.Fatalf("event %d:\n got  %#v\n want %#v\n%s", i, tr.Events[i], events[i], text)
			}
		}
		headerLines := bytes.Count(text, []byte("\n")) - len(events)
		for i, l := range tr.Lines {
			if l != headerLines+i+1 {
				t.Fatalf("Lines[%d] = %d, want %d", i, l, headerLines+i+1)
			}
		}

		var again bytes.Buffer
		if _, err := tr.WriteTo(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), text) {
			t.Fatalf("re-encoding differs:\n%s", firstDiff(again.Bytes(), text))
		}

		// The streaming Writer, the Recorder and AppendEvent agree.
		var rec Recorder
		rec.Header = *h
		var lines []byte
		for i := range events {
			rec.Record(&events[i])
			lines = AppendEvent(lines, &events[i])
		}
		var recBuf bytes.Buffer
		if _, err := rec.WriteTo(&recBuf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(recBuf.Bytes(), text) {
			t.Fatalf("Recorder.WriteTo differs:\n%s", firstDiff(recBuf.Bytes(), text))
		}
		if !bytes.HasSuffix(text, lines) {
			t.Fatal("AppendEvent lines are not the event section")
		}
	})
}

// FuzzParse checks that Parse never panics, and that whenever it accepts an
// input, writing the result gives the input back byte for byte and parsing
// that again gives the same Trace.
func FuzzParse(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "small.trace"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	s := string(golden)
	for _, m := range []string{
		s[:len(s)/2],
		strings.Replace(s, "# end\n", "", 1),
		strings.Replace(s, "# source: 7", "# source: 7 nonl", 1),
		strings.Replace(s, "ops=3", `ops="3"`, 1),
		strings.Replace(s, "ops=3", "ops=-0", 1),
		strings.Replace(s, `msg="about`, `msg="\u00e9about`, 1),
		strings.Replace(s, "7 7 w0 park\n", "7 7 w0 park\n\n", 1),
		strings.Replace(s, "3 3 w0 steal", "2 3 w0 steal", 1),
		strings.Replace(s, "3 3 w0 steal", "1 3 w0 steal", 1),
		strings.Replace(s, "# seed: 42", "# seed: \"x y\"", 1),
		"# cbcsim-trace 1\n# source: 0\n# end\n",
		"# cbcsim-trace 1\n# source: 1 nonl\n#| x\n# end\n0 0 sim note\n",
		"# cbcsim-trace 1\n# source: 2\n#|\n#| \"\n# end\n18446744073709551615 18446744073709551615 w255 note a=-9223372036854775808 b=\"\\xff\" c=\"\"\n",
	} {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if _, err := tr.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("re-encoding an accepted trace changed it:\n%s", firstDiff(buf.Bytes(), data))
		}
		tr2, err := Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !reflect.DeepEqual(tr, tr2) {
			t.Fatal("re-parse gave a different Trace")
		}
	})
}
