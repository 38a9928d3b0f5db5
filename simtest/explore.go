package simtest

import (
	"bytes"
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/explore"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// explore runs the systematic search of package sim/explore on body with
// workers workers: the schedules of at most c.preemptions preemptions,
// fewest first, up to c.seeds of them, each an execution of the body
// under the watchdog (execute) with the explorer's chooser, all with the
// seed c.seedStart. It returns the report and the failure, shrunk, with
// the shrunk schedule's trace saved; a harness error (a stall, a real
// goroutine) is the error. failing, when not nil, is called with every
// schedule's verdict and makes the search go on past failures (Count).
func (c *config) explore(name string, body sched.Func, workers int, failing func(failed bool)) (*explore.Report, *failure, error) {
	cfg := sim.Config{Seed: c.seedStart, Workers: workers, YieldInterval: sched.DefaultYieldInterval(sched.Config{}.Profile),
		MaxSteps: c.maxSteps, Strategy: sim.StrategyExplore}
	exec := func(_ *scenario.Scenario, cfg sim.Config, o sim.Options) (*sim.Run, error) {
		b := c.body(name, cfg.Seed, cfg.Workers)
		b.Strategy, b.Chooser, b.Trace = sim.StrategyExplore, o.Chooser, o.Trace
		r, _, err := c.execute(b, body)
		if err != nil {
			return nil, err
		}
		return &sim.Run{Config: r.Config, Outcome: r.Outcome, Result: r.Result, Steps: r.Steps, Crash: r.Crash, Checks: r.Checks}, nil
	}
	o := explore.Options{Preemptions: c.preemptions, MaxSchedules: c.seeds, Exec: exec, Failing: bodyFailing}
	if failing != nil {
		o.Failing = func(r *sim.Run) []string {
			failing(len(bodyFailing(r)) > 0)
			return nil
		}
	}
	rep, err := explore.RunExec(cfg, o)
	if err != nil || rep.Failure == nil {
		return rep, nil, err
	}
	fl := rep.Failure
	var tr bytes.Buffer
	if err := explore.TraceShrunk(&tr, cfg, fl, exec); err != nil {
		return rep, nil, err
	}
	r := fl.Run
	f := judge(&sim.BodyRun{Config: r.Config, Outcome: r.Outcome, Result: r.Result, Steps: r.Steps, Crash: r.Crash, Checks: r.Checks},
		tr.Bytes(), c.seedStart, workers)
	if f == nil { // the shrunk run must fail as the found one did
		return rep, nil, fmt.Errorf("the failing schedule %d passed when run again", rep.Schedules)
	}
	f.strategy, f.rerun = sim.StrategyExplore, true
	f.schedule = fmt.Sprintf(" (schedule %d, found with %s, shrunk to %s)", rep.Schedules, fl.Found.Size(), fl.Shrunk.Size())
	f.save(name, tr.Bytes(), "")
	return rep, f, nil
}

// bodyFailing is explore's verdict on a body's run, as judge's: the
// invariants that broke, and any outcome but ok.
func bodyFailing(r *sim.Run) []string {
	out := sim.FailedChecks(r)
	if r.Outcome != sim.OutcomeOK {
		out = append(out, "outcome:"+string(r.Outcome))
	}
	return out
}

// exhaustiveNote says whether an exploration ran every schedule within
// its bound.
func exhaustiveNote(rep *explore.Report) string {
	if rep.Exhaustive {
		return fmt.Sprintf(" (every schedule of at most %d preemptions)", rep.Bound)
	}
	return fmt.Sprintf(" (not exhaustive: capped at %d schedules)", rep.Max)
}
