package gen

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// The bounds a forever loop needs to stop by budget alone (Safe, rule 2):
// the nursery's pool and the spinner's own starting budget, in ops. The
// spinner can use at most pool + 2 × own ops (its start, one
// self-recharge), one op per iteration.
const (
	spinPoolOpsMax = 32
	spinOpsMax     = 16
)

// Safe reports why sc might not end on its own, or nil when it is in the
// fragment the generator draws from, where every program terminates by
// construction. A run of a safe scenario that deadlocks or livelocks is a
// scheduler bug. Shrink uses it to keep a shrunk scenario inside the
// fragment: deleting a `close` or one spawn of a channel pair makes a real
// deadlock, and a repro must not be one.
//
// Only tasks reachable from main (through calls and spawns) are checked;
// the rules, each a reason a program may block or spin for ever:
//
//  1. Calls and spawns form no cycle.
//  2. A `loop = "forever"` is a top-level op of a spinner task, whose body
//     loops on yield, compute, log or check_cancel. Every reference to the
//     spinner is a spawn without `as`, into a nursery that ends it: one
//     with a timeout whose mode is not cancel_remaining (where a timeout
//     spares started children), or one whose pool has at most
//     spinPoolOpsMax ops while the spinner starts with at most spinOpsMax.
//  3. A channel has at most one producer task (sends, then at most one
//     close after them) and one consumer task (recvs), other than main;
//     each uses only that channel, with its channel ops at the top level
//     of its body, and runs at most once per run, spawned by the only op
//     that names it, a spawn without `as`. With k sends, r recvs and
//     capacity c: k - c <= r, and r <= k unless the producer closes; under
//     fail_fast either may instead be a partner whose body surely ends in
//     fail or panic (a top-level one, no return before it), since its
//     failure cancels the other. Without a consumer, k <= c; without a
//     producer, no consumer. Both
//     spawns sit side by side in one body whose nursery is not
//     cancel_remaining (a sibling's error there cancels only the partner
//     that has not started) and has no max_concurrent (the second partner
//     would wait behind the first). Neither may `return` before its last
//     channel op. Under collect_all, where a failing partner cancels
//     nothing, neither may fail before its last channel op either: the
//     ops up to it are log, defer, yield, compute, sleep, check_cancel and
//     channel ops, and its starting budget covers them.
//  4. Under `cluster`, a child spawned `as` A waits for a supervisor when
//     it runs out: either its starting budget covers all it can use, or
//     the same body recharges A later, with nothing in between that may
//     `return`, and the start plus the credit cover it. Every `as` of a
//     task body is unique, so a recharge reaches its own child.
//
// Everything else ends: loops are counted, sleeps and timeouts are timers,
// a nursery awaits children that end by these rules, and a task that runs
// out of budget outside rule 4 fails with ResourceExhausted.
func Safe(sc *scenario.Scenario) error {
	v := &safety{sc: sc, needs: map[string]need{}}
	return v.check()
}

type safety struct {
	sc    *scenario.Scenario
	order []string       // reachable tasks, callers before callees
	runs  map[string]int // starts of each task body per run, capped at 2
	refs  map[string][]ref
	needs map[string]need
}

// ref is one call or spawn that names a task, from a reachable task.
type ref struct {
	op    *scenario.Op
	body  []scenario.Op // the body holding it, directly
	index int           // its index in body
	inner *scenario.Op  // its innermost enclosing nursery op in from's body; nil if none
}

func (v *safety) check() error {
	if err := v.graph(); err != nil {
		return err
	}
	for _, name := range v.order {
		if err := v.foreverLoops(name); err != nil {
			return err
		}
	}
	for _, ch := range v.sc.Channels {
		if err := v.channel(ch); err != nil {
			return fmt.Errorf("channel %s: %w", ch.Name, err)
		}
	}
	if v.sc.Scheduler.Profile == scenario.ProfileCluster {
		for _, name := range v.order {
			if err := v.supervised(name); err != nil {
				return fmt.Errorf("task.%s: %w", name, err)
			}
		}
	}
	return nil
}

