package sim

import (
	"bytes"

	"github.com/cbcsim/cbcsim/trace"
)

// cmpWriter compares a trace as it is written with the recorded one, so
// that replay holds the recorded trace and one line of the new one, not
// both traces whole.
type cmpWriter struct {
	want      []byte
	pos       int    // bytes of want matched so far
	line      int    // the 0-based line of want that pos is in
	lineStart int    // where that line starts in want
	diverged  bool   // the new trace left want at pos
	got       []byte // from lineStart: the new trace's divergent line, up to its newline
	gotDone   bool   // got holds its whole line
}

func (c *cmpWriter) Write(p []byte) (int, error) {
	n := len(p)
	if !c.diverged {
		k := 0
		rest := c.want[c.pos:]
		for k < len(p) && k < len(rest) && p[k] == rest[k] {
			k++
		}
		for i := 0; i < k; i++ {
			if p[i] == '\n' {
				c.line++
				c.lineStart = c.pos + i + 1
			}
		}
		c.pos += k
		if k == len(p) {
			return n, nil
		}
		c.diverged = true
		c.got = append([]byte{}, c.want[c.lineStart:c.pos]...)
		p = p[k:]
	}
	if !c.gotDone {
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			p, c.gotDone = p[:i], true
		}
		// A line past the parser's limit is cut: it is shown, not kept.
		room := trace.MaxLineBytes - len(c.got)
		c.got = append(c.got, p[:max(0, min(len(p), room))]...)
	}
	return n, nil
}

// result is the first differing line (1-based, 0 if none), the recorded and
// the new text of that line ("<end of file>" past the end), and up to n
// lines of context before it. Call it once the new trace is complete.
func (c *cmpWriter) result(n int) (line int, want, got string, ctx []string) {
	if !c.diverged {
		if c.pos == len(c.want) {
			return 0, "", "", nil
		}
		// The new trace ended early: it ends on a line boundary, so its
		// side of the line is past its end.
		c.got = nil
	}
	want = endOfFile
	if c.lineStart < len(c.want) {
		w := c.want[c.lineStart:]
		if i := bytes.IndexByte(w, '\n'); i >= 0 {
			w = w[:i]
		}
		want = string(w)
	}
	got = endOfFile
	if c.got != nil {
		got = string(c.got)
	}
	// Context: the n lines before lineStart, all identical in both.
	start := c.lineStart
	for i := 0; i < n && start > 0; i++ {
		j := bytes.LastIndexByte(c.want[:start-1], '\n')
		start = j + 1
	}
	if start < c.lineStart {
		for _, l := range bytes.Split(c.want[start:c.lineStart-1], []byte("\n")) {
			ctx = append(ctx, string(l))
		}
	}
	return c.line + 1, want, got, ctx
}
