package sweep

import (
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Verdict is what a job says about itself.
type Verdict uint8

const (
	Passed Verdict = iota // the job held
	Failed                // counted as failed; the sweep goes on
	Stop                  // counted as failed; no further job is handed out
)

// Options configures Run. The zero value runs on every CPU, silently.
type Options struct {
	Jobs     int       // goroutines; 0: runtime.NumCPU()
	Name     string    // the progress line's prefix: "check", "fuzz"
	Progress io.Writer // nil: no progress
	Terminal bool      // Progress is a terminal: rewrite one line
	// Deadline stops handing out jobs at this time (zero: none). Time
	// decides only how many jobs run, never what a job does.
	Deadline time.Time
}

// Stats is what Run did.
type Stats struct {
	Handed  int64 // jobs handed out; every job below this index finished
	Failed  int64 // jobs that returned Failed or Stop
	Elapsed time.Duration
}

// Run calls do(j) once for each j in 0..n-1 that is handed out, on
// o.Jobs goroutines, in increasing order of j. It stops handing out jobs
// when one returns Stop, when ctx is done or at o.Deadline; the jobs
// already started finish before Run returns. do is called from several
// goroutines at once.
func Run(ctx context.Context, n int64, o Options, do func(j int64) Verdict) Stats {
	began := time.Now()
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	p := newProgress(o, n, began)
	stopProgress := p.start()
	var (
		next atomic.Int64
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range min(int64(o.Jobs), max(n, 0)) {
		wg.Go(func() {
			for !stop.Load() {
				if ctx.Err() != nil || (!o.Deadline.IsZero() && !time.Now().Before(o.Deadline)) {
					stop.Store(true)
					return
				}
				j := next.Add(1) - 1
				if j >= n {
					return
				}
				v := do(j)
				p.add(v != Passed)
				if v == Stop {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	stopProgress()
	return Stats{Handed: min(next.Load(), max(n, 0)), Failed: p.failed.Load(), Elapsed: time.Since(began)}
}
