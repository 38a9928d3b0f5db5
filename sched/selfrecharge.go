package sched

import "github.com/cbcsim/cbcsim/trace"

// RechargeSelf adds amount to t's own budget, each component up to what t
// started with, for a caller that recharges explicitly (the C ABI's
// janus_budget_recharge) rather than on exhaustion. It is the budget
// capability's one self-recharge (docs/semantics.md, "Exhaustion and
// recharge"), shared with the automatic one: once either has happened, or
// without the capability (sovereign tasks not given it), it returns a
// CapabilityDenied *SchedError and changes nothing. An amount of zero
// (negative components count as zero) changes nothing and spends nothing.
func (t *Task) RechargeSelf(amount Budget) error {
	if t.caps&CapBudget == 0 {
		return &SchedError{Code: CodeCapabilityDenied, Detail: "recharge without the budget capability"}
	}
	if amount.Ops <= 0 && amount.Memory <= 0 && amount.SpawnCount <= 0 && amount.ChannelOps <= 0 && amount.Syscalls <= 0 {
		return nil
	}
	x := t.ext()
	if x.selfRecharged {
		return &SchedError{Code: CodeCapabilityDenied, Detail: "the budget capability's one self-recharge is spent"}
	}
	x.selfRecharged = true
	up := func(have, add, limit int64) int64 {
		if add <= 0 || have >= limit {
			return have
		}
		return min(have+add, limit)
	}
	b, lim := &t.budget, t.initial
	before := b.Ops
	b.Ops = up(b.Ops, amount.Ops, lim.Ops)
	b.Memory = up(b.Memory, amount.Memory, lim.Memory)
	b.SpawnCount = up(b.SpawnCount, amount.SpawnCount, lim.SpawnCount)
	b.ChannelOps = up(b.ChannelOps, amount.ChannelOps, lim.ChannelOps)
	b.Syscalls = up(b.Syscalls, amount.Syscalls, lim.Syscalls)
	if t.emitting() {
		t.emit(trace.KindRecharge, trace.S(trace.KeyFrom, "self"), trace.I(trace.KeyOps, b.Ops-before))
	}
	return nil
}
