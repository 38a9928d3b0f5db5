package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// zeros is /dev/zero without the device: it never ends.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// counting records how much was read from r.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) { n, err := c.r.Read(p); c.n += n; return n, err }

// Parse and readLimited stop at a line longer than the limit, having read
// little past it: /dev/zero and a 200 MB line once grew until the machine
// killed the process.
func TestLongLineStops(t *testing.T) {
	t.Parallel()
	for name, read := range map[string]func(io.Reader) error{
		"Parse": func(r io.Reader) error { _, err := Parse(r); return err },
		"ParseEach": func(r io.Reader) error {
			_, err := ParseEach(r, func(*Event, int) error { return nil })
			return err
		},
		"readLimited": func(r io.Reader) error { _, err := readLimited(r, 0); return err },
	} {
		c := &counting{r: zeros{}}
		err := read(c)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(pe.Msg, "limit of a trace line") {
			t.Errorf("%s on zeros: %v, want line 1 past the line limit", name, err)
		}
		if c.n > MaxLineBytes+1<<20 {
			t.Errorf("%s read %d bytes for a line limit of %d", name, c.n, MaxLineBytes)
		}
		// The long line is the third one.
		long := "# cbcsim-trace 1\n# a: 1\n# b: " + strings.Repeat("x", MaxLineBytes+10) + "\n"
		err = read(strings.NewReader(long))
		if !errors.As(err, &pe) || pe.Line != 3 {
			t.Errorf("%s: %v, want line 3 past the line limit", name, err)
		}
	}
}

// readLimited gives back exactly what it read when within the limits,
// however the reader splits it.
func TestReadLimitedWhole(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/small.trace")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
		got, err := readLimited(r, 0)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("readLimited: %v, %d bytes of %d", err, len(got), len(data))
		}
	}
	if _, err := ReadFile("testdata/no-such.trace"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}
