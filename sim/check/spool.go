package check

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"hash"
	"io"
	"os"
)

// spool is where one execution of a resampled run writes its trace: a
// temporary file, hashed as it is written, so that memory holds a hash
// and a buffer of a few kilobytes, not the trace. A trace at the event
// limit is hundreds of megabytes, and two of them per sampled run in
// flight passed 1 GB. The two executions are compared by hash; only when
// the hashes differ are the files read again, line by line, for the first
// differing line and the repro's first.trace and second.trace. When no
// temporary file can be created the trace is held in memory instead, as
// before: the check still compares, at the old cost.
//
// The file is closed once its execution ends, and opened again only to be
// compared or copied: a check of many scenarios keeps many first
// executions waiting for their second, and must not hold a descriptor
// for each.
type spool struct {
	name string        // the file; "" in memory
	f    *os.File      // open while the execution writes
	w    *bufio.Writer // over f
	mem  bytes.Buffer  // the trace when name is ""
	h    hash.Hash
	err  error // the first write error; the comparison then says so
}

func newSpool() *spool {
	s := &spool{h: sha256.New()}
	if f, err := os.CreateTemp("", "cbcsim-check-*.trace"); err == nil {
		s.name, s.f, s.w = f.Name(), f, bufio.NewWriterSize(f, 64<<10)
	}
	return s
}

// Write is called by the one goroutine running the execution.
func (s *spool) Write(p []byte) (int, error) {
	s.h.Write(p)
	if s.f == nil {
		return s.mem.Write(p)
	}
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// finish flushes and closes the file once the execution has ended.
func (s *spool) finish() {
	if s.f != nil {
		if err := s.w.Flush(); err != nil && s.err == nil {
			s.err = err
		}
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
		s.f = nil
	}
}

func (s *spool) sum() []byte { return s.h.Sum(nil) }

// open reads the trace from its start; the caller closes it.
func (s *spool) open() (io.ReadCloser, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.name == "" {
		return io.NopCloser(bytes.NewReader(s.mem.Bytes())), nil
	}
	return os.Open(s.name)
}

// remove deletes the file (or drops the buffer). Safe on nil (a run of
// another shard) and to call twice.
func (s *spool) remove() {
	if s == nil {
		return
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.name != "" {
		os.Remove(s.name)
		s.name = ""
	}
	s.mem = bytes.Buffer{}
}

// diffSpools finds the first line where a and b differ, 1-based, reading
// both once (diffLine on readers).
func diffSpools(a, b *spool) (line int, la, lb string, differ bool, err error) {
	ra, err := a.open()
	if err != nil {
		return 0, "", "", false, err
	}
	defer ra.Close()
	rb, err := b.open()
	if err != nil {
		return 0, "", "", false, err
	}
	defer rb.Close()
	ba, bb := bufio.NewReaderSize(ra, 64<<10), bufio.NewReaderSize(rb, 64<<10)
	for line = 1; ; line++ {
		x, errx := readLine(ba)
		y, erry := readLine(bb)
		if errx != nil && errx != io.EOF {
			return 0, "", "", false, errx
		}
		if erry != nil && erry != io.EOF {
			return 0, "", "", false, erry
		}
		if !bytes.Equal(x, y) || (x == nil) != (y == nil) {
			return line, clip(x), clip(y), true, nil
		}
		if x == nil {
			return 0, "", "", false, nil
		}
	}
}

// readLine reads one line with its newline, keeping at most diffLineMax+1
// bytes of it (clip cuts there anyway) and comparing the rest by hash, so
// that a huge line costs no memory. nil at the end.
func readLine(r *bufio.Reader) ([]byte, error) {
	var keep []byte
	h := sha256.New()
	long := false
	for {
		frag, err := r.ReadSlice('\n')
		if len(frag) > 0 {
			if room := diffLineMax + 1 - len(keep); room > 0 {
				keep = append(keep, frag[:min(room, len(frag))]...)
			}
			if len(keep) > diffLineMax {
				long = true
			}
			h.Write(frag)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
		default:
			if len(keep) == 0 {
				return nil, err
			}
		}
		if long {
			// Two long lines with the same first bytes must still
			// compare by their whole text: append the hash.
			keep = append(keep[:diffLineMax+1], h.Sum(nil)...)
		}
		if err != nil && err != io.EOF {
			return keep, err
		}
		return keep, nil
	}
}

// copyTo writes the trace to w (the repro's first.trace or second.trace).
func (s *spool) copyTo(w io.Writer) error {
	r, err := s.open()
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}
