package chrome

import (
	"errors"
	"flag"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/trace"
)

// The generators of random traces and the helpers the trace package's own
// tests use, repeated here: test code is not importable across packages.

var update = flag.Bool("update", false, "rewrite testdata/*.json from the current exporter")

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

	fieldGen = rapid.Custom(func(t *rapid.T) trace.Field {
		key := keyGen.Draw(t, "key")
		if rapid.Bool().Draw(t, "isInt") {
			return trace.I(key, rapid.Int64().Draw(t, "int"))
		}
		return trace.S(key, strGen.Draw(t, "str"))
	})

	headerFieldGen = rapid.Custom(func(t *rapid.T) trace.Field {
		f := fieldGen.Draw(t, "field")
		if f.Key == "source" { // the header key of the embedded scenario
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
func nilIfEmpty(fs []trace.Field) []trace.Field {
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// drawTrace draws a random header and a random event sequence with steps
// that never go backwards.
func drawTrace(t *rapid.T) (*trace.Header, []trace.Event) {
	h := &trace.Header{
		Fields: nilIfEmpty(rapid.SliceOfN(headerFieldGen, 0, 8).Draw(t, "headerFields")),
		Source: sourceGen.Draw(t, "source"),
	}
	n := rapid.IntRange(0, 30).Draw(t, "events")
	step := rapid.OneOf(rapid.Uint64Range(0, 10), rapid.Uint64Range(1<<63, 1<<63+1<<40)).Draw(t, "step0")
	var events []trace.Event
	for i := 0; i < n; i++ {
		step += rapid.Uint64Range(0, 3).Draw(t, "stepDelta")
		events = append(events, trace.Event{
			Step:   step,
			Tick:   rapid.Uint64().Draw(t, "tick"),
			Actor:  actorGen.Draw(t, "actor"),
			Kind:   trace.Kind(rapid.IntRange(int(trace.KindPop), int(trace.KindEnd)-1).Draw(t, "kind")),
			Fields: nilIfEmpty(rapid.SliceOfN(fieldGen, 0, 6).Draw(t, "fields")),
		})
	}
	return h, events
}

// badBase is a valid trace; the table below breaks it in one place.
const badBase = `# cbcsim-trace 1
# name: "fail fast"
# seed: 42
# source: 2
#| a = 1
#|
# end
`

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space") }
