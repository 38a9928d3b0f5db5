package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// progress is the one line of progress on stderr. The job goroutines count
// with add; only the goroutine started by start writes to w, and finish
// runs after it stopped.
type progress struct {
	w        io.Writer
	name     string
	status   func() string
	terminal bool
	total    int64 // math.MaxInt64: unknown (a sweep bounded by time)
	done     atomic.Int64
	failed   atomic.Int64
	begin    time.Time
	last     time.Time // when a line was last printed; zero before the first
	width    int       // length of the last line, blanked out on a terminal
}

const (
	progressAfter = time.Second     // quiet sweeps print nothing
	progressLog   = 2 * time.Second // a line this often when not a terminal
	progressTick  = 100 * time.Millisecond
)

func newProgress(o Options, total int64, now time.Time) *progress {
	if !o.Deadline.IsZero() {
		total = math.MaxInt64 // bounded by time: n is a cap, not the count to come
	}
	return &progress{w: o.Progress, name: o.Name, status: o.Status, terminal: o.Terminal, total: total, begin: now}
}

// add counts a finished job. Can be called by any job goroutine.
func (p *progress) add(failed bool) {
	p.done.Add(1)
	if failed {
		p.failed.Add(1)
	}
}

// start runs the ticker and returns the function that stops it and prints
// the final line.
func (p *progress) start() (stop func()) {
	if p.w == nil {
		return func() {}
	}
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				p.tick(now)
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		p.finish(time.Now())
	}
}

// tick prints the line when it is due.
func (p *progress) tick(now time.Time) {
	if now.Sub(p.begin) < progressAfter {
		return
	}
	if !p.terminal && !p.last.IsZero() && now.Sub(p.last) < progressLog {
		return
	}
	p.print(now)
}

// finish prints the final count if the sweep took more than a second.
func (p *progress) finish(now time.Time) {
	if p.last.IsZero() && now.Sub(p.begin) < progressAfter {
		return
	}
	p.print(now)
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) print(now time.Time) {
	s := p.line(now)
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s%s", s, strings.Repeat(" ", max(p.width-len(s), 0)))
		p.width = len(s)
	} else {
		fmt.Fprintln(p.w, s)
	}
	p.last = now
}

func (p *progress) line(now time.Time) string {
	done := fmt.Sprintf("%d/%d", p.done.Load(), p.total)
	if p.total == math.MaxInt64 {
		done = fmt.Sprint(p.done.Load())
	}
	s := fmt.Sprintf("%s: %s runs, %d failed, %.1f s", p.name, done, p.failed.Load(), now.Sub(p.begin).Seconds())
	if p.status != nil {
		s += ": " + p.status()
	}
	return s
}
