package trace

import (
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Byte classes of the text form, as bits of class[c]. A key or an actor is
// made of classKey bytes. A bare string value starts with a classFirst byte
// and goes on with classRest bytes; a digit cannot start one, and '-'
// followed only by digits is an integer, so no bare string reads as an
// integer. A quoted string made only of classPlain bytes is written by
// strconv.Quote as itself between quotes.
const (
	classKey   = 1 << iota // [a-z0-9_.-]
	classFirst             // [A-Za-z_.:|/+*@-]
	classRest              // [A-Za-z0-9_.:|/+*@-]
	classDigit             // [0-9]
	classPlain             // printable ASCII other than '"' and '\\'
)

var class = byteClasses()

func byteClasses() (t [256]uint8) {
	set := func(chars string, bits uint8) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= bits
		}
	}
	const lower, upper, digits = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
	set(lower+digits+"_.-", classKey)
	set(lower+upper+"_.:|/+*@-", classFirst)
	set(lower+upper+digits+"_.:|/+*@-", classRest)
	set(digits, classDigit)
	for c := 0x20; c < 0x7f; c++ {
		if c != '"' && c != '\\' {
			t[c] |= classPlain
		}
	}
	return t
}

// validKey reports whether s matches [a-z0-9_.-]+, the grammar of keys and
// actors.
func validKey[T ~string | ~[]byte](s T) bool {
	and := uint8(classKey)
	for i := 0; i < len(s); i++ {
		and &= class[s[i]]
	}
	return len(s) > 0 && and != 0
}

// classify reports whether the string value s is written bare (it is
// non-empty, matches [A-Za-z_.:|/+*@-][A-Za-z0-9_.:|/+*@-]*, and is not '-'
// followed only by digits), and whether it is plain (strconv.Quote would
// write it unescaped).
func classify[T ~string | ~[]byte](s T) (bare, plain bool) {
	if len(s) == 0 {
		return false, true
	}
	rest := uint8(0xff) // the classes that every byte after the first has
	for i := 1; i < len(s); i++ {
		rest &= class[s[i]]
	}
	first := class[s[0]]
	bare = first&classFirst != 0 && rest&classRest != 0 &&
		!(s[0] == '-' && len(s) > 1 && rest&classDigit != 0)
	plain = first&rest&classPlain != 0
	return bare, plain
}

// isBare reports whether the string value s is written without quotes.
func isBare[T ~string | ~[]byte](s T) bool {
	bare, _ := classify(s)
	return bare
}

// appendValue appends the text form of f's value: decimal for an integer,
// the string itself when it is bare, else the Go-quoted string.
func appendValue(dst []byte, f *Field) []byte {
	if f.IsInt {
		return appendInt(dst, f.Int)
	}
	bare, plain := classify(f.Str)
	switch {
	case bare:
		return append(dst, f.Str...)
	case plain:
		// What strconv.AppendQuote writes, without its rune decoding.
		dst = append(dst, '"')
		dst = append(dst, f.Str...)
		return append(dst, '"')
	default:
		return appendQuote(dst, f.Str)
	}
}

// appendUint is strconv.AppendUint(dst, u, 10), written here because the
// encoder calls it two or three times an event and strconv's general path
// (a 24-byte buffer formatted by formatBase10, then copied) was a tenth
// of a traced seeded step (docs/performance.md#the-trace-writer). It counts
// the digits
// first and writes them in place, two at a time. TestAppendUint checks it
// against strconv.
func appendUint(dst []byte, u uint64) []byte {
	if u < 10_000 {
		// A trace's steps, ticks and task ids are mostly under five
		// digits: written with one append, without counting the digits.
		return appendSmall(dst, u)
	}
	// The digit count: log10 from the bit length (1233/4096 is just
	// above log10(2)), corrected by one comparison.
	n := (bits.Len64(u) * 1233) >> 12
	if u >= pow10[n] {
		n++
	}
	dst = slices.Grow(dst, n)
	i := len(dst) + n
	dst = dst[:i]
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		dst[i], dst[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		dst[i-2], dst[i-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		dst[i-1] = byte('0' + u)
	}
	return dst
}

// appendSmall is appendUint for u under 10,000.
func appendSmall(dst []byte, u uint64) []byte {
	if u < 100 {
		if u < 10 {
			return append(dst, byte('0'+u))
		}
		return append(dst, digitPairs[u*2], digitPairs[u*2+1])
	}
	q := u / 100
	r := (u - q*100) * 2
	if q < 10 {
		return append(dst, byte('0'+q), digitPairs[r], digitPairs[r+1])
	}
	return append(dst, digitPairs[q*2], digitPairs[q*2+1], digitPairs[r], digitPairs[r+1])
}

// digitPairs holds "00" to "99", for appendUint.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// pow10[n] is 10^n; appendUint reads it up to n = 19.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendInt is strconv.AppendInt(dst, v, 10); see appendUint.
func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		// -v as a uint64 is right for every negative v, MinInt64 included.
		return appendUint(append(dst, '-'), uint64(-v))
	}
	return appendUint(dst, uint64(v))
}

