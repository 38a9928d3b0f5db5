package explore

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// A trace over MaxShrinkTrace is refused before it is parsed, so that a
// repro at the event limit costs no gigabytes; its message gives the size.
func TestShrinkTraceTooLong(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("# x\n"), MaxShrinkTrace/4+1)
	_, err := ShrinkTrace("big.trace", data, filepath.Join(t.TempDir(), "shrunk.trace"), Options{})
	if !errors.Is(err, ErrTraceTooLong) {
		t.Fatalf("ShrinkTrace of %d bytes: %v, want ErrTraceTooLong", len(data), err)
	}
	// At the bound it is parsed (and this one is no trace).
	_, err = ShrinkTrace("big.trace", data[:MaxShrinkTrace], filepath.Join(t.TempDir(), "shrunk.trace"), Options{})
	if err == nil || errors.Is(err, ErrTraceTooLong) {
		t.Fatalf("ShrinkTrace at the bound: %v, want a parse error", err)
	}
}
