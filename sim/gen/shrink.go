package gen

import (
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Size is the number of ops in sc, nested bodies included: the measure the
// shrinker reduces and the fuzzer reports.
func Size(sc *scenario.Scenario) int {
	n := 0
	for _, t := range sc.Tasks {
		n += opsSize(t.Ops)
	}
	return n
}

func opsSize(ops []scenario.Op) int {
	n := len(ops)
	for i := range ops {
		n += opsSize(ops[i].Body)
	}
	return n
}

// Shrink reduces sc while fails keeps reporting it as failing, and returns
// the smallest failing scenario it found (sc itself when nothing smaller
// fails). It calls fails at most budget times; candidates that do not load
// are dropped without calling it, and so are candidates that leave the
// fragment Safe accepts when sc is in it: deleting a channel's `close` or
// one spawn of its pair would make a deadlock of the program's own, and a
// shrunk deadlock must stay the scheduler's. Every scenario it passes to
// fails, and the one it returns, has been written with Format and loaded
// again, so it is valid and its Source is its text. Format does not write
// [expect], so a shrunk scenario has none: shrinking a program breaks most
// expectations.
//
// The reducer works like pebble's and like delta debugging: it tries edits
// one at a time and keeps one only if the result still fails, in this
// order, biggest first:
//
//   - delete a run of ops from a body: the whole body, then halves,
//     quarters, ... down to single ops;
//   - replace a nursery, loop, using or defer op by its body;
//   - turn a spawn into a call of the same task (so that its nursery may
//     go), and replace a call of a task called from nowhere else by that
//     task's body, deleting the task;
//   - delete tasks that nothing calls or spawns any more;
//   - halve numbers: compute, loop, sleep, alloc and syscall counts,
//     max_concurrent, timeouts, return values, channel capacities;
//   - put options back to their defaults: a nursery's mode (fail_fast),
//     catch, timeout and budget; a spawn's budget, caps and `as`;
//   - and the scenario's settings: drop the channels no op uses any more,
//     [budget] (whole, then by component), the profile (service), main's
//     caps, yield_interval and victim.
//
// Each kept edit makes the scenario strictly smaller: fewer ops, or as many
// ops and fewer spawns or tasks, or smaller numbers, or fewer non-default
// options (inlining a task removes its call op, and is only tried for a task
// called once, so it copies nothing). So the passes end even without the
// budget; they repeat until a whole pass keeps nothing.
//
// "Still fails" is the caller's to say. The fuzzer's fails compares the set
// of broken checks with the original one, and because changing the
// program changes the schedule it tries several seeds before calling a
// candidate passing.
func Shrink(sc *scenario.Scenario, fails func(*scenario.Scenario) bool, budget int) *scenario.Scenario {
	s := &shrinker{fails: fails, budget: budget}
	return s.run(sc)
}

type shrinker struct {
	fails  func(*scenario.Scenario) bool
	budget int
	evals  int
}

func (s *shrinker) run(sc *scenario.Scenario) *scenario.Scenario {
	cur := sc
	safe := Safe(sc) == nil
	for progress := true; progress && s.evals < s.budget; {
		progress = false
		cands := candidates(cur)
		for i := 0; i < len(cands) && s.evals < s.budget; i++ {
			next := clone(cur)
			if !cands[i](next) {
				continue
			}
			loaded, err := Reload(next)
			if err != nil {
				continue // the edit broke a rule of the format (a spawn left outside a nursery, say)
			}
			if safe && Safe(loaded) != nil {
				continue // the edit may make a program that blocks for ever (a close deleted, say)
			}
			s.evals++
			if !s.fails(loaded) {
				continue
			}
			cur, progress = loaded, true
			// The list describes the old scenario; rebuild it and go on
			// from the same place, which now holds what followed the
			// kept edit.
			cands = candidates(cur)
			i--
		}
	}
	return cur
}

// An edit changes a clone of the scenario in place and reports whether it
// changed anything.
type edit func(sc *scenario.Scenario) bool

// bodies returns every body of sc in a fixed preorder: task bodies (main
// first), each followed by the bodies nested in it. A clone has the same
// shape, so an index into the list names the same body in every clone.
func bodies(sc *scenario.Scenario) []*[]scenario.Op {
	var out []*[]scenario.Op
	var walk func(ops *[]scenario.Op)
	walk = func(ops *[]scenario.Op) {
		out = append(out, ops)
		for i := range *ops {
			if (*ops)[i].Kind.HasBody() {
				walk(&(*ops)[i].Body)
			}
		}
	}
	for _, name := range taskOrder(sc) {
		walk(&sc.Tasks[name].Ops)
	}
	return out
}

// candidates lists the edits to try on sc, in the order Shrink documents.
func candidates(sc *scenario.Scenario) []edit {
	bs := bodies(sc)
	var out []edit
	for _, family := range []func(*scenario.Scenario, []*[]scenario.Op) []edit{
		deleteRuns, unwrapBodies, inlineSpawnsAndCalls, deleteDeadTasks, halveNumbers, halveCapacities,
	} {
		out = append(out, family(sc, bs)...)
	}
	for k, b := range bs {
		for i := range *b {
			out = append(out, dropOptions(k, i, &(*b)[i])...)
		}
	}
	return append(out, dropSettings(sc)...)
}

// deleteRuns deletes runs of ops, biggest first.
func deleteRuns(_ *scenario.Scenario, bs []*[]scenario.Op) []edit {
	var out []edit
	for k, b := range bs {
		n := len(*b)
		for size := n; size >= 1; size /= 2 {
			for start := 0; start < n; start += size {
				k, lo, hi := k, start, min(start+size, n)
				out = append(out, func(c *scenario.Scenario) bool {
					b := bodies(c)[k]
					*b = append((*b)[:lo:lo], (*b)[hi:]...)
					return true
				})
			}
		}
	}
	return out
}

// unwrapBodies replaces an op that has a body by that body.
func unwrapBodies(_ *scenario.Scenario, bs []*[]scenario.Op) []edit {
	var out []edit
	for k, b := range bs {
		for i := range *b {
			if !(*b)[i].Kind.HasBody() {
				continue
			}
			k, i := k, i
			out = append(out, func(c *scenario.Scenario) bool {
				b := bodies(c)[k]
				inner := (*b)[i].Body
				rest := append([]scenario.Op(nil), (*b)[i+1:]...)
				*b = append(append((*b)[:i:i], inner...), rest...)
				return true
			})
		}
	}
	return out
}

// inlineSpawnsAndCalls turns a spawn into a call of the same task, so that
// the nursery around it may go; then moves a task called from one place
// only into that place, so that the task may go.
func inlineSpawnsAndCalls(sc *scenario.Scenario, bs []*[]scenario.Op) []edit {
	var out []edit
	refs := references(sc)
	for k, b := range bs {
		for i := range *b {
			op := &(*b)[i]
			k, i := k, i
			switch {
			case op.Kind == scenario.Spawn:
				out = append(out, func(c *scenario.Scenario) bool {
					(*bodies(c)[k])[i] = scenario.Op{Kind: scenario.Call, Str: (*bodies(c)[k])[i].Str}
					return true
				})
			case op.Kind == scenario.Call && refs[op.Str] == 1 && op.Str != "main":
				out = append(out, func(c *scenario.Scenario) bool {
					b := bodies(c)[k]
					name := (*b)[i].Str
					inner := c.Tasks[name].Ops
					rest := append([]scenario.Op(nil), (*b)[i+1:]...)
					*b = append(append((*b)[:i:i], inner...), rest...)
					return dropTasks(c, []string{name})
				})
			}
		}
	}
	return out
}

// deleteDeadTasks deletes the tasks nothing refers to: all at once, then
// one by one.
func deleteDeadTasks(sc *scenario.Scenario, _ []*[]scenario.Op) []edit {
	dead := unreferenced(sc)
	if len(dead) == 0 {
		return nil
	}
	out := []edit{func(c *scenario.Scenario) bool { return dropTasks(c, dead) }}
	for _, name := range dead {
		out = append(out, func(c *scenario.Scenario) bool { return dropTasks(c, []string{name}) })
	}
	return out
}

// halveNumbers halves an op's count, a nursery's max_concurrent and its
// timeout.
func halveNumbers(_ *scenario.Scenario, bs []*[]scenario.Op) []edit {
	var out []edit
	for k, b := range bs {
		for i := range *b {
			op := &(*b)[i]
			k, i := k, i
			if safetyOf(op).Halves && op.N > 0 {
				out = append(out, func(c *scenario.Scenario) bool {
					(*bodies(c)[k])[i].N /= 2
					return true
				})
			}
			if op.Kind == scenario.Nursery && op.MaxConcurrent > 0 {
				out = append(out, func(c *scenario.Scenario) bool {
					(*bodies(c)[k])[i].MaxConcurrent /= 2
					return true
				})
			}
			if op.Kind == scenario.Nursery && op.HasTimeout && op.Timeout > 1 {
				out = append(out, func(c *scenario.Scenario) bool {
					(*bodies(c)[k])[i].Timeout /= 2
					return true
				})
			}
		}
	}
	return out
}

// halveCapacities halves each channel's capacity.
func halveCapacities(sc *scenario.Scenario, _ []*[]scenario.Op) []edit {
	var out []edit
	for j, ch := range sc.Channels {
		if ch.Capacity > 0 {
			out = append(out, func(c *scenario.Scenario) bool {
				c.Channels[j].Capacity /= 2
				return true
			})
		}
	}
	return out
}

// dropOptions lists the edits that put an op's options back to their
// defaults, as the op's safety row lists them (OpSafety.Defaults: a
// nursery's mode, catch, timeout and budget; a spawn's budget, caps and
// `as`).
func dropOptions(k, i int, op *scenario.Op) []edit {
	var out []edit
	set := func(f func(op *scenario.Op)) {
		out = append(out, func(c *scenario.Scenario) bool {
			f(&(*bodies(c)[k])[i])
			return true
		})
	}
	if f := safetyOf(op).Defaults; f != nil {
		for _, edit := range f(op) {
			set(edit)
		}
	}
	return out
}

// dropSettings lists the edits that put the scenario's settings back to
// their defaults: channels no op uses any more, [budget] (whole, then one
// component at a time), the profile, main's caps, yield_interval and
// victim. max_steps stays: a livelock must stay quick to reproduce.
func dropSettings(sc *scenario.Scenario) []edit {
	var out []edit
	if unused := unusedChannels(sc); len(unused) > 0 {
		out = append(out, func(c *scenario.Scenario) bool {
			kept := c.Channels[:0:0]
			for _, ch := range c.Channels {
				if !unused[ch.Name] {
					kept = append(kept, ch)
				}
			}
			c.Channels = kept
			return true
		})
	}
	def := scenario.DefaultBudget
	if sc.Budget != def {
		out = append(out, func(c *scenario.Scenario) bool { c.Budget = def; return true })
		for _, f := range []func(b *scenario.Budget) *int64{
			func(b *scenario.Budget) *int64 { return &b.Ops },
			func(b *scenario.Budget) *int64 { return &b.Memory },
			func(b *scenario.Budget) *int64 { return &b.SpawnCount },
			func(b *scenario.Budget) *int64 { return &b.ChannelOps },
			func(b *scenario.Budget) *int64 { return &b.Syscalls },
		} {
			if f := f; *f(&sc.Budget) != *f(&def) {
				out = append(out, func(c *scenario.Scenario) bool { *f(&c.Budget) = *f(&def); return true })
			}
		}
	}
	if sc.Scheduler.Profile != scenario.ProfileService {
		out = append(out, func(c *scenario.Scenario) bool {
			if c.Scheduler.Profile == scenario.ProfileCluster && c.Scheduler.YieldInterval == scenario.DefaultYieldIntervalCluster {
				c.Scheduler.YieldInterval = scenario.DefaultYieldInterval
			}
			c.Scheduler.Profile = scenario.ProfileService
			return true
		})
	}
	if main := sc.Tasks["main"]; main != nil && main.HasCaps {
		out = append(out, func(c *scenario.Scenario) bool {
			c.Tasks["main"].Caps, c.Tasks["main"].HasCaps = nil, false
			return true
		})
	}
	defaultYield := scenario.DefaultYieldInterval
	if sc.Scheduler.Profile == scenario.ProfileCluster {
		defaultYield = scenario.DefaultYieldIntervalCluster
	}
	if sc.Scheduler.YieldInterval != defaultYield {
		out = append(out, func(c *scenario.Scenario) bool {
			c.Scheduler.YieldInterval = defaultYield
			return true
		})
	}
	if sc.Scheduler.Victim != scenario.DefaultVictim {
		out = append(out, func(c *scenario.Scenario) bool {
			c.Scheduler.Victim = scenario.DefaultVictim
			return true
		})
	}
	return out
}

// unusedChannels returns the declared channels no op names.
func unusedChannels(sc *scenario.Scenario) map[string]bool {
	unused := map[string]bool{}
	for _, ch := range sc.Channels {
		unused[ch.Name] = true
	}
	for _, t := range sc.Tasks {
		walkOps(t.Ops, func(op *scenario.Op) {
			if safetyOf(op).Chan != scenario.NotChan {
				delete(unused, op.Str)
			}
		})
	}
	if len(unused) == 0 {
		return nil
	}
	return unused
}

// references counts, for each task, the call and spawn ops that name it.
func references(sc *scenario.Scenario) map[string]int {
	refs := map[string]int{}
	var walk func(ops []scenario.Op)
	walk = func(ops []scenario.Op) {
		for i := range ops {
			if ops[i].Kind == scenario.Call || ops[i].Kind == scenario.Spawn {
				refs[ops[i].Str]++
			}
			walk(ops[i].Body)
		}
	}
	for _, t := range sc.Tasks {
		walk(t.Ops)
	}
	return refs
}

// unreferenced returns the tasks other than main that no call or spawn
// names, main first and then by name.
func unreferenced(sc *scenario.Scenario) []string {
	refs := references(sc)
	var out []string
	for _, name := range taskOrder(sc) {
		if name != "main" && refs[name] == 0 {
			out = append(out, name)
		}
	}
	return out
}

func dropTasks(sc *scenario.Scenario, names []string) bool {
	for _, n := range names {
		delete(sc.Tasks, n)
	}
	kept := sc.TaskNames[:0:0]
	for _, n := range sc.TaskNames {
		if _, ok := sc.Tasks[n]; ok {
			kept = append(kept, n)
		}
	}
	sc.TaskNames = kept
	return true
}

// clone copies sc deeply enough for an edit: the tasks and their ops (the
// AST is never shared between the original and the copy); Source and the
// expectations are left shared, since no edit touches them.
func clone(sc *scenario.Scenario) *scenario.Scenario {
	c := *sc
	c.Tasks = make(map[string]*scenario.Task, len(sc.Tasks))
	for name, t := range sc.Tasks {
		tc := *t
		tc.Caps = append([]string(nil), t.Caps...)
		tc.Ops = cloneOps(t.Ops)
		c.Tasks[name] = &tc
	}
	c.TaskNames = append([]string(nil), sc.TaskNames...)
	c.Channels = append([]scenario.Channel(nil), sc.Channels...)
	return &c
}

func cloneOps(ops []scenario.Op) []scenario.Op {
	if ops == nil {
		return nil
	}
	out := make([]scenario.Op, len(ops))
	for i, op := range ops {
		op.Body = cloneOps(op.Body)
		op.Caps = append([]string(nil), op.Caps...)
		if op.SpawnBudget != nil {
			b := *op.SpawnBudget
			op.SpawnBudget = &b
		}
		if op.NurseryBudget != nil {
			b := *op.NurseryBudget
			op.NurseryBudget = &b
		}
		out[i] = op
	}
	return out
}