// graph finds the reachable tasks in topological order, the references to
// each, and how many times each body starts in one run (capped at 2).
func (v *safety) graph() error {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var post []string
	var visit func(name string) error
	visit = func(name string) error {
		color[name] = grey
		var err error
		walkRefs(v.sc.Tasks[name].Ops, nil, func(op *scenario.Op, body []scenario.Op, i int, inner *scenario.Op) {
			if err != nil {
				return
			}
			switch color[op.Str] {
			case grey:
				err = fmt.Errorf("task.%s: %s of %q closes a cycle", name, op.Kind, op.Str)
			case white:
				err = visit(op.Str)
			}
		})
		if err != nil {
			return err
		}
		color[name] = black
		post = append(post, name)
		return nil
	}
	if _, ok := v.sc.Tasks["main"]; !ok {
		return fmt.Errorf("no task.main")
	}
	if err := visit("main"); err != nil {
		return err
	}
	v.order = make([]string, len(post))
	for i, n := range post {
		v.order[len(post)-1-i] = n
	}
	v.refs = map[string][]ref{}
	v.runs = map[string]int{"main": 1}
	for _, name := range v.order {
		walkCounted(v.sc.Tasks[name].Ops, 1, func(op *scenario.Op, times int) {
			v.runs[op.Str] = min(2, v.runs[op.Str]+v.runs[name]*times)
		})
		walkRefs(v.sc.Tasks[name].Ops, nil, func(op *scenario.Op, body []scenario.Op, i int, inner *scenario.Op) {
			v.refs[op.Str] = append(v.refs[op.Str], ref{op: op, body: body, index: i, inner: inner})
		})
	}
	return nil
}

// walkRefs calls fn for every call and spawn in ops, with the body that
// holds it, its index there and its innermost enclosing nursery op (a
// defer body has none: it runs when the task exits).
func walkRefs(ops []scenario.Op, inner *scenario.Op, fn func(op *scenario.Op, body []scenario.Op, i int, inner *scenario.Op)) {
	for i := range ops {
		op := &ops[i]
		row := safetyOf(op)
		if row.Ref {
			fn(op, ops, i, inner)
		}
		switch row.Body {
		case scenario.BodyInNew:
			walkRefs(op.Body, op, fn)
		case scenario.BodyInSame:
			walkRefs(op.Body, inner, fn)
		case scenario.BodyDetached:
			walkRefs(op.Body, nil, fn)
		}
	}
}

// walkCounted calls fn for every call and spawn in ops with how many times
// it runs when ops runs once (loop counts multiplied, capped at 2).
func walkCounted(ops []scenario.Op, times int, fn func(op *scenario.Op, times int)) {
	if times == 0 {
		return
	}
	for i := range ops {
		op := &ops[i]
		row := safetyOf(op)
		if row.Ref {
			fn(op, times)
		}
		if row.Body != scenario.NoBody {
			n := 1
			if row.Runs != nil {
				n = row.Runs(op)
			}
			walkCounted(op.Body, min(2, times*n), fn)
		}
	}
}

// foreverLoops checks rule 2 for one task body.
func (v *safety) foreverLoops(name string) error {
	t := v.sc.Tasks[name]
	top := false
	for i := range t.Ops {
		if op := &t.Ops[i]; op.Kind == scenario.Loop && op.N == scenario.LoopForever {
			top = true
			for j := range op.Body {
				if b := &op.Body[j]; !safetyOf(b).Spins {
					return fmt.Errorf("task.%s: a forever loop runs %s (only %s)", name, b.Kind, kindsWhere(func(r *opSafety) bool { return r.Spins }))
				}
			}
		}
	}
	nested := false
	var walk func(ops []scenario.Op, depth int)
	walk = func(ops []scenario.Op, depth int) {
		for i := range ops {
			if ops[i].Kind == scenario.Loop && ops[i].N == scenario.LoopForever && depth > 0 {
				nested = true
			}
			walk(ops[i].Body, depth+1)
		}
	}
	walk(t.Ops, 0)
	if nested {
		return fmt.Errorf("task.%s: a forever loop inside another body", name)
	}
	if !top {
		return nil
	}
	if name == "main" {
		return fmt.Errorf("task.main loops for ever")
	}
	for _, r := range v.refs[name] {
		if r.op.Kind != scenario.Spawn || r.op.As != "" {
			return fmt.Errorf("task.%s loops for ever and is reached by %s (as %q), not a plain spawn", name, r.op.Kind, r.op.As)
		}
		if !v.stopsSpinner(r) {
			return fmt.Errorf("task.%s loops for ever in a nursery with no timeout or small budget to stop it", name)
		}
	}
	return nil
}

