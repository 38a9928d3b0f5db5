package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The limits on what Parse reads (docs/reliability.md). The longest line
// cbcsim writes holds one value from a scenario, itself at most 256 KiB,
// quoted; the largest trace is a run at the simulator's event limit with
// long labels. Past either, Parse stops with a *ParseError at once, having
// read at most the limit: /dev/zero is an error, not a hang.
const (
	MaxLineBytes = 4 << 20
	MaxBytes     = 512 << 20
)

// Trace is a parsed trace.
type Trace struct {
	Version int // the format version read, MinFormatVersion..FormatVersion
	Header  Header
	Events  []Event
	Lines   []int // the 1-based input line of each event, for messages

	// Where the header's parts were read, for messages about their values:
	// the line of each field, in the order of Header.Fields, and the line
	// of "# source: N" (source line i, 1-based, is line SourceLine+i).
	FieldLines []int
	SourceLine int
}

// FieldLine is the input line of the first header field with the given
// key, or 0.
func (t *Trace) FieldLine(key string) int {
	for i, f := range t.Header.Fields {
		if f.Key == key && i < len(t.FieldLines) {
			return t.FieldLines[i]
		}
	}
	return 0
}

// ParseError is the error Parse returns: what was wrong, and on which
// 1-based line. A problem found at the end of the input (a missing "# end")
// names the line after the last one.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Msg }

