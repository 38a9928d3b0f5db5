package sched

import "github.com/cbcsim/cbcsim/trace"

// RechargeSelf adds amount to t's own budget, each component up to what t
// started with: the capability grant of seed 001 section 3.2.3, for a
// caller that recharges explicitly (the C ABI's janus_budget_recharge)
// rather than on exhaustion. It needs the budget capability, which every
// task holds under service and cluster and only the tasks given it hold
// under sovereign; without it the task fails with CapabilityDenied.
// Negative components count as zero.
func (t *Task) RechargeSelf(amount Budget) error {
	if t.caps&CapBudget == 0 {
		return &SchedError{Code: ErrCapabilityDenied, Detail: "recharge without the budget capability"}
	}
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
		t.emit(trace.KindRecharge, trace.S("from", "self"), trace.I("ops", b.Ops-before))
	}
	return nil
}
