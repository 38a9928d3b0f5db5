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

// Options configures Run and Start. The zero value runs on every CPU,
// silently.
type Options struct {
	Jobs     int       // goroutines; 0: runtime.NumCPU()
	Name     string    // the progress line's prefix: "check", "fuzz"
	Progress io.Writer // nil: no progress
	Terminal bool      // Progress is a terminal: rewrite one line
	// Status, when not nil, is appended to each progress line (after
	// ": "). It is called from the progress goroutine while jobs run,
	// so it must be safe for concurrent use.
	Status func() string
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
	s := Start(ctx, n, o)
	st := s.Batch(n, do)
	s.Close()
	return st
}

// Session is one sweep whose jobs are handed out in batches, for a caller
// that learns its next jobs from the results of the last ones (explore's
// frontier: a batch of schedules runs, their new branches are folded in,
// the next batch is taken from them). One progress line and one count
// span every batch.
type Session struct {
	ctx          context.Context
	o            Options
	p            *progress
	stopProgress func()
	handed       int64
}

// Start begins a session of at most total jobs (the progress line's
// denominator; math.MaxInt64 when not known).
func Start(ctx context.Context, total int64, o Options) *Session {
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	s := &Session{ctx: ctx, o: o, p: newProgress(o, total, time.Now())}
	s.stopProgress = s.p.start()
	return s
}

// Batch runs jobs 0..n-1 of one batch as Run does and returns the
// batch's Stats. A Stop ends this batch only: whether another batch
// follows is the caller's decision. A done ctx or a passed deadline
// hands out nothing more, in this batch or a later one.
func (s *Session) Batch(n int64, do func(j int64) Verdict) Stats {
	began := time.Now()
	failedBefore := s.p.failed.Load()
	var (
		next atomic.Int64
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range min(int64(s.o.Jobs), max(n, 0)) {
		wg.Go(func() {
			for !stop.Load() {
				if s.ctx.Err() != nil || (!s.o.Deadline.IsZero() && !time.Now().Before(s.o.Deadline)) {
					stop.Store(true)
					return
				}
				j := next.Add(1) - 1
				if j >= n {
					return
				}
				v := do(j)
				s.p.add(v != Passed)
				if v == Stop {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	handed := min(next.Load(), max(n, 0))
	s.handed += handed
	return Stats{Handed: handed, Failed: s.p.failed.Load() - failedBefore, Elapsed: time.Since(began)}
}

// Close stops the progress line (printing its final count) and returns
// the Stats of every batch together.
func (s *Session) Close() Stats {
	s.stopProgress()
	return Stats{Handed: s.handed, Failed: s.p.failed.Load(), Elapsed: time.Since(s.p.begin)}
}
