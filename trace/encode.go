package trace

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Byte classes of the text form. A key or an actor is made of keyByte; a
// bare string value starts with bareFirst and goes on with bareRest. A digit
// cannot start a bare string, and '-' followed only by digits is an integer,
// so no bare string reads as an integer.
var keyByte, bareFirst, bareRest = byteClasses()

func byteClasses() (key, first, rest [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		key[c], first[c], rest[c] = true, true, true
		first[c-'a'+'A'], rest[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		key[c], rest[c] = true, true
	}
	for _, c := range "_.-" {
		key[c] = true
	}
	for _, c := range "_.:|/+*@-" {
		first[c], rest[c] = true, true
	}
	return key, first, rest
}

// validKey reports whether s matches [a-z0-9_.-]+, the grammar of keys and
// actors.
func validKey[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !keyByte[s[i]] {
			return false
		}
	}
	return true
}

// isBare reports whether the string value s is written without quotes: it
// is non-empty, matches [A-Za-z_.:|/+*@-][A-Za-z0-9_.:|/+*@-]*, and is not
// '-' followed only by digits.
func isBare[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 || !bareFirst[s[0]] {
		return false
	}
	digits := true
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !bareRest[c] {
			return false
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	return !(s[0] == '-' && len(s) > 1 && digits)
}

// appendValue appends the text form of f's value: decimal for an integer,
// the string itself when it is bare, else the Go-quoted string.
func appendValue(dst []byte, f *Field) []byte {
	if f.IsInt {
		return strconv.AppendInt(dst, f.Int, 10)
	}
	if isBare(f.Str) {
		return append(dst, f.Str...)
	}
	return strconv.AppendQuote(dst, f.Str)
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
	if !validKey(e.Actor) {
		panic(op + "bad actor")
	}
	if !e.Kind.valid() {
		panic(op + "bad kind")
	}
	dst = strconv.AppendUint(dst, e.Step, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, e.Tick, 10)
	dst = append(dst, ' ')
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
	dst = append(dst, versionPrefix...)
	dst = strconv.AppendInt(dst, FormatVersion, 10)
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

// Writer writes a trace in text form through a bufio.Writer: WriteHeader
// once, then WriteEvent for each event, then Flush. WriteEvent does not
// allocate. A Writer is used by one goroutine at a time.
//
// Misuse that would produce a trace Parse rejects (an event before the
// header, a second header, a step going backwards, a bad key, actor or kind)
// panics: it is a bug in the caller, not an input error.
type Writer struct {
	bw       *bufio.Writer
	line     []byte // reused for each event line
	stepLast uint64
	header   bool // WriteHeader has been called
	events   bool // WriteEvent has been called; stepLast is set
}

// bufSize is the size of the Writer's bufio buffer: large enough that a
// write to the underlying file happens every few hundred events.
const bufSize = 64 << 10

// NewWriter returns a Writer that writes to w through a buffer. Call Flush
// when done.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, bufSize), line: make([]byte, 0, 256)}
}

// WriteHeader writes the header block. It must be called exactly once,
// before any event.
func (w *Writer) WriteHeader(h *Header) error {
	if w.header {
		panic("trace: WriteHeader: header already written")
	}
	w.header = true
	buf := appendHeader(nil, h, "trace: WriteHeader: ")
	_, err := w.bw.Write(buf)
	return err
}

// WriteEvent writes one event line. e is not retained, so the caller may
// reuse it. Once the underlying writer has failed, every later call returns
// the same error.
func (w *Writer) WriteEvent(e *Event) error {
	if !w.header {
		panic("trace: WriteEvent: header not written")
	}
	if w.events && e.Step < w.stepLast {
		panic("trace: WriteEvent: step went backwards")
	}
	w.events, w.stepLast = true, e.Step
	w.line = appendEvent(w.line[:0], e, "trace: WriteEvent: ")
	_, err := w.bw.Write(w.line)
	return err
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.bw.Flush() }

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
