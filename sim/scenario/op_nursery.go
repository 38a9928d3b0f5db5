package scenario

import (
	"math"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// Nursery is `nursery = "label"` with a body: a structured-concurrency
// scope whose children are awaited at its end. Op.Str is the label,
// Op.Body the body; the options are Mode, Timeout/HasTimeout,
// MaxConcurrent, NurseryBudget, Catch and (version 2) TimeoutFails.
const Nursery OpKind = 6

func init() {
	defineOp(&OpDef{
		Kind: Nursery, Name: "nursery",
		Sample:  `{ nursery = "m", mode = "collect_all", timeout = 100, max_concurrent = 2, budget = { ops = 100 }, catch = true, body = [{ spawn = "child" }] }`,
		Options: []string{"body", "mode", "timeout", "max_concurrent", "budget", "catch", "timeout_fails"},
		Decode: func(d *decoder, op *Op, a opArgs) bool {
			d.nursery(op, a.m, a.val, a.ctx, a.depth)
			return false // the body is decoded with the label pushed
		},
		Exec: execNursery, Format: formatNursery,
		Safety: &OpSafety{Body: BodyInNew, Defaults: nurseryDefaults,
			Need: func(c Coster, op *Op) Need { return Need{Ops: 1}.Plus(c.BodyNeed(op.Body)) }},
	})
}

func (d *decoder) nursery(op *Op, m map[string]any, val any, ctx *bodyCtx, depth int) {
	kp := keyPath(op.Path, "nursery")
	label, ok := d.nonEmptyStr(val, kp)
	if !ok {
		return
	}
	op.Str = label
	op.Mode = DefaultMode
	if d.profile == ProfileCore {
		d.errorf(op.Path, "nursery is not allowed under profile \"core\" (it has no scheduler)")
		return
	}
	d.labels[label] = true
	for _, k := range d.keys(m, op.Path) {
		p := keyPath(op.Path, k)
		switch k {
		case "mode":
			if s, ok := d.oneOf(m[k], p, modes); ok {
				op.Mode = s
			}
		case "timeout":
			op.Timeout, op.HasTimeout = d.intIn(m[k], p, 1, math.MaxInt64)
		case "max_concurrent":
			n, _ := d.intIn(m[k], p, 0, maxConcurrentMax)
			op.MaxConcurrent = int(n)
		case "budget":
			o := d.budgetOverride(m[k], p, "a nursery budget")
			op.NurseryBudget = &o
		case "catch":
			op.Catch, _ = d.boolean(m[k], p)
		case "timeout_fails":
			if d.since(2, p, "the nursery option timeout_fails") {
				op.TimeoutFails, _ = d.boolean(m[k], p)
			}
		}
	}
	if op.TimeoutFails && !op.HasTimeout {
		d.errorf(keyPath(op.Path, "timeout_fails"), "timeout_fails needs a timeout: without one there is nothing to fail")
	}
	if b, ok := m["body"]; ok && !d.failed() {
		ctx.nurseries = append(ctx.nurseries, label)
		op.Body = d.body(b, keyPath(op.Path, "body"), ctx, depth+1)
		ctx.nurseries = ctx.nurseries[:len(ctx.nurseries)-1]
	}
}

func execNursery(e Env, t *sched.Task, sc Scope, op *Op) error {
	if err := e.Take(LimitNurseries); err != nil {
		return err
	}
	mode, _ := nursery.ParseMode(op.Mode)
	o := sched.NurseryOptions{Label: op.Str, Mode: mode, MaxConcurrent: op.MaxConcurrent, Catch: op.Catch, TimeoutFails: op.TimeoutFails}
	cut := false
	if op.HasTimeout {
		o.Timeout, cut = e.Timeout(t, op.Timeout)
	}
	if op.NurseryBudget != nil {
		b := SchedBudget(op.NurseryBudget.Over(e.Scenario().Budget))
		o.Budget = &b
	}
	var b block
	err := b.leave(t.Nursery(o, func(n *sched.Nursery) error {
		return b.run(e, t, append(sc[:len(sc):len(sc)], n), op.Body)
	}))
	if cut {
		err = e.EndTimeout(t, err)
	}
	return err
}

func formatNursery(w Formatter, op *Op) {
	w.Printf("nursery = %s", w.Quote(op.Str))
	mode := op.Mode
	if mode == "" {
		mode = DefaultMode
	}
	w.Printf(", mode = %s", w.Quote(mode))
	if op.HasTimeout {
		w.Printf(", timeout = %d", op.Timeout)
	}
	if op.MaxConcurrent != 0 {
		w.Printf(", max_concurrent = %d", op.MaxConcurrent)
	}
	if op.NurseryBudget != nil {
		w.Printf(", budget = %s", w.BudgetTable(*op.NurseryBudget))
	}
	if op.Catch {
		w.Printf(", catch = true")
	}
	if op.TimeoutFails {
		w.Printf(", timeout_fails = true")
	}
}

// nurseryDefaults: mode, catch, timeout and budget.
func nurseryDefaults(op *Op) []func(*Op) {
	var out []func(*Op)
	if op.Mode != ModeFailFast {
		out = append(out, func(op *Op) { op.Mode = ModeFailFast })
	}
	if op.Catch {
		out = append(out, func(op *Op) { op.Catch = false })
	}
	if op.HasTimeout {
		out = append(out, func(op *Op) { op.Timeout, op.HasTimeout, op.TimeoutFails = 0, false, false })
	}
	if op.TimeoutFails {
		out = append(out, func(op *Op) { op.TimeoutFails = false })
	}
	if op.NurseryBudget != nil {
		out = append(out, func(op *Op) { op.NurseryBudget = nil })
	}
	return out
}
