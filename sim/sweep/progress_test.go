package sweep

import (
	"bytes"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	at := func(d float64) time.Time { return t0.Add(time.Duration(d * float64(time.Second))) }

	var b bytes.Buffer
	p := newProgress(Options{Progress: &b, Terminal: true, Name: "check"}, 100, t0)
	p.add(false)
	p.add(true)
	p.tick(at(0.5))
	if b.Len() != 0 {
		t.Fatalf("printed before a second: %q", b.String())
	}
	p.tick(at(1.2))
	p.tick(at(10.3))
	p.finish(at(10.4))
	if want := "\rcheck: 2/100 runs, 1 failed, 1.2 s\rcheck: 2/100 runs, 1 failed, 10.3 s\rcheck: 2/100 runs, 1 failed, 10.4 s\n"; b.String() != want {
		t.Errorf("terminal: %q, want %q", b.String(), want)
	}

	b.Reset()
	p = newProgress(Options{Progress: &b, Name: "check"}, 6400, t0)
	for _, s := range []float64{0.9, 1.0, 1.5, 2.9, 3.0, 4.0} {
		p.tick(at(s))
	}
	p.finish(at(4.5))
	if want := "check: 0/6400 runs, 0 failed, 1.0 s\ncheck: 0/6400 runs, 0 failed, 3.0 s\ncheck: 0/6400 runs, 0 failed, 4.5 s\n"; b.String() != want {
		t.Errorf("log: %q, want %q", b.String(), want)
	}

	b.Reset()
	p = newProgress(Options{Progress: &b, Name: "check"}, 10, t0)
	p.tick(at(0.5))
	p.finish(at(0.8))
	if b.Len() != 0 {
		t.Errorf("a check under a second printed %q", b.String())
	}
}