// Parse reads a whole trace. It accepts exactly the text the Writer
// produces: every value must be written the way the encoder writes it (no
// leading zeros, no quotes around a string that could be bare, strconv.Quote's
// escapes), so re-encoding a parsed trace gives back the input byte for byte.
// Every error, including a read error, is a *ParseError. Parse does not
// panic on any input.
func Parse(r io.Reader) (*Trace, error) {
	p := &parser{
		r:    bufio.NewReaderSize(r, 64<<10),
		strs: make(map[string]string),
	}
	t := &Trace{}
	if err := p.header(t); err != nil {
		return nil, err
	}
	err := p.events(func(e *Event, line int) error {
		t.Events = append(t.Events, *e)
		t.Lines = append(t.Lines, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ParseEach parses a whole trace as Parse does, but hands each event to
// each, with its line, instead of keeping it: the Trace it returns has the
// header and no events, and a trace is checked in memory that does not grow
// with its length. The event and its Fields are valid until each returns;
// an error from each stops the parse and is returned as it is.
func ParseEach(r io.Reader, each func(e *Event, line int) error) (*Trace, error) {
	p := &parser{
		r:    bufio.NewReaderSize(r, 64<<10),
		strs: make(map[string]string),
	}
	t := &Trace{}
	if err := p.header(t); err != nil {
		return nil, err
	}
	if err := p.events(each); err != nil {
		return nil, err
	}
	return t, nil
}

// parser holds the state of one Parse call.
type parser struct {
	r    *bufio.Reader
	line int    // the number of the line last read
	read int64  // bytes read so far, for MaxBytes
	long []byte // holds a line longer than r's buffer
	// scratch is reused to re-encode quoted values for the canonical check.
	scratch []byte
	// strs interns keys, actors and bare values: a trace repeats a few
	// hundred distinct ones (w3, task, t17) millions of times.
	strs map[string]string
	slab []Field // backing store that parsed Fields are carved from
}

// internMax bounds the intern table, so that a trace of unique values does
// not keep a second copy of each.
const internMax = 1 << 16

func (p *parser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.strs) < internMax {
		p.strs[s] = s
	}
	return s
}

// errorf returns a *ParseError for the line last read.
func (p *parser) errorf(format string, args ...any) *ParseError {
	return &ParseError{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// errEOF returns a *ParseError for something missing at the end of input.
func (p *parser) errEOF(format string, args ...any) *ParseError {
	return &ParseError{Line: p.line + 1, Msg: fmt.Sprintf(format, args...) + " (end of input)"}
}

// next returns the next line without its '\n', or ok false at the end of
// input. The line is valid until the next call.
func (p *parser) next() (line []byte, ok bool, err error) {
	line, err = p.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		p.long = append(p.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(p.long) > MaxLineBytes {
				p.line++
				return nil, false, p.errorf("line longer than %d bytes, the limit of a trace line", MaxLineBytes)
			}
			line, err = p.r.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	p.read += int64(len(line))
	switch {
	case len(line) > MaxLineBytes+1: // +1: the newline
		p.line++
		return nil, false, p.errorf("line longer than %d bytes, the limit of a trace line", MaxLineBytes)
	case p.read > MaxBytes:
		p.line++
		return nil, false, p.errorf("the trace passes %d bytes, the limit of a trace", int64(MaxBytes))
	}
	switch {
	case err == nil:
		p.line++
		return line[:len(line)-1], true, nil
	case errors.Is(err, io.EOF) && len(line) == 0:
		return nil, false, nil
	case errors.Is(err, io.EOF):
		p.line++
		return nil, false, p.errorf("missing newline at end of input")
	default:
		p.line++
		return nil, false, p.errorf("read: %v", err)
	}
}

// header parses everything up to and including "# end".
func (p *parser) header(t *Trace) error {
	h := &t.Header
	line, ok, err := p.next()
	if err != nil {
		return err
	}
	if !ok {
		return p.errEOF("missing format version line %q", versionPrefix+strconv.Itoa(FormatVersion))
	}
	if !bytes.HasPrefix(line, []byte(versionPrefix)) {
		return p.errorf("missing format version line: got %s, want %q", show(line), versionPrefix+strconv.Itoa(FormatVersion))
	}
	v, ok := parseUint(line[len(versionPrefix):])
	if !ok {
		return p.errorf("bad format version %s", show(line[len(versionPrefix):]))
	}
	if v < MinFormatVersion || v > FormatVersion {
		return p.errorf("unknown format version %d: this build reads versions %d to %d", v, MinFormatVersion, FormatVersion)
	}
	t.Version = int(v)

	// Fields, up to the source count; lines holds each key's line.
	lines := map[string]int{}
	for {
		line, ok, err = p.next()
		if err != nil {
			return err
		}
		if !ok {
			return p.errEOF("missing %q line", "# source: N")
		}
		if string(line) == endLine {
			return p.errorf("missing %q line before %q", "# source: N", endLine)
		}
		if !bytes.HasPrefix(line, []byte("# ")) {
			return p.errorf("malformed header line %s: want %q", show(line), "# key: value")
		}
		rest := line[2:]
		colon := bytes.IndexByte(rest, ':')
		if colon <= 0 || !validKey(rest[:colon]) || !bytes.HasPrefix(rest[colon:], []byte(": ")) {
			return p.errorf("malformed header line %s: want %q", show(line), "# key: value")
		}
		key := rest[:colon]
		val := rest[colon+2:]
		if string(key) == sourceKey {
			t.SourceLine = p.line
			return p.source(h, val)
		}
		f, n, msg := p.value(val, 0)
		if msg != "" {
			return p.errorf("header field %q: %s", key, msg)
		}
		if n != len(val) {
			return p.errorf("header field %q: trailing garbage %s", key, show(val[n:]))
		}
		f.Key = p.intern(key)
		if first, dup := lines[f.Key]; dup {
			// Get would read the first, and a reader of the file the last.
			return p.errorf("header field %q given twice (line %d first)", key, first)
		}
		lines[f.Key] = p.line
		h.Fields = append(h.Fields, f)
		t.FieldLines = append(t.FieldLines, p.line)
	}
}

// source parses the source count (after "# source: "), the source lines and
// "# end".
func (p *parser) source(h *Header, count []byte) error {
	nonl := false
	if c, ok := bytes.CutSuffix(count, []byte(sourceNoNL)); ok {
		count, nonl = c, true
	}
	n, ok := parseUint(count)
	if !ok {
		return p.errorf("bad source line count %s: want %q or %q", show(count), "N", "N nonl")
	}
	if n == 0 && nonl {
		return p.errorf("empty source marked %q", strings.TrimSpace(sourceNoNL))
	}
	var b strings.Builder
	for i := uint64(0); i < n; i++ {
		line, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return p.errEOF("missing source lines: got %d of %d", i, n)
		}
		switch {
		case string(line) == sourceLine:
			if nonl && i+1 == n {
				return p.errorf("source marked %q ends in an empty line: write it as a source ending in a newline", strings.TrimSpace(sourceNoNL))
			}
		case string(line) == sourceLine+" ":
			return p.errorf("source line %d of %d: an empty line is written %q, without a space", i+1, n, sourceLine)
		case bytes.HasPrefix(line, []byte(sourceLine+" ")):
			b.Write(line[len(sourceLine)+1:])
		default:
			return p.errorf("source line %d of %d: want prefix %q, got %s", i+1, n, sourceLine+" ", show(line))
		}
		if i+1 < n || !nonl {
			b.WriteByte('\n')
		}
	}
	h.Source = b.String()

	line, ok, err := p.next()
	if err != nil {
		return err
	}
	if !ok {
		return p.errEOF("missing %q", endLine)
	}
	if string(line) != endLine {
		return p.errorf("want %q after %d source lines, got %s", endLine, n, show(line))
	}
	return nil
}

// events parses the event section, up to the end of input.
func (p *parser) events(each func(e *Event, line int) error) error {
	var lastStep uint64
	lastLine := 0
	for {
		line, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if len(line) == 0 {
			return p.errorf("blank line in event section")
		}
		if line[0] == '#' {
			return p.errorf("header line after %q: %s", endLine, show(line))
		}
		var e Event
		if err := p.event(line, &e); err != nil {
			return err
		}
		if lastLine > 0 && e.Step < lastStep {
			return p.errorf("step %d goes backwards: the event on line %d is at step %d", e.Step, lastLine, lastStep)
		}
		lastStep, lastLine = e.Step, p.line
		if err := each(&e, p.line); err != nil {
			return err
		}
	}
}

// event parses one event line: STEP TICK ACTOR KIND( KEY=VALUE)*.
func (p *parser) event(line []byte, e *Event) error {
	i, err := p.head(line, e)
	if err != nil {
		return err
	}
	// Fields are parsed straight into the slab, so that an event costs no
	// allocation of its own; see slabField.
	off := len(p.slab)
	for i < len(line) {
		// line[i] is the space before the field; nf numbers the field for
		// messages.
		i++
		nf := len(p.slab) - off + 1
		if i == len(line) {
			return p.errorf("trailing space")
		}
		start := i
		for i < len(line) && class[line[i]]&classKey != 0 {
			i++
		}
		if i == start || i == len(line) || line[i] != '=' {
			k := bytes.IndexByte(line[start:], ' ')
			if k < 0 {
				k = len(line) - start
			}
			return p.errorf("field %d: malformed field %s: want key=value, key in [a-z0-9_.-]", nf, show(line[start:start+k]))
		}
		key := line[start:i]
		f, n, msg := p.value(line, i+1)
		if msg != "" {
			return p.errorf("field %d (%s): %s", nf, key, msg)
		}
		if n < len(line) && line[n] != ' ' {
			return p.errorf("field %d (%s): trailing garbage %s", nf, key, show(line[n:]))
		}
		f.Key = p.intern(key)
		off = p.slabField(off, f)
		i = n
	}
	if n := len(p.slab) - off; n > 0 {
		e.Fields = p.slab[off : off+n : off+n]
	}
	return nil
}

// head parses an event line's four leading words (STEP TICK ACTOR KIND)
// into e and returns where its fields start.
func (p *parser) head(line []byte, e *Event) (int, error) {
	// Each word is ended by a space or the end of the line.
	var words [4][]byte
	i := 0
	for n := range words {
		if n > 0 {
			if i == len(line) {
				return 0, p.errorf("missing %s: want %q", wordNames[n], "STEP TICK ACTOR KIND key=value...")
			}
			i++ // the space
		}
		start := i
		for i < len(line) && line[i] != ' ' {
			i++
		}
		words[n] = line[start:i]
	}
	step, ok := parseUint(words[0])
	if !ok {
		return 0, p.errorf("bad step %s", show(words[0]))
	}
	tick, ok := parseUint(words[1])
	if !ok {
		return 0, p.errorf("bad tick %s", show(words[1]))
	}
	if !validKey(words[2]) {
		return 0, p.errorf("bad actor %s", show(words[2]))
	}
	kind := kindOf(words[3])
	if kind == 0 {
		return 0, p.errorf("unknown kind %s", show(words[3]))
	}
	*e = Event{Step: step, Tick: tick, Actor: p.intern(words[2]), Kind: kind}
	return i, nil
}

// slabField appends f to the fields of the event being parsed, which start
// at p.slab[off]. When the slab is full, the event's fields so far move to a
// new slab, and slabField returns their new offset. Each event's Fields is
// clipped to its length, so an append by the reader cannot overwrite a
// neighbour.
func (p *parser) slabField(off int, f Field) int {
	if len(p.slab) == cap(p.slab) {
		done := p.slab[off:]
		p.slab = make([]Field, 0, max(slabSize, 2*len(done)))
		p.slab = append(p.slab, done...)
		off = 0
	}
	p.slab = append(p.slab, f)
	return off
}

var wordNames = [4]string{"step", "tick", "actor", "kind"}

// value parses the value that starts at b[i]. It returns the field (without
// its key), the index just past the value, and a message if the value is
// malformed. The value must be written exactly as appendValue writes it.
func (p *parser) value(b []byte, i int) (f Field, end int, msg string) {
	if i >= len(b) || b[i] == ' ' {
		return f, i, "missing value"
	}
	if b[i] == '"' {
		return p.quoted(b, i)
	}
	end = i
	for end < len(b) && b[end] != ' ' {
		end++
	}
	tok := b[i:end]
	if isIntTok(tok) {
		v, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil {
			return f, end, "integer out of range " + show(tok)
		}
		if (tok[0] == '-' && tok[1] == '0') || (tok[0] == '0' && len(tok) > 1) {
			return f, end, "non-canonical integer " + show(tok) + ": want " + strconv.FormatInt(v, 10)
		}
		return Field{Int: v, IsInt: true}, end, ""
	}
	if !isBare(tok) {
		return f, end, "malformed value " + show(tok) + ": want an integer, a bare string or a quoted string"
	}
	return Field{Str: p.intern(tok)}, end, ""
}

// quoted parses the Go-quoted string that starts at b[i].
func (p *parser) quoted(b []byte, i int) (f Field, end int, msg string) {
	plain := true // no escapes, no bytes outside printable ASCII
	j := i + 1
	for ; j < len(b) && b[j] != '"'; j++ {
		c := b[j]
		if c == '\\' {
			plain = false
			j++
			continue
		}
		if c < 0x20 || c > 0x7e {
			plain = false
		}
	}
	if j >= len(b) {
		return f, len(b), "unterminated quote " + show(b[i:])
	}
	end = j + 1
	tok := b[i:end]
	var s string
	if plain {
		// strconv.Quote writes printable ASCII other than '"' and '\\' as
		// itself, so the token is canonical.
		s = string(tok[1 : len(tok)-1])
	} else {
		var err error
		s, err = strconv.Unquote(string(tok))
		if err != nil {
			return f, end, "bad quoted string " + show(tok)
		}
		p.scratch = strconv.AppendQuote(p.scratch[:0], s)
		if !bytes.Equal(p.scratch, tok) {
			return f, end, "non-canonical quoted string " + show(tok) + ": want " + string(p.scratch)
		}
	}
	if isBare(s) {
		return f, end, "quoted string " + show(tok) + " must be written bare"
	}
	return Field{Str: s}, end, ""
}

// isIntTok reports whether b matches -?[0-9]+.
func isIntTok(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseUint parses a canonical unsigned decimal: digits only, no leading
// zero unless the number is 0, no overflow.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// show quotes b for a message, shortened if it is long.
func show(b []byte) string {
	const maxLen = 40
	if len(b) > maxLen {
		return strconv.Quote(string(b[:maxLen])) + "..."
	}
	return strconv.Quote(string(b))
}
