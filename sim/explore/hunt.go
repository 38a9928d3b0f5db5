package explore

import (
	"bytes"
	"fmt"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Hunt is one cell of a bug-finding table (a mutant against a strategy):
// how many runs a strategy needed to catch a failure of sc, and how small
// the failing schedule shrank.
type Hunt struct {
	Strategy string // random, pct or explore
	Runs     int64  // seeds (random, pct) or schedules (explore) run, up to and including the first failure
	Caught   bool
	Seed     uint64   // random, pct: the failing seed
	Failure  *Failure // the failing schedule, found and shrunk; nil when not caught or not shrunk
	Note     string   // why the schedule was not shrunk, if it was not
}

// HuntOptions configures RunHunt.
type HuntOptions struct {
	Workers  int
	Strategy string // random, pct or explore
	PCTDepth int    // pct: 0 means the default
	Limit    int    // seeds 0..Limit-1, or at most Limit schedules
	// Explore's bound and the failure predicate and executor, as for Run.
	Preemptions int
	Failing     func(*sim.Run) []string
	Exec        Exec
}

// RunHunt runs sc under o.Strategy until the first failure or o.Limit
// runs, and shrinks the failing schedule. The mutation harness calls it
// once per mutant and strategy.
func RunHunt(sc *scenario.Scenario, o HuntOptions) (*Hunt, error) {
	if o.Limit < 1 {
		return nil, fmt.Errorf("hunt limit %d must be at least 1", o.Limit)
	}
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Exec == nil {
		o.Exec = sim.Execute
	}
	h := &Hunt{Strategy: o.Strategy}
	if o.Strategy == sim.StrategyExplore {
		rep, err := Run(sc, Options{Workers: o.Workers, Preemptions: o.Preemptions, MaxSchedules: o.Limit, Failing: o.Failing, Exec: o.Exec})
		if err != nil {
			return nil, err
		}
		h.Runs, h.Caught, h.Failure = rep.Schedules, rep.Failure != nil, rep.Failure
		return h, nil
	}
	for seed := uint64(0); seed < uint64(o.Limit); seed++ {
		so := sim.Options{Seed: seed, HasSeed: true, Workers: o.Workers, Strategy: o.Strategy, PCTDepth: o.PCTDepth}
		c, err := sim.Resolve(sc, so)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		so.Trace = &buf
		run, err := o.Exec(sc, c, so)
		if err != nil {
			return nil, err
		}
		h.Runs++
		if len(o.Failing(run)) == 0 {
			continue
		}
		h.Caught, h.Seed = true, seed
		f, _, _, err := shrinkTraceData(fmt.Sprintf("seed %d", seed), buf.Bytes(), Options{Failing: o.Failing, Exec: o.Exec})
		if err != nil {
			h.Note = err.Error()
		}
		h.Failure = f
		return h, nil
	}
	return h, nil
}
