package scenario

import "github.com/cbcsim/cbcsim/sched"

// Spawn is `spawn = "task"`: starts that task as a child of the innermost
// enclosing nursery. Op.Str is the task's name; the options are As,
// SpawnBudget and Caps/HasCaps.
const Spawn OpKind = 5

func init() {
	defineOp(&OpDef{
		Kind: Spawn, Name: "spawn",
		Sample:  `{ spawn = "child", as = "b", budget = { ops = 50 } }`,
		Options: []string{"as", "budget", "caps"},
		Decode: func(d *decoder, op *Op, a opArgs) bool {
			d.spawn(op, a.m, a.val, a.ctx)
			return true
		},
		Exec: execSpawn, Format: formatSpawn,
		Safety: &OpSafety{Ref: true, Need: needsOnce(Need{Ops: 1}), Defaults: spawnDefaults},
	})
}

func (d *decoder) spawn(op *Op, m map[string]any, val any, ctx *bodyCtx) {
	kp := keyPath(op.Path, "spawn")
	name, ok := d.nonEmptyStr(val, kp)
	if !ok {
		return
	}
	op.Str = name
	switch {
	case d.profile == ProfileCore:
		d.errorf(op.Path, "spawn is not allowed under profile \"core\" (it has no scheduler)")
		return
	case len(ctx.nurseries) == 0:
		d.errorf(op.Path, "N1001 SpawnOutsideNursery: spawn of %q is not inside a nursery body of task %q", name, ctx.task)
		return
	case !d.tasks[name]:
		d.errorf(op.Path, "unknown task %q in spawn", name)
		return
	}
	for _, k := range d.keys(m, op.Path) {
		p := keyPath(op.Path, k)
		switch k {
		case "as":
			if as, ok := d.nonEmptyStr(m[k], p); ok {
				op.As = as
				ctx.as[as] = true
			}
		case "budget":
			o := d.budgetOverride(m[k], p, "a spawn budget")
			op.SpawnBudget = &o
		case "caps":
			op.Caps, op.HasCaps = d.caps(m[k], p)
		}
	}
}

func execSpawn(e Env, _ *sched.Task, sc Scope, op *Op) error {
	n := sc[len(sc)-1]
	o := sched.SpawnOptions{As: op.As, HasCaps: op.HasCaps}
	if op.SpawnBudget != nil {
		b := SchedBudget(op.SpawnBudget.Over(e.Scenario().Budget))
		o.Budget = &b
	}
	if op.HasCaps {
		caps, err := sched.ParseCaps(op.Caps)
		if err != nil {
			return err
		}
		o.Caps = caps
	}
	if err := e.Take(LimitTasks); err != nil {
		return err
	}
	return n.Go(op.Str, e.Func(op.Str), o)
}

func formatSpawn(w Formatter, op *Op) {
	w.Printf("spawn = %s", w.Quote(op.Str))
	if op.As != "" {
		w.Printf(", as = %s", w.Quote(op.As))
	}
	if op.SpawnBudget != nil {
		w.Printf(", budget = %s", w.BudgetTable(*op.SpawnBudget))
	}
	if op.HasCaps {
		w.Printf(", caps = %s", w.Strings(op.Caps))
	}
}

// spawnDefaults: budget, caps and `as` (which loads only once no recharge
// names it).
func spawnDefaults(op *Op) []func(*Op) {
	var out []func(*Op)
	if op.SpawnBudget != nil {
		out = append(out, func(op *Op) { op.SpawnBudget = nil })
	}
	if op.HasCaps {
		out = append(out, func(op *Op) { op.Caps, op.HasCaps = nil, false })
	}
	if op.As != "" {
		out = append(out, func(op *Op) { op.As = "" })
	}
	return out
}
