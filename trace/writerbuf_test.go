package trace

import (
	"bytes"
	"io"
	"testing"
)

// TestWriterBuffer: across many buffer fills the Writer writes exactly
// the lines AppendEvent encodes, in order, and never grows its buffer; a
// line that panicked half-encoded leaves nothing behind. The same with
// the full buffers written behind (WriteBehind).
func TestWriterBuffer(t *testing.T) {
	t.Parallel()
	for _, behind := range []bool{false, true} {
		t.Run(map[bool]string{false: "in-line", true: "behind"}[behind], func(t *testing.T) {
			t.Parallel()
			writerBuffer(t, behind)
		})
	}
}

func writerBuffer(t *testing.T, behind bool) {
	var out, want bytes.Buffer
	w := NewWriter(&out)
	if behind {
		w.WriteBehind()
	}
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

// countFailWriter fails every write after the first ok ones, and counts
// the writes it was given.
type countFailWriter struct {
	ok, writes int
}

func (c *countFailWriter) Write(p []byte) (int, error) {
	c.writes++
	if c.writes > c.ok {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// TestWriteBehindError: a write behind that fails is returned by a later
// call and by Flush, it sticks, and no write is made after it.
func TestWriteBehindError(t *testing.T) {
	t.Parallel()
	out := &countFailWriter{ok: 1}
	w := NewWriter(out)
	w.WriteBehind()
	if err := w.WriteHeader(&Header{}); err != nil {
		t.Fatal(err)
	}
	var err error
	i := 0
	for ; err == nil && i < 100_000; i++ {
		err = w.WriteRun(uint64(i), uint64(i), "w0", int64(i))
	}
	if err != io.ErrClosedPipe {
		t.Fatalf("after %d run lines: %v, want the second write's error", i, err)
	}
	if err := w.Flush(); err != io.ErrClosedPipe {
		t.Fatalf("Flush = %v, want the same error", err)
	}
	if err := w.WriteRun(uint64(i), uint64(i), "w0", 1); err != io.ErrClosedPipe {
		t.Fatalf("a line after the error: %v, want the same error", err)
	}
	if out.writes != 2 {
		t.Fatalf("%d writes, want 2 (one ok, one failed, none after)", out.writes)
	}
}
