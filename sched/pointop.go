package sched

import "github.com/cbcsim/cbcsim/internal/mutant"

// pointOp is point(Cost{Ops: 1}), the checkpoint of each of Compute's
// iterations, most of a seeded run's steps: with the budget's check and
// charge of the one op written out instead of charge's call and its
// checks and subtractions of all five components. When the budget would
// fall short (or a mutant is on) it is point itself, so the outcome,
// its events and their order are point's.
func (t *Task) pointOp() error {
	b := &t.budget
	if b.Ops < 1 || b.Memory < 0 || b.SpawnCount < 0 || b.ChannelOps < 0 || b.Syscalls < 0 || mutant.On(mutant.BudgetNotCharged) {
		return t.point(Cost{Ops: 1})
	}
	b.Ops--
	t.opsSinceYield++
	if int(t.opsSinceYield) >= t.s.cfg.YieldInterval {
		t.opsSinceYield = 0
		t.yields++
		t.suspend(reasonInterval)
	}
	if t.s.cfg.Mode.Stepped() {
		t.endStep()
	}
	return t.observe()
}
