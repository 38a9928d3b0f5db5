package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Recharge is `recharge = "as"` with amounts: gives budget to the child
// spawned `as` that name in this task body (or to the task itself). Op.Str
// is the `as` name, Op.Recharge the amounts.
const Recharge OpKind = 15

func init() {
	defineOp(&OpDef{
		Kind: Recharge, Name: "recharge",
		Sample:  `{ recharge = "a", ops = 10 }`,
		Options: []string{"ops", "memory", "spawn_count", "channel_ops", "syscalls"},
		Decode:  decodeRecharge, Exec: execRecharge, Format: formatRecharge,
		Safety: &OpSafety{},
	})
}

func decodeRecharge(d *decoder, op *Op, a opArgs) bool {
	as, ok := d.nonEmptyStr(a.val, a.kp)
	if !ok {
		return true
	}
	op.Str = as
	rest := make(map[string]any, len(a.m))
	for k, x := range a.m {
		if k != a.key {
			rest[k] = x
		}
	}
	op.Recharge = d.budgetOverride(rest, op.Path, "recharge")
	if !d.failed() && op.Recharge.Set == 0 {
		d.errorf(op.Path, "recharge of %q gives nothing: add at least one of ops, memory, spawn_count, channel_ops, syscalls", as)
	}
	a.ctx.recharges = append(a.ctx.recharges, rechargeSite{target: as, path: op.Path})
	return true
}

func execRecharge(_ Env, t *sched.Task, _ Scope, op *Op) error {
	_, err := driver.Recharge(t, op.Str, SchedBudget(op.Recharge.Over(Budget{})))
	return err
}

func formatRecharge(w Formatter, op *Op) {
	w.Printf("recharge = %s", w.Quote(op.Str))
	if f := w.BudgetFields(op.Recharge); f != "" {
		w.Printf(", %s", f)
	}
}
