package sched

import (
	"errors"

	"github.com/cbcsim/cbcsim/internal/mutant"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// exhausted handles a budget component that cannot pay c
// (docs/spec.md#budgets). The task is BudgetExhausted until something
// recharges it, in this order: credit a supervisor already granted, its
// nursery's pool (parent recharge, up to its initial budget), itself once
// if it holds the budget capability (the capability limit is one more
// initial budget), and, under the cluster profile for a child spawned with
// a name (`as`), a supervisor's recharge, which it waits for. When nothing
// can recharge it, it fails with ResourceExhausted.
//
// Inside a cleanup it never fails and never waits: a cleanup is not cut
// short (docs/semantics.md#budgets-in-cleanups). When nothing recharges
// it at once it returns errOverrun: the operation runs uncharged, the
// overrun is traced once, and the task ends err:ResourceExhausted after
// its cleanups (end).
func (t *Task) exhausted(comp Component, c Cost) error {
	inCleanup := t.cleanupDepth > 0 && !mutant.On(mutant.CleanupCutShort)
	if inCleanup && t.taskExt != nil && t.overrun != CompNone {
		return errOverrun // overrun already: the rest of its cleanups run uncharged
	}
	if t.emitting() {
		t.emit(trace.KindExhausted, trace.S(trace.KeyComp, comp.String()))
	}
	for {
		if t.rechargeNow(c) {
			return nil
		}
		if inCleanup {
			t.ext().overrun = comp
			if t.emitting() {
				t.emit(trace.KindNote, trace.S(trace.KeyOverrun, comp.String()))
			}
			return errOverrun
		}
		n, x := t.parent, t.ext()
		if n == nil || x.as == "" || t.s.cfg.Profile != ProfileCluster {
			return &SchedError{Code: CodeResourceExhausted, Detail: comp.String() + " exhausted"}
		}
		// Wait for the supervisor.
		t.enlist() // already done at spawn for a task with a name (lean.go)
		t.setWait(t.cleanupDepth == 0, 0)
		rw := &rechargeWait{t: t, interruptible: t.wait.interruptible}
		rw.ref.b = rw
		t.w.blockOn = rw
		t.siteHere()
		t.suspend(reasonBlock)
		if t.wait.state == waitCancelled || (t.wait.interruptible && t.cancelled() != 0) {
			return t.observe()
		}
	}
}

// errOverrun is exhausted's answer inside a cleanup that nothing could
// recharge: charge lets the operation run uncharged.
var errOverrun = errors.New("sched: budget overrun in a cleanup")

// rechargeNow tries the recharges that need no wait: a supervisor's
// credit and the nursery's pool (rechargeTask), then the task itself,
// once, with the budget capability. It reports whether t can now pay c.
func (t *Task) rechargeNow(c Cost) bool {
	if n := t.parent; n != nil && n.rechargeTask(t, c) {
		return true
	}
	x := t.ext()
	if t.caps&CapBudget == 0 || x.selfRecharged {
		return false
	}
	x.selfRecharged = true
	t.refill(*t.initial)
	if t.emitting() {
		t.emit(trace.KindRecharge, trace.S(trace.KeyFrom, "self"))
	}
	return t.budget.short(c) == CompNone
}

// overrunErr is the error an overrun in a cleanup leaves as the task's
// result, if nothing else failed.
func (t *Task) overrunErr() error {
	return &SchedError{Code: CodeResourceExhausted, Detail: t.overrun.String() + " exhausted in a cleanup, which ran on uncharged"}
}

// refill raises each component of t's budget to at least b's.
func (t *Task) refill(b Budget) {
	t.budget.Ops = max(t.budget.Ops, b.Ops)
	t.budget.Memory = max(t.budget.Memory, b.Memory)
	t.budget.SpawnCount = max(t.budget.SpawnCount, b.SpawnCount)
	t.budget.ChannelOps = max(t.budget.ChannelOps, b.ChannelOps)
	t.budget.Syscalls = max(t.budget.Syscalls, b.Syscalls)
}

// rechargeTask refills t from credit a supervisor granted and from the pool
// (docs/spec.md#budgets), the pool up to t's initial budget. It reports
// whether t can now pay c.
func (n *Nursery) rechargeTask(t *Task, c Cost) bool {
	t.mu.Lock()
	credit := t.credit
	t.credit = nil
	t.mu.Unlock()
	if credit != nil {
		add(&t.budget, *credit)
		if t.emitting() {
			t.emit(trace.KindRecharge, trace.S(trace.KeyFrom, "supervisor"), trace.I(trace.KeyOps, credit.Ops))
		}
		if t.budget.short(c) == CompNone {
			return true
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	want := Budget{
		Ops:        max(t.initial.Ops-t.budget.Ops, 0),
		Memory:     max(t.initial.Memory-t.budget.Memory, 0),
		ChannelOps: max(t.initial.ChannelOps-t.budget.ChannelOps, 0),
		Syscalls:   max(t.initial.Syscalls-t.budget.Syscalls, 0),
	}
	got := n.pool.take(want)
	add(&t.budget, got)
	if got != (Budget{}) && t.emitting() {
		t.emit(trace.KindRecharge, trace.S(trace.KeyFrom, "pool"), trace.I(trace.KeyOps, got.Ops))
	}
	return t.budget.short(c) == CompNone
}

func add(b *Budget, c Budget) {
	b.Ops += c.Ops
	b.Memory += c.Memory
	b.SpawnCount += c.SpawnCount
	b.ChannelOps += c.ChannelOps
	b.Syscalls += c.Syscalls
}

// rechargeWait is the blocker of an exhausted task waiting for its
// supervisor. Its lock is the task's own mu (not its nursery's: cancelling
// the nursery holds that lock while it interrupts the task).
type rechargeWait struct {
	ref           waitRef // points back here: one allocation per wait
	t             *Task
	interruptible bool
}

func (b *rechargeWait) describe() string { return "recharge" }

func (b *rechargeWait) park(t *Task, w *worker) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.credit != nil || (t.wait.interruptible && t.cancelled() != 0) {
		return false
	}
	t.rechargeWaiting = true
	if !t.publishWait(stateExhausted, &b.ref) {
		t.rechargeWaiting = false
		return false
	}
	return true
}

func (b *rechargeWait) cancelWait(t *Task) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.rechargeWaiting || !b.interruptible {
		return false
	}
	t.rechargeWaiting = false
	t.wait.state = waitCancelled
	t.waitingOn.Store(nil)
	return true
}

// Recharge grants amount to the unfinished child spawned `as` name in the
// innermost nursery t has open that has one (a `:cluster` supervisor's
// recharge). It needs the cluster profile, or the supervisor capability
// under sovereign; otherwise the task fails with CapabilityDenied. A child
// waiting in BudgetExhausted wakes. It reports whether a child was found.
func (view *taskOps) Recharge(name string, amount Budget) (bool, error) {
	t := (*Task)(view)
	switch {
	case t.s.cfg.Profile == ProfileCluster:
	case t.s.cfg.Profile == ProfileSovereign && t.caps&CapSupervisor != 0:
	default:
		return false, &SchedError{Code: CodeCapabilityDenied, Detail: "recharge needs the cluster profile or the supervisor capability"}
	}
	t.mu.Lock()
	innermost := t.owned
	t.mu.Unlock()
	// Only t changes its own chain of open nurseries, and t is running
	// here, so walking it after unlocking is safe.
	for n := innermost; n != nil; n = n.outer {
		n.mu.Lock()
		for j := n.children.Len() - 1; j >= 0; j-- {
			c := *n.children.At(j)
			if c == nil {
				continue
			}
			c.mu.Lock()
			named := c.taskExt != nil && c.as == name
			if !named || n.m.Result(nursery.Child(c.child)).Kind != nursery.Pending {
				c.mu.Unlock()
				continue
			}
			if t.emitting() {
				t.emit(trace.KindRecharge, trace.I(trace.KeyTarget, int64(c.id)), trace.S(trace.KeyAs, name), trace.I(trace.KeyOps, amount.Ops))
			}
			if c.credit == nil {
				c.credit = &Budget{}
			}
			add(c.credit, amount)
			if c.rechargeWaiting {
				c.rechargeWaiting = false
				c.waitingOn.Store(nil)
				c.wait.state = waitDone
				t.s.wakeFrom(t.w, c)
			}
			c.mu.Unlock()
			n.mu.Unlock()
			return true, nil
		}
		n.mu.Unlock()
	}
	if t.emitting() {
		t.emit(trace.KindNote, trace.S(trace.KeyRecharge, name), trace.S(trace.KeyFound, "none"))
	}
	return false, nil
}