// stopsSpinner reports whether the nursery a spinner is spawned into ends it.
func (v *safety) stopsSpinner(r ref) bool {
	n := r.inner
	if n == nil {
		return false
	}
	if n.HasTimeout && n.Mode != scenario.ModeCancelRemaining {
		return true
	}
	if n.NurseryBudget == nil {
		return false // the pool is a copy of what the owner has left
	}
	pool := n.NurseryBudget.Over(v.sc.Budget)
	own := startBudget(r.op, v.sc.Budget)
	return pool.Ops <= spinPoolOpsMax && own.Ops <= spinOpsMax
}

// startBudget is the budget a spawned child starts with.
func startBudget(spawn *scenario.Op, def scenario.Budget) scenario.Budget {
	if spawn.SpawnBudget != nil {
		return spawn.SpawnBudget.Over(def)
	}
	return def
}

// partner is one side of a channel: the task and what it does with it.
type partner struct {
	name    string
	chanOps int // send, recv and close ops on the channel
	n       int // sends (producer) or recvs (consumer)
	closes  int
	last    int  // index of its last channel op in its body
	fails   bool // its body surely ends in fail or panic (or earlier)
}

// channel checks rule 3 for one channel.
func (v *safety) channel(ch scenario.Channel) error {
	prod, cons, err := v.partners(ch)
	if err != nil || (prod == nil && cons == nil) {
		return err
	}
	if err := v.producerShape(prod); err != nil {
		return err
	}
	if cons == nil {
		if prod.n > ch.Capacity {
			return fmt.Errorf("task.%s sends %d with no consumer and capacity %d", prod.name, prod.n, ch.Capacity)
		}
		return nil
	}
	return v.pairShape(ch, prod, cons)
}

// partners finds the channel's one producer (sends or closes) and one
// consumer, and checks each one's own shape.
func (v *safety) partners(ch scenario.Channel) (prod, cons *partner, err error) {
	for _, name := range v.order {
		sends, recvs, closes := countChan(v.sc.Tasks[name].Ops, ch.Name)
		if sends+closes > 0 {
			if prod != nil {
				return nil, nil, fmt.Errorf("two producers, %s and %s", prod.name, name)
			}
			prod = &partner{name: name, n: sends, closes: closes}
		}
		if recvs > 0 {
			if cons != nil {
				return nil, nil, fmt.Errorf("two consumers, %s and %s", cons.name, name)
			}
			cons = &partner{name: name, n: recvs}
		}
	}
	switch {
	case prod == nil && cons == nil:
		return nil, nil, nil
	case prod == nil:
		return nil, nil, fmt.Errorf("task.%s receives but no task sends", cons.name)
	case cons != nil && prod.name == cons.name:
		return nil, nil, fmt.Errorf("task.%s both sends and receives", prod.name)
	}
	for _, p := range []*partner{prod, cons} {
		if p == nil {
			continue
		}
		if err := v.partnerShape(p, ch.Name); err != nil {
			return nil, nil, fmt.Errorf("task.%s: %w", p.name, err)
		}
	}
	return prod, cons, nil
}

// producerShape: a producer closes at most once, as its last channel op.
func (v *safety) producerShape(prod *partner) error {
	if prod.closes > 1 {
		return fmt.Errorf("task.%s closes it %d times", prod.name, prod.closes)
	}
	if prod.closes == 1 {
		ops := v.sc.Tasks[prod.name].Ops
		if ops[prod.last].Kind != scenario.Close {
			return fmt.Errorf("task.%s sends after its close", prod.name)
		}
	}
	return nil
}

