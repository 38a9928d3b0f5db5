package trace

import (
	"bytes"
	"io"
	"testing"
)

// TestWriterBuffer: across many buffer fills the Writer writes exactly
// the lines AppendEvent encodes, in order, and never grows its buffer; a
// line that panicked half-encoded leaves nothing behind.
func TestWriterBuffer(t *testing.T) {
	t.Parallel()
	var out, want bytes.Buffer
	w := NewWriter(&out)
	h := &Header{Fields: []Field{S("name", "x")}}
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	want.Write(appendHeader(nil, h, ""))
	capBefore := cap(w.buf)
	for i := range 20000 {
		e := &Event{Step: uint64(i), Tick: uint64(i / 3), Actor: "w1", Kind: KindYield, Fields: []Field{I(KeyTask, int64(i)), S(KeyWhy, "explicit")}}
		if i == 777 {
			func() {
				defer func() { recover() }()
				w.WriteEvent(&Event{Step: uint64(i), Actor: "w1", Kind: KindPop, Fields: []Field{I(KeyTask, 1), S("Bad", "x")}})
			}()
		}
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
		want.Write(AppendEvent(nil, e))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.Len() < 4*bufSize || !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("wrote %d bytes, want the %d AppendEvent encodes (and several buffers' worth)", out.Len(), want.Len())
	}
	if cap(w.buf) != capBefore {
		t.Fatalf("the buffer grew from %d to %d", capBefore, cap(w.buf))
	}
}

// shortWriter accepts one byte less than it is given.
type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) - 1, nil }

// TestWriterShortWrite: a short write is an error, as with bufio, and it
// sticks.
func TestWriterShortWrite(t *testing.T) {
	t.Parallel()
	w := NewWriter(shortWriter{})
	w.WriteHeader(&Header{})
	if err := w.Flush(); err != io.ErrShortWrite {
		t.Fatalf("Flush = %v, want io.ErrShortWrite", err)
	}
	if err := w.WriteRun(1, 1, "w0", 1); err != io.ErrShortWrite {
		t.Fatalf("WriteRun after a short write = %v, want the same error", err)
	}
}
