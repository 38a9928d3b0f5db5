package trace

import "io"

// Recorder is an in-memory trace sink. Its zero value is ready to use: set
// Header, Record each event, then read Events or WriteTo a file. A Recorder
// is used by one goroutine at a time.
type Recorder struct {
	Header Header
	Events []Event

	slab []Field // backing store that recorded Fields are carved from
}

// slabSize is how many fields one backing allocation of a Recorder holds.
const slabSize = 4096

// Record appends a deep copy of e, so the caller may reuse e and its Fields
// slice. An event with no fields is stored with nil Fields, as Parse would
// return it. A step going backwards panics, as it does in Writer.WriteEvent.
func (r *Recorder) Record(e *Event) {
	if n := len(r.Events); n > 0 && e.Step < r.Events[n-1].Step {
		panic("trace: Record: step went backwards")
	}
	c := *e
	c.Fields = r.copyFields(e.Fields)
	r.Events = append(r.Events, c)
}

// copyFields copies fs into the slab. Each copy has its capacity clipped to
// its length, so an append by the reader cannot overwrite a neighbour.
func (r *Recorder) copyFields(fs []Field) []Field {
	n := len(fs)
	if n == 0 {
		return nil
	}
	if cap(r.slab)-len(r.slab) < n {
		r.slab = make([]Field, 0, max(slabSize, n))
	}
	off := len(r.slab)
	r.slab = append(r.slab, fs...)
	return r.slab[off : off+n : off+n]
}

// WriteTo writes the header and every recorded event in text form, and
// returns the number of bytes written.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	return writeTrace(w, &r.Header, r.Events)
}

// WriteTo writes t in text form, and returns the number of bytes written.
// For a parsed trace, the output is byte for byte the input.
func (t *Trace) WriteTo(w io.Writer) (int64, error) {
	h := t.Header
	if h.Version == 0 {
		h.Version = t.Version // a parsed trace keeps the version it was read with
	}
	return writeTrace(w, &h, t.Events)
}
