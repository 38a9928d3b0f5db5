package sim

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// executeReal runs the scenario on real worker goroutines: no seeded
// driver, no trace, real concurrency. The outcome and expectations must
// hold here too; the invariants that need the event history (LIFO order,
// first error in completion order, race protection) are checked in seeded
// mode only, and the ones readable from the final state here. A run that
// passes max_steps worker steps is cancelled and reported as a livelock.
func executeReal(sc *scenario.Scenario, c Config) (*Run, error) {
	s, err := newScheduler(sc, c, nil, nil)
	if err != nil {
		return nil, err
	}
	p := newProgram(sc, s)
	p.lim.on = true
	p.lim.startWall(c.RealTimeout, s.Now)
	run := &Run{Scenario: sc, Config: c}
	res := runReal(s, sc, p)
	run.Result = res
	run.Outcome = outcomeOf(res)
	if s.LimitHit() {
		run.Outcome = OutcomeLivelock
	}
	if name, max := p.lim.passed(); name != "" {
		run.Outcome, run.Limit = OutcomeLivelock, limitText(name, max)
	}
	if s.Deadlocked() {
		run.Outcome = OutcomeDeadlock
	}
	if p.lim.wallPassed() {
		run.Outcome, run.Limit = OutcomeLivelock, p.lim.wallText()
	}
	collect(run, s)
	for _, w := range run.Workers {
		run.Steps += w.Stats.Steps
	}
	if c.Mode.Lean() {
		// Nothing was kept to build tables from: main's own expectations only.
		if sc.Expect != nil {
			x := *sc.Expect
			x.Nursery, x.NurseryLabels = nil, nil
			run.Checks = checkExpect(&x, run)
		}
	} else {
		run.Checks = append(checkFinal(run), checkExpect(sc.Expect, run)...)
	}
	if run.Limit != "" {
		run.Checks = append(run.Checks, limitCheck(run))
	}
	return run, nil
}

func runReal(s *driver.Scheduler, sc *scenario.Scenario, p *program) sched.Result {
	return s.Sched().Run("main", p.funcs["main"])
}
