package sim

import (
	"bytes"
	"io"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Replaying traces of format version 1 (docs/trace-format.md, "Versions").
// They were recorded with every task and nursery kept, which ModeSeededKeep
// reproduces. The earliest of them were also recorded before a nursery's
// open said `catch=true`: replay leaves the field off again for those, so
// that they still reproduce byte for byte.

// scenarioCatches reports whether some nursery of sc catches its
// children's errors.
func scenarioCatches(sc *scenario.Scenario) bool {
	var walk func(ops []scenario.Op) bool
	walk = func(ops []scenario.Op) bool {
		for i := range ops {
			if ops[i].Kind == scenario.Nursery && ops[i].Catch || walk(ops[i].Body) {
				return true
			}
		}
		return false
	}
	for _, t := range sc.Tasks { // an OR: the map's order does not matter
		if walk(t.Ops) {
			return true
		}
	}
	return false
}

// noCatchWriter removes " catch=true" from the nursery opens written
// through it: catch is the open's last field. It holds at most one partial
// line.
type noCatchWriter struct {
	w    io.Writer
	line []byte
}

var catchSuffix = []byte(" to=Open catch=true")

func (n *noCatchWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			n.line = append(n.line, p...)
			break
		}
		n.line = append(n.line, p[:i]...)
		p = p[i+1:]
		if bytes.HasSuffix(n.line, catchSuffix) && bytes.Contains(n.line, []byte(" nursery ")) {
			n.line = n.line[:len(n.line)-len(" catch=true")]
		}
		n.line = append(n.line, '\n')
		if _, err := n.w.Write(n.line); err != nil {
			return 0, err
		}
		n.line = n.line[:0]
	}
	return total, nil
}

// flush writes a last line that has no newline.
func (n *noCatchWriter) flush() error {
	if len(n.line) == 0 {
		return nil
	}
	_, err := n.w.Write(n.line)
	n.line = n.line[:0]
	return err
}
