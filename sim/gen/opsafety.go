package gen

import "github.com/cbcsim/cbcsim/sim/scenario"

// opSafety is what Safe and the shrinker know of one operation, a row per
// scenario.OpKind as the interpreter's execs and the decoder's opSpecs
// are: a new operation is a row here (TestEveryOpHasSafetyRow), not a
// case in each of Safe's walks.
type opSafety struct {
	body bodyScope // where its body runs, if it has one
	// runs is how many times its body runs when it runs once, capped at
	// 2 (nil: once). Only loop repeats.
	runs func(op *scenario.Op) int
	ref  bool // names a task body it runs: call, spawn (Safe, rule 1)
	// spins: may be an op of a forever loop's body (rule 2).
	spins  bool
	chanOp chanRole // its part in a channel (rule 3)
	// beforeChan: cannot fail, so a collect_all channel partner may run it
	// before its last channel op (rule 3).
	beforeChan bool
	returns    bool // ends the task body by itself (return)
	// need is what one run of it charges its own task's budget, the bodies
	// it runs in the same task included (rule 4; nil: nothing).
	need func(v *safety, op *scenario.Op) need
	// halves: its N is a count the shrinker may halve.
	halves bool
	// defaults lists the edits that put its options back to their
	// defaults, for the shrinker (nil: none).
	defaults func(op *scenario.Op) []func(op *scenario.Op)
}

// bodyScope is where an op's body runs relative to the nurseries around it.
type bodyScope uint8

const (
	noBody   bodyScope = iota
	inNew              // inside a nursery the op opens (nursery)
	inSame             // inside the nurseries around the op (loop, using)
	detached           // when the task exits, outside every nursery (defer)
)

// inline: the body runs as part of the task body, so a `return` in it ends
// the task body.
func (b bodyScope) inline() bool { return b == inNew || b == inSame }

type chanRole uint8

const (
	notChan chanRole = iota
	sends
	recvs
	closes
)

var opSafeties [scenario.OpKindEnd]opSafety

func init() {
	once := func(n need) func(*safety, *scenario.Op) need {
		return func(*safety, *scenario.Op) need { return n }
	}
	bodyNeed := func(v *safety, op *scenario.Op) need { return v.bodyNeed(op.Body) }
	opSafeties = [...]opSafety{
		scenario.Compute: {spins: true, beforeChan: true, halves: true,
			need: func(_ *safety, op *scenario.Op) need { return need{ops: min(needCap, op.N)} }},
		scenario.Yield:       {spins: true, beforeChan: true},
		scenario.CheckCancel: {spins: true, beforeChan: true},
		scenario.Log:         {spins: true, beforeChan: true},
		scenario.Sleep:       {beforeChan: true, halves: true},
		scenario.Call: {ref: true,
			need: func(v *safety, op *scenario.Op) need { return need{ops: 1}.plus(v.needOf(op.Str)) }},
		scenario.Spawn: {ref: true, need: once(need{ops: 1}), defaults: spawnDefaults},
		scenario.Loop: {body: inSame, halves: true, runs: loopRuns,
			need: func(v *safety, op *scenario.Op) need {
				if op.N == scenario.LoopForever {
					return need{unbounded: true}
				}
				return need{ops: 1}.plus(v.bodyNeed(op.Body)).times(op.N)
			}},
		scenario.Nursery: {body: inNew, defaults: nurseryDefaults,
			need: func(v *safety, op *scenario.Op) need { return need{ops: 1}.plus(v.bodyNeed(op.Body)) }},
		scenario.Using:    {body: inSame, need: bodyNeed},
		scenario.Defer:    {body: detached, beforeChan: true, need: bodyNeed},
		scenario.Send:     {chanOp: sends, beforeChan: true, need: once(need{ops: 1, channelOps: 1})},
		scenario.Recv:     {chanOp: recvs, beforeChan: true, need: once(need{ops: 1, channelOps: 1})},
		scenario.Close:    {chanOp: closes, beforeChan: true, need: once(need{channelOps: 1})},
		scenario.Alloc:    {halves: true, need: func(_ *safety, op *scenario.Op) need { return need{ops: 1, memory: op.N} }},
		scenario.Syscall:  {halves: true, need: func(_ *safety, op *scenario.Op) need { return need{ops: op.N, syscalls: op.N} }},
		scenario.Return:   {returns: true, halves: true},
		scenario.Cancel:   {},
		scenario.Recharge: {},
		scenario.Fail:     {},
		scenario.Panic:    {},
	}
}

// safetyOf is op's row.
func safetyOf(op *scenario.Op) *opSafety { return &opSafeties[op.Kind] }

// loopRuns: a loop's body runs N times, capped at 2 (forever is 2).
func loopRuns(op *scenario.Op) int {
	if op.N >= 0 && op.N < 2 {
		return int(op.N)
	}
	return 2
}

// nurseryDefaults: mode, catch, timeout and budget.
func nurseryDefaults(op *scenario.Op) []func(*scenario.Op) {
	var out []func(*scenario.Op)
	if op.Mode != scenario.ModeFailFast {
		out = append(out, func(op *scenario.Op) { op.Mode = scenario.ModeFailFast })
	}
	if op.Catch {
		out = append(out, func(op *scenario.Op) { op.Catch = false })
	}
	if op.HasTimeout {
		out = append(out, func(op *scenario.Op) { op.Timeout, op.HasTimeout = 0, false })
	}
	if op.NurseryBudget != nil {
		out = append(out, func(op *scenario.Op) { op.NurseryBudget = nil })
	}
	return out
}

// spawnDefaults: budget, caps and `as` (which loads only once no recharge
// names it).
func spawnDefaults(op *scenario.Op) []func(*scenario.Op) {
	var out []func(*scenario.Op)
	if op.SpawnBudget != nil {
		out = append(out, func(op *scenario.Op) { op.SpawnBudget = nil })
	}
	if op.HasCaps {
		out = append(out, func(op *scenario.Op) { op.Caps, op.HasCaps = nil, false })
	}
	if op.As != "" {
		out = append(out, func(op *scenario.Op) { op.As = "" })
	}
	return out
}
