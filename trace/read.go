package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadFile reads the trace file at path whole, as replay needs it to
// compare byte for byte, checking the limits as it goes: it stops at the
// first line longer than MaxLineBytes or once the file passes MaxBytes,
// with a *ParseError naming the line, having read at most a chunk past
// the limit (/dev/zero is an error at once, not a read that grows until
// the machine kills it). An unreadable file is the *fs.PathError.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 0
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= MaxBytes {
		size = int(st.Size())
	}
	return readLimited(f, size)
}

// ParseFile parses the trace file at path, its parse error prefixed with
// the path (Parse keeps the limits).
func ParseFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// readLimited reads r to its end under the limits; size is a hint.
func readLimited(r io.Reader, size int) ([]byte, error) {
	const chunk = 64 << 10
	data := make([]byte, 0, size+chunk)
	line, lineStart := 1, 0 // the line being read and where it starts
	for {
		if cap(data)-len(data) < chunk {
			data = append(data, make([]byte, chunk)...)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(cap(data), len(data)+chunk)])
		read := data[len(data) : len(data)+n]
		base := len(data)
		data = data[:len(data)+n]
		for i := bytes.IndexByte(read, '\n'); i >= 0; i = bytes.IndexByte(read, '\n') {
			if base+i-lineStart > MaxLineBytes {
				break
			}
			line, lineStart = line+1, base+i+1
			base += i + 1
			read = read[i+1:]
		}
		if len(data)-lineStart > MaxLineBytes+1 {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("line longer than %d bytes, the limit of a trace line", MaxLineBytes)}
		}
		if len(data) > MaxBytes {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("the trace passes %d bytes, the limit of a trace", MaxBytes)}
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, &ParseError{Line: line, Msg: "read: " + err.Error()}
		}
	}
}
