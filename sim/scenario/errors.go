package scenario

import (
	"strconv"
	"strings"
)

// LoadError is the error every failed Load or Parse returns.
type LoadError struct {
	File string // the file path (Load) or name (Parse)
	Path string // TOML path, e.g. "task.main.ops[2].spawn"; "" if none
	Line int    // 1-based; 0 if unknown
	Col  int    // 1-based; 0 if unknown
	Msg  string
}

// Error returns "FILE:LINE:COL: PATH: MSG", leaving out the parts that are
// unknown, e.g.
//
//	s.toml:12:5: task.main.ops[2]: unknown task "wrker" in spawn
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
