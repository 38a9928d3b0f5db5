package outfile

import (
	"os"
	"syscall"
	"testing"
)

// TestDeliver: without a claim a signal exits with 128+signal; with one,
// the first signal calls stop and does not exit, Interrupted reports its
// status, and the second exits; a released claim takes no more signals
// but still reports the one it took. Not parallel: the claim on a
// signal is the process's.
func TestDeliver(t *testing.T) {
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		if code, exit := deliver(c.sig); !exit || code != c.code {
			t.Errorf("%v without a claim: exit %v with %d, want an exit with %d", c.sig, exit, code, c.code)
		}
		stops := 0
		release := OnInterrupt(func() { stops++ })
		if got := Interrupted(); got != 0 {
			t.Errorf("Interrupted before a signal: %d", got)
		}
		if _, exit := deliver(c.sig); exit || stops != 1 {
			t.Errorf("%v claimed: exit %v, stop called %d times; want no exit, one call", c.sig, exit, stops)
		}
		if got := Interrupted(); got != c.code {
			t.Errorf("Interrupted after %v: %d, want %d", c.sig, got, c.code)
		}
		if code, exit := deliver(c.sig); !exit || code != c.code || stops != 1 {
			t.Errorf("a second %v: exit %v with %d, stop called %d times; want an exit with %d", c.sig, exit, code, stops, c.code)
		}
		release()
		if code, exit := deliver(c.sig); !exit || code != c.code {
			t.Errorf("%v after release: exit %v with %d", c.sig, exit, code)
		}
		if got := Interrupted(); got != c.code {
			t.Errorf("Interrupted after release: %d, want %d", got, c.code)
		}
	}
}