// pairShape: the sends and receives match up, and the two are spawned
// side by side into a nursery that lets both run to the end.
func (v *safety) pairShape(ch scenario.Channel, prod, cons *partner) error {
	rp, rc := v.refs[prod.name][0], v.refs[cons.name][0]
	failFast := rp.inner.Mode == scenario.ModeFailFast
	// A partner left blocked is freed when the other fails under
	// fail_fast: it is cancelled, which interrupts it.
	if prod.n-ch.Capacity > cons.n && !(failFast && cons.fails) {
		return fmt.Errorf("%d sends, capacity %d, but only %d recvs", prod.n, ch.Capacity, cons.n)
	}
	if cons.n > prod.n && prod.closes == 0 && !(failFast && prod.fails) {
		return fmt.Errorf("%d recvs of %d sends and no close", cons.n, prod.n)
	}
	if !sameBody(rp.body, rc.body) || rp.index-rc.index != 1 && rc.index-rp.index != 1 {
		return fmt.Errorf("the spawns of %s and %s are not side by side in one body", prod.name, cons.name)
	}
	n := rp.inner
	if n.Mode == scenario.ModeCancelRemaining || n.MaxConcurrent != 0 {
		return fmt.Errorf("the partners share nursery %s, which is %s with max_concurrent %d", n.Str, n.Mode, n.MaxConcurrent)
	}
	if n.Mode == scenario.ModeCollectAll {
		for _, p := range []*partner{prod, cons} {
			if err := v.cannotFail(p, v.refs[p.name][0].op); err != nil {
				return fmt.Errorf("task.%s under collect_all: %w", p.name, err)
			}
		}
	}
	return nil
}

func sameBody(a, b []scenario.Op) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// countChan counts the sends, recvs and closes of channel ch in ops, at
// any depth.
func countChan(ops []scenario.Op, ch string) (sendN, recvN, closeN int) {
	for i := range ops {
		op := &ops[i]
		if op.Str == ch {
			switch safetyOf(op).Chan {
			case scenario.Sends:
				sendN++
			case scenario.Recvs:
				recvN++
			case scenario.Closes:
				closeN++
			}
		}
		s, r, c := countChan(op.Body, ch)
		sendN, recvN, closeN = sendN+s, recvN+r, closeN+c
	}
	return
}

// partnerShape checks what rule 3 asks of one partner alone, and fills in
// p.last.
func (v *safety) partnerShape(p *partner, ch string) error {
	if p.name == "main" {
		return fmt.Errorf("main uses the channel")
	}
	ops := v.sc.Tasks[p.name].Ops
	p.last = -1
	for i := range ops {
		if safetyOf(&ops[i]).Chan != scenario.NotChan {
			if ops[i].Str != ch {
				return fmt.Errorf("uses channels %s and %s", ch, ops[i].Str)
			}
			p.chanOps++
			p.last = i
		} else if hasChanOp(ops[i].Body) {
			return fmt.Errorf("a channel op inside a nested body")
		}
	}
	if v.runs[p.name] > 1 {
		return fmt.Errorf("may run more than once")
	}
	refs := v.refs[p.name]
	if len(refs) != 1 || refs[0].op.Kind != scenario.Spawn || refs[0].op.As != "" || refs[0].inner == nil {
		return fmt.Errorf("is not started by exactly one spawn without as")
	}
	for i := 0; i < p.last; i++ {
		if mayReturn(ops[i : i+1]) {
			return fmt.Errorf("may return before its last channel op")
		}
	}
	for i := range ops {
		if k := ops[i].Kind; k == scenario.Fail || k == scenario.Panic {
			p.fails = true
			break
		}
		if mayReturn(ops[i : i+1]) {
			break
		}
	}
	return nil
}

func hasChanOp(ops []scenario.Op) bool {
	for i := range ops {
		if safetyOf(&ops[i]).Chan != scenario.NotChan {
			return true
		}
		if hasChanOp(ops[i].Body) {
			return true
		}
	}
	return false
}

// mayReturn reports whether running ops may end the task body by `return`
// (nested bodies included, called bodies and defer bodies not: a return
// there ends only the call or the cleanup).
func mayReturn(ops []scenario.Op) bool {
	for i := range ops {
		row := safetyOf(&ops[i])
		if row.Returns || row.Body.Inline() && mayReturn(ops[i].Body) {
			return true
		}
	}
	return false
}

// cannotFail checks that a collect_all partner cannot fail before its last
// channel op: only ops that cannot fail, and a budget that covers them.
func (v *safety) cannotFail(p *partner, spawn *scenario.Op) error {
	ops := v.sc.Tasks[p.name].Ops
	for i := 0; i <= p.last; i++ {
		if !safetyOf(&ops[i]).BeforeChan {
			return fmt.Errorf("%s before its last channel op", ops[i].Kind)
		}
	}
	if n := v.bodyNeed(ops[:p.last+1]); !covers(startBudget(spawn, v.sc.Budget), n) {
		return fmt.Errorf("its budget does not cover its channel ops")
	}
	return nil
}

