package check

// Executing the jobs: the job goroutines, one run each, and the fold of
// its result into its row.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// rowAgg folds the results of one (scenario, workers) row. Any job
// goroutine may call add; the mutex serializes them.
type rowAgg struct {
	mu    sync.Mutex
	row   Row
	kinds map[string]*Failure // by signature
}

// run executes this shard's runs and the second executions of its
// sampled runs (placeSeconds), and builds the report.
func (c *checker) run(progressW io.Writer) *Report {
	runs := c.o.Shard.Count(c.total)
	jobs := runs + int64(len(c.samples))
	seconds := c.placeSeconds(runs)
	ctx := c.o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st := sweep.Run(ctx, jobs, sweep.Options{Jobs: c.o.Jobs, Name: "check", Progress: progressW, Terminal: c.o.ProgressTerminal},
		func(j int64) sweep.Verdict {
			s, p := jobOf(seconds, j)
			if s != nil {
				s.second = newSpool()
				c.execute(s.sc, s.wi, s.seed, s.second)
				s.second.finish()
				s.executed()
				return sweep.Passed
			}
			if i := c.o.Shard.Index(p); i >= c.seeded {
				if c.doRecorded(int(i - c.seeded)) {
					return sweep.Failed
				}
			} else if c.do(i) {
				return sweep.Failed
			}
			return sweep.Passed
		})
	c.interrupted = st.Handed < jobs
	return c.report()
}

// runIndex is the index in the whole check of the run of scenario sc,
// worker count wi and seed index seed. Runs go seed by seed, and within a
// seed scenario by scenario, then worker count by worker count, so that a
// check stopped part way (an interrupt) or watched while it runs has
// covered every row alike, and a shard (runs K-1 modulo N) spreads over
// the rows.
func (c *checker) runIndex(sc, wi, seed int) int64 {
	return int64(seed)*c.perSeed + int64(sc)*int64(len(c.o.Workers)) + int64(wi)
}

// runOf is runIndex's inverse: the scenario, worker count index and seed
// of run i.
func (c *checker) runOf(i int64) (sc, wi int, seed uint64) {
	rest := i % c.perSeed
	nw := int64(len(c.o.Workers))
	return int(rest / nw), int(rest % nw), c.o.SeedStart + uint64(i/c.perSeed)
}

// do runs run i of the whole check and reports whether it failed. Called
// by the job goroutines, each i once.
func (c *checker) do(i int64) (failed bool) {
	sc, wi, seed := c.runOf(i)
	var trace io.Writer
	s := c.sampleOf[i]
	if s != nil {
		s.first = newSpool()
		trace = s.first
	}
	sum := c.execute(sc, wi, seed, trace)
	if s != nil {
		s.first.finish()
		s.executed()
	}
	c.rows[sc][wi].add(c, sc, seed, &sum)
	return len(sum.failed) > 0
}

// execute runs one seed; the trace goes to trace when it is not nil. A
// panic or an error of the harness becomes a failed check, so one bad run
// never stops the others.
//
// At one worker, a scenario whose first run made no policy decision
// (checker.once) is not run again: that run stands for this seed's, with
// this seed's configuration; a run that writes a trace (a resample, a
// repro) is made all the same.
func (c *checker) execute(sc, wi int, seed uint64, trace io.Writer) (sum summary) {
	o := sim.Options{Seed: seed, HasSeed: true, Workers: c.o.Workers[wi], Mode: c.o.Mode, RealTimeout: c.o.RealTimeout,
		Strategy: c.o.Strategy, PCTDepth: c.o.PCTDepth, Trace: trace}
	if first := c.once[sc]; first != nil && trace == nil && o.Workers == 1 {
		sum = *first
		if cfg, err := sim.Resolve(c.scs[sc], o); err == nil {
			sum.cfg = cfg
		}
		return sum
	}
	return runOne(c.scs[sc], o, c.exec)
}

func runOne(sc *scenario.Scenario, o sim.Options, exec execFunc) (sum summary) {
	defer func() {
		if r := recover(); r != nil {
			sum.outcome = sim.OutcomeCrash
			sum.failed = []sim.Check{{Class: sim.ClassHarness, Name: "run-no-panic", Detail: fmt.Sprint(r)}}
		}
	}()
	cfg, err := sim.Resolve(sc, o)
	sum.cfg = cfg
	if err == nil {
		var run *sim.Run
		if run, err = exec(sc, cfg, o); err == nil {
			sum.outcome, sum.main, sum.steps, sum.decisions = run.Outcome, run.Result.String(), run.Steps, run.Decisions
			for _, ch := range run.Checks {
				if !ch.OK {
					sum.failed = append(sum.failed, ch)
				}
			}
			return sum
		}
	}
	sum.outcome = outcomeError
	sum.failed = []sim.Check{{Class: sim.ClassHarness, Name: "execute", Detail: err.Error()}}
	return sum
}

// add folds one run into the row.
func (a *rowAgg) add(c *checker, sc int, seed uint64, s *summary) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := &a.row
	r.Runs++
	r.StepsTotal += s.steps
	r.StepsMax = max(r.StepsMax, s.steps)
	r.Outcomes[s.outcome]++
	if s.decisions == 0 {
		r.Undecided++
	}
	if len(s.failed) == 0 {
		r.Passed++
		return
	}
	r.Failed++
	if seed-c.o.SeedStart < GridSeedsMax {
		r.FailSeeds = append(r.FailSeeds, seed) // sorted by the report
	}
	if r.Failed == 1 || seed < r.FirstFailSeed {
		r.FirstFailSeed = seed
	}
	sig := s.signature()
	k := a.kinds[sig]
	switch {
	case k == nil:
		k = &Failure{Path: c.paths[sc], Scenario: c.scs[sc].Name}
		a.kinds[sig] = k
	case seed < k.Seed:
		k.Seeds = insertSmallest(k.Seeds, k.Seed, seedsShownMax)
	default:
		k.Seeds = insertSmallest(k.Seeds, seed, seedsShownMax)
		k.Count++
		return
	}
	k.Count++
	k.Seed, k.Outcome, k.Main, k.Checks = seed, s.outcome, s.main, s.failed
	// The run's own sim.Config, with what the check set filled in even when
	// sim.Resolve panicked before returning it.
	k.Config = c.config(sc, slices.Index(c.o.Workers, r.Workers), seed)
}

// config is the configuration of one run of the check: the scenario's,
// resolved, at a seed and a worker count.
func (c *checker) config(sc, wi int, seed uint64) sim.Config {
	cfg := c.base[sc].AtSeed(seed)
	cfg.Workers = c.o.Workers[wi]
	return cfg
}

// insertSmallest inserts v into the sorted list, keeping the n smallest.
func insertSmallest(list []uint64, v uint64, n int) []uint64 {
	i := sort.Search(len(list), func(i int) bool { return list[i] >= v })
	if i >= n {
		return list
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = v
	if len(list) > n {
		list = list[:n]
	}
	return list
}