// appendQuote is strconv.AppendQuote, faster for the common case of
// printable ASCII with quotes or backslashes in it. Anything else (control
// bytes, non-ASCII) is left to strconv. Parse checks every quoted value
// against strconv.AppendQuote, so the round-trip tests catch a difference.
func appendQuote(dst []byte, s string) []byte {
	start := len(dst)
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && class[s[j]]&classPlain != 0 {
			j++
		}
		dst = append(dst, s[i:j]...)
		if j == len(s) {
			break
		}
		switch c := s[j]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		default:
			return strconv.AppendQuote(dst[:start], s)
		}
		i = j + 1
	}
	return append(dst, '"')
}

// AppendEvent appends the text line of e, with its trailing '\n', to dst and
// returns the extended slice. It allocates only when dst must grow.
//
// A key or actor outside [a-z0-9_.-]+, or a Kind that is not one of the
// defined kinds, is a programming error in the caller, and AppendEvent panics
// ("trace: AppendEvent: bad key") rather than write a line that Parse would
// reject.
func AppendEvent(dst []byte, e *Event) []byte {
	return appendEvent(dst, e, "trace: AppendEvent: ")
}

// appendEvent is AppendEvent with the panic prefix of its public caller, so
// that a panic names the function the caller called.
func appendEvent(dst []byte, e *Event, op string) []byte {
	checkEvent(e, op)
	dst = appendUint(dst, e.Step)
	dst = append(dst, ' ')
	dst = appendUint(dst, e.Tick)
	dst = append(dst, ' ')
	return appendEventBody(dst, e, op)
}

// checkEvent panics if e's actor or kind is bad.
func checkEvent(e *Event, op string) {
	if !validKey(e.Actor) {
		panic(op + "bad actor")
	}
	if !e.Kind.valid() {
		panic(op + "bad kind")
	}
}

// appendEventBody appends e's line after its step and tick: the actor,
// the kind and the fields, checking each field's key.
func appendEventBody(dst []byte, e *Event, op string) []byte {
	dst = append(dst, e.Actor...)
	dst = append(dst, ' ')
	dst = append(dst, kindNames[e.Kind]...)
	for i := range e.Fields {
		f := &e.Fields[i]
		if !validKey(f.Key) {
			panic(op + "bad key")
		}
		dst = append(dst, ' ')
		dst = append(dst, f.Key...)
		dst = append(dst, '=')
		dst = appendValue(dst, f)
	}
	return append(dst, '\n')
}

// Header lines. The version line, "# source: N" and "# end" frame the
// caller's fields and the embedded source.
const (
	versionPrefix = "# cbcsim-trace "
	sourceKey     = "source"
	sourceNoNL    = " nonl" // after the count: the source does not end in '\n'
	sourceLine    = "#|"
	endLine       = "# end"
)

