package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Spawn is `spawn = "task"`: starts that task as a child of the innermost
// enclosing nursery. Op.Str is the task's name; the options are As,
// SpawnBudget, Caps/HasCaps and (version 2) Into: the label of a nursery
// the spawning task was handed, its own or one its ancestors are inside,
// which it spawns into wherever it is (sched.Nursery.GoFrom).
const Spawn OpKind = 5

func init() {
	defineOp(&OpDef{
		Kind: Spawn, Name: "spawn",
		Sample:  `{ spawn = "child", as = "b", budget = { ops = 50 } }`,
		Options: []string{"as", "budget", "caps", "into"},
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
	if into, given := m["into"]; given && d.since(2, keyPath(op.Path, "into"), "spawn's option into") {
		op.Into, _ = d.nonEmptyStr(into, keyPath(op.Path, "into"))
		d.intos = append(d.intos, labelSite{label: op.Into, path: keyPath(op.Path, "into")})
	}
	switch {
	case d.failed():
		return
	case d.profile == ProfileCore:
		d.errorf(op.Path, "spawn is not allowed under profile \"core\" (it has no scheduler)")
		return
	case len(ctx.nurseries) == 0 && op.Into == "":
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

func execSpawn(e Env, t *sched.Task, sc Scope, op *Op) error {
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
	if op.Into != "" {
		n := handed(t, sc, op.Into)
		if n == nil {
			e.Release(LimitTasks)
			return &sched.SchedError{Code: sched.CodeNurseryNotActive, Detail: "spawn into " + op.Into + ": no such nursery was handed to this task"}
		}
		return n.GoFrom(t, op.Str, e.Func(op.Str), o)
	}
	return sc[len(sc)-1].Go(op.Str, e.Func(op.Str), o)
}

// handed is the nursery labelled label that t may spawn into: one of its
// own enclosing nurseries (innermost first), else the one it belongs to
// or one its ancestors belong to (nearest first); nil if none is.
func handed(t *sched.Task, sc Scope, label string) *sched.Nursery {
	for i := len(sc) - 1; i >= 0; i-- {
		if sc[i].Label() == label {
			return sc[i]
		}
	}
	for p := driver.Parent(t); p != nil; p = driver.Parent(p.Owner()) {
		if p.Label() == label {
			return p
		}
	}
	return nil
}

func formatSpawn(w Formatter, op *Op) {
	w.Printf("spawn = %s", w.Quote(op.Str))
	if op.Into != "" {
		w.Printf(", into = %s", w.Quote(op.Into))
	}
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
