package check

import (
	"os"
	"strings"
	"testing"
)

func fill(s *spool, text string) *spool {
	// In pieces, as a trace writer writes.
	for len(text) > 0 {
		n := min(len(text), 1000)
		s.Write([]byte(text[:n]))
		text = text[n:]
	}
	s.finish()
	return s
}

// Two executions are compared by hash; the files hold the traces, not
// memory, and are gone once removed. A difference is found at its line,
// even past the shown prefix of a line longer than a bufio buffer.
func TestSpoolCompare(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200_000)
	base := "1 0 a\n2 0 b " + long + "\n3 0 c\n"
	for _, tc := range []struct {
		a, b   string
		line   int
		differ bool
	}{
		{base, base, 0, false},
		{base, "1 0 a\n2 0 b " + long + "y\n3 0 c\n", 2, true},
		{base, base + "4 0 d\n", 4, true},
		{base, "1 0 a\n", 2, true},
		{"", "", 0, false},
	} {
		a, b := fill(newSpool(), tc.a), fill(newSpool(), tc.b)
		if a.name == "" || b.name == "" {
			t.Fatal("no temporary file")
		}
		if a.mem.Len() != 0 {
			t.Errorf("a spool with a file held %d bytes in memory", a.mem.Len())
		}
		names := []string{a.name, b.name}
		s := &sample{first: a, second: b}
		s.finished.Store(1)
		s.executed()
		if s.differ != tc.differ || s.line != tc.line || s.err != nil {
			t.Errorf("%.20q vs %.20q: differ %v line %d err %v, want %v %d", tc.a, tc.b, s.differ, s.line, s.err, tc.differ, tc.line)
		}
		if s.differ {
			if len(s.la) > diffLineMax+len("…") || len(s.lb) > diffLineMax+len("…") {
				t.Errorf("shown lines not clipped: %d, %d bytes", len(s.la), len(s.lb))
			}
			var w strings.Builder
			if err := b.copyTo(&w); err != nil || w.String() != tc.b {
				t.Errorf("copyTo: %v, %d bytes, want %d", err, w.Len(), len(tc.b))
			}
		}
		s.removeSpools()
		for _, n := range names {
			if _, err := os.Stat(n); !os.IsNotExist(err) {
				t.Errorf("%s left behind (%v)", n, err)
			}
		}
	}
}
