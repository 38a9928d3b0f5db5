package simtest

import (
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
)

// Tally is what Count measured.
type Tally struct {
	Strategy string
	Runs     int // runs executed: seeds times worker counts, or schedules explored
	Failed   int // runs that failed
	// First is the 1-based index, in the order Check runs them, of the
	// first run that failed (0: none), with its seed, worker count and
	// what failed; its trace is saved as Check saves a failure's.
	First        int
	FirstSeed    uint64
	FirstWorkers int
	FirstWhat    string
	Trace        string // the first failure's trace file, "" if none was written
}

// Count runs body as Check does, with the same options, but does not stop
// at a failure nor fail t: it runs every seed on every worker count (with
// explore, every schedule up to the cap, on each worker count) and counts
// the runs that fail, for measurements (how often a bug shows, how soon).
// Only the first failure's trace is saved. A run that could not execute
// (a stall, a real goroutine) counts as failed. Bad options fail t.
func Count(t testing.TB, body func(*sched.Task) error, opts ...Option) Tally {
	t.Helper()
	c, err := newConfig(opts)
	tl := Tally{}
	if err != nil {
		t.Errorf("simtest: %v", err)
		return tl
	}
	tl.Strategy = c.strategy
	if c.strategy == sim.StrategyExplore {
		c.countExplore(t, body, &tl)
		return tl
	}
	for i := 0; i < c.seeds; i++ {
		seed := c.seedStart + uint64(i)
		for _, w := range c.workers {
			tl.Runs++
			f, tr, _ := c.run(t.Name(), body, seed, w, tl.First == 0)
			c.keepTrace(t, tr, seed, w)
			if f == nil {
				continue
			}
			tl.Failed++
			if tl.First == 0 {
				tl.First, tl.FirstSeed, tl.FirstWorkers, tl.FirstWhat = tl.Runs, seed, w, f.what
				if len(f.traces) > 0 {
					tl.Trace = f.traces[0]
				}
			}
		}
	}
	return tl
}

// countExplore is Count for the strategy explore: each worker count's
// search goes on past its failures, and the first failing schedule is
// found again, shrunk and saved, by a search that stops there.
func (c *config) countExplore(t testing.TB, body sched.Func, tl *Tally) {
	for _, w := range c.workers {
		base := tl.Runs
		firstAt := 0
		rep, _, err := c.explore(t.Name(), body, w, func(failed bool) {
			tl.Runs++
			if failed {
				tl.Failed++
				if firstAt == 0 {
					firstAt = tl.Runs
				}
			}
		})
		if err != nil {
			t.Errorf("simtest: workers %d, strategy explore: %v", w, err)
			return
		}
		tl.Runs = base + int(rep.Schedules)
		if firstAt == 0 || tl.First != 0 {
			continue
		}
		tl.First, tl.FirstSeed, tl.FirstWorkers = firstAt, c.seedStart, w
		if _, f, err := c.explore(t.Name(), body, w, nil); err == nil && f != nil {
			tl.FirstWhat = f.what
			if len(f.traces) > 0 {
				tl.Trace = f.traces[0]
			}
		}
	}
}
