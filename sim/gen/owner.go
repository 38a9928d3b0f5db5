package gen

import (
	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Bounds of a cancelled-owner group (cancelledOwner).
const (
	ownerSleepMax   = 30 // the owner's sleep in its nursery body, in ticks
	ownerChildMax   = 3  // compute before the owner's child fails
	ownerCancelMax  = 20 // compute before the owner is cancelled from outside
	ownerTasks      = 3  // made tasks: the owner, its child, the failing sibling
	ownerCostMax    = 2 + (2 + 5 + ownerChildMax + 1 + 1) + 2 + ownerCancelMax
	ownerCatchOneIn = 4
)

func (b *builder) cancelledOwnerFits(s scope, budget int) bool {
	return b.extra+ownerTasks <= extraTasksMax && budget >= ownerCostMax && len(s.nurseries) > 0
}

// cancelledOwner draws the shape in which a child's error was once lost:
// an owner task, spawned here, opens a nursery whose child fails soon
// while the owner's body sleeps (blocked), and the owner is cancelled from
// outside during that sleep: by a sibling that fails (when the enclosing
// nursery is fail_fast) or by the enclosing body cancelling its nursery
// after some compute. The owner must then end with its child's error
// unless its nursery catches, and with explicit cancellation nothing else
// fails the root. Which comes first, the child's failure or the
// cancellation, is the schedule's choice: the compute lengths are drawn so
// that both orders occur. Every part ends by itself (a sleep is a timer,
// the rest is straight-line), so the group stays in Safe's fragment.
func (b *builder) cancelledOwner(s scope, budget int) ([]scenario.Op, int) {
	b.extra += ownerTasks // the sibling's slot too, whether or not it is made
	child := b.next("f")
	childOps := []scenario.Op{}
	cc := b.draw(0, ownerChildMax, "owner_child_compute")
	if cc > 0 {
		childOps = append(childOps, scenario.Op{Kind: scenario.Compute, N: int64(cc)})
	}
	childOps = append(childOps, scenario.Op{Kind: scenario.Fail, Str: b.next("E")})
	b.addMade(child, childOps, cc)

	nop := scenario.Op{Kind: scenario.Nursery, Str: b.next("n"), Mode: scenario.ModeFailFast}
	if b.chance(3, "owner_mode") {
		nop.Mode = rapid.SampledFrom([]string{scenario.ModeCancelRemaining, scenario.ModeCollectAll}).Draw(b.t, "owner_mode_other")
	}
	nop.Catch = b.chance(ownerCatchOneIn, "owner_catch")
	nop.Body = []scenario.Op{b.madeSpawn(child), {Kind: scenario.Sleep, N: int64(b.draw(1, ownerSleepMax, "owner_sleep"))}}
	owner := b.next("o")
	ownerOps := []scenario.Op{nop}
	cost := 2 + 2 + cc + 1
	if rapid.Bool().Draw(b.t, "owner_tail") {
		ownerOps = append(ownerOps, scenario.Op{Kind: scenario.Log, Str: b.next("L")})
	}
	b.addMade(owner, ownerOps, cost)

	k := b.draw(0, ownerCancelMax, "owner_cancel_after")
	ops := []scenario.Op{b.madeSpawn(owner)}
	if s.nursery.mode == scenario.ModeFailFast && rapid.Bool().Draw(b.t, "owner_by_sibling") {
		sib := b.next("k")
		sibOps := []scenario.Op{{Kind: scenario.Compute, N: int64(k)}, {Kind: scenario.Fail, Str: b.next("E")}}
		b.addMade(sib, sibOps, k)
		ops = append(ops, b.madeSpawn(sib))
		return ops, 2 + cost + 2 + k
	}
	ops = append(ops, scenario.Op{Kind: scenario.Compute, N: int64(k)},
		scenario.Op{Kind: scenario.Cancel, Str: s.nurseries[len(s.nurseries)-1]})
	return ops, 2 + cost + k
}

// addMade records a task the builder made for a group, which nothing
// else names.
func (b *builder) addMade(name string, ops []scenario.Op, cost int) {
	b.sc.Tasks[name] = &scenario.Task{Name: name, Ops: ops}
	b.cost[name] = cost
}

// madeSpawn is the one spawn of a made task: with caps under sovereign as
// for channel partners, else inheriting.
func (b *builder) madeSpawn(name string) scenario.Op {
	b.refs[name]++
	op := scenario.Op{Kind: scenario.Spawn, Str: name}
	if b.sc.Scheduler.Profile == scenario.ProfileSovereign {
		if cs := b.drawCaps(false); cs.has {
			op.Caps, op.HasCaps = cs.caps, true
		}
	}
	return op
}