// supervised checks rule 4 for one task body under cluster.
func (v *safety) supervised(name string) error {
	seen := map[string]bool{}
	var err error
	var walk func(ops []scenario.Op, mode string)
	walk = func(ops []scenario.Op, mode string) {
		for i := range ops {
			op := &ops[i]
			if err != nil {
				return
			}
			if safetyOf(op).Ref && op.As != "" { // a spawn `as` A
				if seen[op.As] {
					err = fmt.Errorf("two spawns as %q", op.As)
					return
				}
				seen[op.As] = true
				err = v.rechargedEnough(op, ops[i+1:])
				if err == nil && mode == scenario.ModeCancelRemaining && !covers(startBudget(op, v.sc.Budget), v.needOf(op.Str)) {
					// Cancelled from outside, the nursery spares its
					// started children (docs/semantics.md#nested-error-modes)
					// while the body, cancelled, leaves before the
					// recharge: the child would wait for good.
					err = fmt.Errorf("%s, spawned as %q into a cancel_remaining nursery, may wait for a recharge its cancelled body never makes", op.Str, op.As)
				}
			}
			if safetyOf(op).Body.Inline() {
				inner := mode
				if op.Kind == scenario.Nursery {
					inner = op.Mode
				}
				walk(op.Body, inner)
			}
		}
	}
	walk(v.sc.Tasks[name].Ops, "")
	return err
}

// rechargedEnough checks that the child of spawn, which waits for a
// supervisor when it runs out, either never runs out or is recharged
// enough by a later op of rest.
func (v *safety) rechargedEnough(spawn *scenario.Op, rest []scenario.Op) error {
	n := v.needOf(spawn.Str)
	start := startBudget(spawn, v.sc.Budget)
	if covers(start, n) {
		return nil
	}
	if n.Unbounded {
		return fmt.Errorf("%s, spawned as %q, may run for ever", spawn.Str, spawn.As)
	}
	for i := range rest {
		op := &rest[i]
		if op.Kind == scenario.Recharge && op.Str == spawn.As {
			got := op.Recharge.Over(scenario.Budget{})
			if !covers(addBudget(start, got), n) {
				return fmt.Errorf("the recharge of %q does not cover what %s may use", spawn.As, spawn.Str)
			}
			return nil
		}
		if mayReturn(rest[i : i+1]) {
			break
		}
	}
	return fmt.Errorf("%s, spawned as %q, may run out and no recharge surely follows", spawn.Str, spawn.As)
}

// capAdd adds, capped at scenario.NeedCap, so that the sums of a
// hand-written scenario do not overflow.
func capAdd(a, b int64) int64 { return min(scenario.NeedCap, a+b) }

func (v *safety) needOf(name string) need {
	if n, ok := v.needs[name]; ok {
		return n
	}
	v.needs[name] = need{Unbounded: true} // a call cycle, which the loader refuses anyway
	n := v.bodyNeed(v.sc.Tasks[name].Ops)
	v.needs[name] = n
	return n
}

func (v *safety) bodyNeed(ops []scenario.Op) need {
	var n need
	for i := range ops {
		if f := safetyOf(&ops[i]).Need; f != nil {
			n = n.Plus(f(v, &ops[i]))
		}
	}
	return n
}

// kindsWhere names the operations whose row has a property, for messages.
func kindsWhere(has func(r *opSafety) bool) string {
	out := ""
	for _, k := range scenario.OpKinds() {
		if has(k.Def().Safety) {
			if out != "" {
				out += ", "
			}
			out += k.String()
		}
	}
	return out
}

// covers reports whether b pays for everything n may charge.
func covers(b scenario.Budget, n need) bool {
	return !n.Unbounded && b.Ops >= n.Ops && b.Memory >= n.Memory && b.Syscalls >= n.Syscalls && b.ChannelOps >= n.ChannelOps
}

func addBudget(a, b scenario.Budget) scenario.Budget {
	return scenario.Budget{Ops: capAdd(a.Ops, b.Ops), Memory: capAdd(a.Memory, b.Memory),
		SpawnCount: capAdd(a.SpawnCount, b.SpawnCount), ChannelOps: capAdd(a.ChannelOps, b.ChannelOps),
		Syscalls: capAdd(a.Syscalls, b.Syscalls)}
}
