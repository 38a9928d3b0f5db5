package sim

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// program interprets a scenario's task bodies on the sched API. It is just
// one client of that API: every operation maps to a public sched call,
// written in the operation's definition (scenario.OpDef.Exec); program is
// the scenario.Env those definitions run in.
type program struct {
	sc       *scenario.Scenario
	funcs    map[string]sched.Func
	channels map[string]driver.Channel
	lim      realLimits // real mode only
	sites    *sink      // a story run's sink, told the op each task is at (sink.Site); nil otherwise
}

func newProgram(sc *scenario.Scenario, s *driver.Scheduler) *program {
	p := &program{sc: sc, funcs: make(map[string]sched.Func, len(sc.Tasks)), channels: map[string]driver.Channel{}}
	for _, ch := range sc.Channels {
		p.channels[ch.Name] = driver.NewChannel(s, ch.Name, ch.Capacity)
	}
	for _, name := range sc.TaskNames {
		ops := sc.Tasks[name].Ops
		p.funcs[name] = func(t *sched.Task) error {
			err := p.Run(t, nil, ops)
			if err == scenario.ErrReturn {
				return nil
			}
			return err
		}
	}
	return p
}

func budgetOf(b scenario.Budget) sched.Budget { return scenario.SchedBudget(b) }

// Run runs ops in t, inside the nurseries sc, each by its definition's
// Exec. It returns scenario.ErrReturn when a `return` ended the body.
//
// In a story run the sink is told each op's path before it runs, and the
// enclosing op's again when a nested body ends: a nursery's owner then
// waits for its children at the nursery op, not at its body's last op.
// (Not deferred: a body that panics ends its task, whose place no one
// reads again, and a defer on every body cost a seeded step more.)
func (p *program) Run(t *sched.Task, sc scenario.Scope, ops []scenario.Op) error {
	if p.sites == nil {
		return p.run(t, sc, ops)
	}
	id := t.ID()
	enclosing := p.sites.site(id)
	err := p.run(t, sc, ops)
	p.sites.Site(id, enclosing)
	return err
}

// run is Run's loop over ops.
func (p *program) run(t *sched.Task, sc scenario.Scope, ops []scenario.Op) error {
	for i := range ops {
		op := &ops[i]
		d := op.Kind.Def()
		if d == nil {
			panic(fmt.Sprintf("sim: Run: unknown operation %d at %s", op.Kind, op.Path))
		}
		if p.sites != nil {
			p.sites.Site(t.ID(), op.Path)
		}
		if err := d.Exec(p, t, sc, op); err != nil {
			return err
		}
	}
	return nil
}

// The rest of scenario.Env.

func (p *program) Scenario() *scenario.Scenario           { return p.sc }
func (p *program) Func(task string) sched.Func            { return p.funcs[task] }
func (p *program) Channel(name string) driver.Channel     { return p.channels[name] }
func (p *program) Release(l scenario.Limit)               { p.lim.release(int(l)) }
func (p *program) Sleep(t *sched.Task, ticks int64) error { return p.lim.sleep(t, ticks) }

func (p *program) Take(l scenario.Limit) error { return p.lim.take(int(l)) }

func (p *program) Timeout(t *sched.Task, ticks int64) (int64, bool) { return p.lim.timeout(t, ticks) }

func (p *program) EndTimeout(t *sched.Task, err error) error { return p.lim.endTimeout(t, err) }