// appendHeader appends the header block of h: the version line, one line per
// field, the source count and lines, and "# end". Field keys are checked as
// in appendEvent; "source" is reserved for the source count.
func appendHeader(dst []byte, h *Header, op string) []byte {
	v := h.Version
	if v == 0 {
		v = FormatVersion
	}
	dst = append(dst, versionPrefix...)
	dst = strconv.AppendInt(dst, int64(v), 10)
	dst = append(dst, '\n')
	for i := range h.Fields {
		f := &h.Fields[i]
		if !validKey(f.Key) || f.Key == sourceKey {
			panic(op + "bad key")
		}
		dst = append(dst, "# "...)
		dst = append(dst, f.Key...)
		dst = append(dst, ": "...)
		dst = appendValue(dst, f)
		dst = append(dst, '\n')
	}
	// The source is split at '\n'. A source ending in '\n' has that final
	// newline implied by the line structure; one that does not is marked
	// "nonl" so that it round-trips exactly. The empty source has no lines.
	src, nonl := h.Source, false
	if src != "" {
		if strings.HasSuffix(src, "\n") {
			src = src[:len(src)-1]
		} else {
			nonl = true
		}
	}
	lines := 0
	if h.Source != "" {
		lines = strings.Count(src, "\n") + 1
	}
	dst = append(dst, "# "+sourceKey+": "...)
	dst = strconv.AppendInt(dst, int64(lines), 10)
	if nonl {
		dst = append(dst, sourceNoNL...)
	}
	dst = append(dst, '\n')
	for n := 0; n < lines; n++ {
		line, rest, _ := strings.Cut(src, "\n")
		src = rest
		dst = append(dst, sourceLine...)
		if line != "" {
			dst = append(dst, ' ')
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
	}
	dst = append(dst, endLine...)
	return append(dst, '\n')
}

// Writer writes a trace in text form through a buffer of its own:
// WriteHeader once, then WriteEvent for each event, then Flush. Each line
// is encoded straight into the buffer, not into a line of its own copied
// into a bufio.Writer (a call and a copy an event, about 5% of a traced
// seeded step: docs/performance.md#the-trace-writer). WriteEvent does not
// allocate. A
// Writer is used by one goroutine at a time.
//
// Misuse that would produce a trace Parse rejects (an event before the
// header, a second header, a step going backwards, a bad key, actor or kind)
// panics: it is a bug in the caller, not an input error. A line that
// panics half-encoded is not kept: the buffer's length is set only once
// the line is whole.
type Writer struct {
	out    io.Writer
	buf    []byte // the encoded lines not yet written out; no room until WriteHeader
	err    error  // the first write error, returned by every later call
	header bool   // WriteHeader has been called
	// pre is the step and tick of the last event, as text (WriteRunTail):
	// steps start at 0, and pre.step is the step an event must not go
	// below.
	pre prefix
	// texts is the text of the event heads, keys and fields written so
	// far (WriteEvent).
	texts textCache
}

// bufSize is how much the Writer buffers before writing to the underlying
// file: a write every few hundred events. The buffer has lineSlack bytes
// more, so that the line that fills it does not make it grow.
const (
	bufSize   = 64 << 10
	lineSlack = 4 << 10
)

// NewWriter returns a Writer that writes to w through a buffer. Call Flush
// when done.
func NewWriter(w io.Writer) *Writer {
	return &Writer{out: w, pre: newPrefix()}
}

// WriteHeader writes the header block. It must be called exactly once,
// before any event. A field key outside [a-z0-9_.-]+, or the reserved key
// "source", panics ("trace: WriteHeader: bad key").
func (w *Writer) WriteHeader(h *Header) error {
	if w.header {
		panic("trace: WriteHeader: header already written")
	}
	w.header = true
	// The buffer is made here, so that before the header it has no room
	// and WriteRunTail's fast path, which checks the room, need not check
	// the header too.
	w.buf = make([]byte, 0, bufSize+lineSlack)
	w.buf = appendHeader(w.buf, h, "trace: WriteHeader: ")
	return w.spill()
}

// WriteEvent writes one event line. e is not retained, so the caller may
// reuse it. Once the underlying writer has failed, every later call returns
// the same error.
func (w *Writer) WriteEvent(e *Event) error {
	if !w.header {
		panic("trace: WriteEvent: header not written")
	}
	if e.Step < w.pre.step {
		panic("trace: WriteEvent: step went backwards")
	}
	w.buf = w.texts.appendBody(w.appendPrefix(e.Step, e.Tick), e, "trace: WriteEvent: ")
	return w.spill()
}

// WriteRun writes the run event "STEP TICK ACTOR run task=ID", what
// WriteEvent writes for an Event of kind run with the one field task=ID.
// A caller that writes many run lines of the same actor and task keeps
// their RunTail and calls WriteRunTail instead.
func (w *Writer) WriteRun(step, tick uint64, actor string, task int64) error {
	const op = "trace: WriteRun: "
	if !w.header {
		panic(op + "header not written")
	}
	if step < w.pre.step {
		panic(op + "step went backwards")
	}
	if !validKey(actor) {
		panic(op + "bad actor")
	}
	t := NewRunTail(actor, task)
	return w.WriteRunTail(step, tick, &t)
}

// spill writes the buffer out once it holds bufSize bytes, and returns
// the Writer's error.
func (w *Writer) spill() error {
	if len(w.buf) < bufSize {
		return w.err
	}
	return w.Flush()
}

// Flush writes the buffered lines to the underlying writer. After a failed
// write the lines are dropped and every later call returns its error, as
// a bufio.Writer does.
func (w *Writer) Flush() error {
	if w.err != nil || len(w.buf) == 0 {
		w.buf = w.buf[:0]
		return w.err
	}
	n, err := w.out.Write(w.buf)
	if err == nil && n < len(w.buf) {
		err = io.ErrShortWrite
	}
	w.buf, w.err = w.buf[:0], err
	return err
}

// countWriter counts the bytes written through it, for WriteTo.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeTrace writes a whole trace and returns the bytes written.
func writeTrace(w io.Writer, h *Header, events []Event) (int64, error) {
	cw := &countWriter{w: w}
	tw := NewWriter(cw)
	if err := tw.WriteHeader(h); err != nil {
		return cw.n, err
	}
	for i := range events {
		if err := tw.WriteEvent(&events[i]); err != nil {
			return cw.n, err
		}
	}
	err := tw.Flush()
	return cw.n, err
}
