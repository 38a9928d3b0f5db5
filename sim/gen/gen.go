package gen

import (
	"fmt"
	"sort"
	"strconv"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Bounds on a generated scenario. They keep one run well under a
// millisecond and a failing scenario small enough to read before shrinking.
const (
	tasksMax         = 6  // main and t1..t5, the indexed tasks
	extraTasksMax    = 6  // channel partners and spinners, made as they are needed
	topOpsMax        = 8  // ops in a task's own body
	nestedOpsMax     = 4  // ops in a nested body (loop, nursery, using)
	tailOpsMax       = 3  // ops a channel partner runs after its channel ops
	deferOpsMax      = 2  // log ops in a defer body
	bodyDepthMax     = 4  // nested bodies inside one task body
	nurseryDepthMax  = 3  // nested nurseries inside one task body
	loopCountMax     = 4  // loop = 0..4; "forever" only in spinners
	returnMax        = 9  // return = 0..9
	maxConcurrentMax = 3  // max_concurrent = 0..3 (0: unlimited)
	yieldIntervalMax = 64 // yield_interval = 1..64 when given
	timeoutMax       = 60 // timeout = 1..60 ticks
	capacityMax      = 3  // channel capacity 0..3
	chanOpsMax       = 4  // sends of a producer, recvs of a consumer (one more when it closes)
	pairsMax         = 2  // channels in a scenario
	spinnersMax      = 2

	// Small budgets: [budget] and the budget options draw each component
	// from these ranges, so that ops, memory, spawn_count, channel_ops and
	// syscalls each run out in some programs.
	smallOpsMax        = 300
	smallOverrideOps   = 60
	smallMemoryMax     = 4096
	smallSpawnCountMax = 8
	smallChannelOpsMax = 8
	smallSyscallsMax   = 6

	// costMax bounds the checkpoints one task body may pass, counting the
	// bodies it calls and spawns (transitively), multiplying loop bodies
	// by their counts and counting a spinner until its timeout or budget
	// stops it. With it, a generated run takes a few hundred scheduler
	// steps, rarely a thousand or two, whatever the draws.
	costMax = 400

	// stepsMax is the max_steps every generated scenario sets: far above
	// what a generated program needs, and low enough that a livelock (a
	// spinner the budget no longer stops, say) is found in milliseconds.
	stepsMax = 20_000
)

// Scenario returns a generator of valid scenarios, loaded: each one is
// built as an AST, written with Format and parsed back, so Source, SHA256
// and every op's Path are filled in and the scenario is exactly what
// `cbcsim run` would read from the file.
//
// A generated scenario may use every operation and option of the format:
// compute, yield, call, loop, spawn (with as, budget and caps), nursery
// (every mode, timeout, max_concurrent, budget, catch), cancel,
// check_cancel, send, recv, close, sleep, alloc, syscall, recharge, defer,
// using, log, return, fail and panic, under any profile, with small
// budgets in [budget] and in the options. It has no [expect] and leaves
// workers unset; max_steps is stepsMax.
//
// Every program terminates: it is in the fragment Safe describes, and
// TestScenarioIsSafe checks that it is. A task calls and spawns only tasks
// with a higher index (main is 0, then t1..t5), loops are counted, a
// channel joins one producer and one consumer spawned side by side, a
// forever loop runs only in a spinner that a timeout or a small budget
// stops, and a child that waits for its supervisor's recharge gets one.
// Labels, log texts, error strings, channel and task names are unique
// within a scenario, so a trace or a failure message names one place.
//
// The generator is deterministic: Scenario().Example(seed) is the same
// scenario for the same seed on every machine.
func Scenario() *rapid.Generator[*scenario.Scenario] {
	return rapid.Map(ast(), func(sc *scenario.Scenario) *scenario.Scenario {
		out, err := Reload(sc)
		if err != nil {
			// A generator bug, not a property failure: say so plainly.
			panic(fmt.Sprintf("gen: Scenario: a generated scenario does not load: %v\n%s", err, Format(sc)))
		}
		return out
	})
}

// Reload writes sc with Format and parses it back: the result has Source,
// SHA256 and op paths that match the text. It fails when the text does not
// load, which for an edited scenario means the edit made it invalid.
func Reload(sc *scenario.Scenario) (*scenario.Scenario, error) {
	name := sc.Name
	if name == "" {
		name = "generated"
	}
	return scenario.Parse(name+".toml", Format(sc))
}

// ast generates the scenario AST without loading it; Scenario and the
// round-trip test use it.
func ast() *rapid.Generator[*scenario.Scenario] {
	return rapid.Custom(func(t *rapid.T) *scenario.Scenario {
		return newBuilder(t).scenario()
	})
}

// builder draws one scenario. The indexed tasks are drawn from the last to
// main, so when a body is drawn the cost of every task it may call or
// spawn is known. Channel partners and spinners are made while the body
// that spawns them is drawn, and nothing else names them.
type builder struct {
	t     *rapid.T
	sc    *scenario.Scenario
	names []string            // the indexed tasks by index: main, t1, ...
	cost  map[string]int      // checkpoints of each task body already drawn
	once  map[string]bool     // tasks that may run at most once per run
	refs  map[string]int      // calls and spawns drawn so far, by task
	caps  map[string]capsSpec // sovereign: what every spawn of a task writes
	cur   int                 // index of the indexed task being drawn
	seq   int                 // numbers labels, log texts, error strings and made tasks

	extra, pairs, spinners int
}

// capsSpec is the `caps` every spawn of one task carries: one set per task,
// so that a task's capabilities can be told from its name (see Oracles).
type capsSpec struct {
	has  bool // false: the spawns write no caps and the child inherits
	caps []string
}

// scope is where in a task body an op is drawn.
type scope struct {
	nurseries []string     // labels of the enclosing nurseries, innermost last
	depth     int          // nested bodies around this one
	nursery   *nurseryInfo // the innermost enclosing nursery; nil outside any
	// once: this body runs at most once per run (its task does, and no
	// loop encloses it). Only there may a channel pair be spawned, or a
	// task that must run at most once be named.
	once bool
	main bool // main's own body: never empty, and nurseries come up more
	// spawnsMore: a nursery's own body, where spawns come up more (a
	// nursery that spawns nothing tests little).
	spawnsMore bool
}

// nurseryInfo is what a spawn needs to know of the nursery it goes into.
type nurseryInfo struct {
	mode          string
	maxConcurrent int
	timeout       int64 // 0: none
	poolOps       int64 // ops of the nursery's budget option; -1 without one
}

func newBuilder(t *rapid.T) *builder {
	return &builder{t: t, cost: map[string]int{}, once: map[string]bool{}, refs: map[string]int{}, caps: map[string]capsSpec{}}
}

func (b *builder) next(prefix string) string {
	b.seq++
	return prefix + strconv.Itoa(b.seq)
}

func (b *builder) draw(lo, hi int, label string) int {
	return rapid.IntRange(lo, hi).Draw(b.t, label)
}

func (b *builder) chance(in int, label string) bool { // one chance in `in`
	return rapid.IntRange(0, in-1).Draw(b.t, label) == 0
}

// The builder is the scenario.Drawer a plain operation's OpGen draws with.

func (b *builder) Draw(lo, hi int, label string) int { return b.draw(lo, hi, label) }
func (b *builder) Chance(in int, label string) bool  { return b.chance(in, label) }
func (b *builder) Next(prefix string) string         { return b.next(prefix) }

func (b *builder) scenario() *scenario.Scenario {
	n := b.draw(1, tasksMax, "tasks")
	b.names = make([]string, n)
	b.names[0] = "main"
	for i := 1; i < n; i++ {
		b.names[i] = "t" + strconv.Itoa(i)
	}
	// Profiles weighed: service is the default; cluster and sovereign
	// bring recharge waits and capabilities; core allows no nursery.
	profile := rapid.SampledFrom([]string{
		scenario.ProfileService, scenario.ProfileService, scenario.ProfileService, scenario.ProfileService,
		scenario.ProfileCluster, scenario.ProfileCluster, scenario.ProfileCluster,
		scenario.ProfileSovereign, scenario.ProfileSovereign, scenario.ProfileCore,
	}).Draw(b.t, "profile")
	yi := scenario.DefaultYieldInterval
	if profile == scenario.ProfileCluster {
		yi = scenario.DefaultYieldIntervalCluster
	}
	b.sc = &scenario.Scenario{
		Version: scenario.MinVersion, // the generator draws version-1 operations only
		Name:    "generated",
		Scheduler: scenario.Scheduler{
			Victim:        scenario.DefaultVictim,
			Profile:       profile,
			YieldInterval: yi,
			MaxSteps:      stepsMax,
		},
		Budget: b.budget(),
		Tasks:  make(map[string]*scenario.Task, n),
	}
	if rapid.Bool().Draw(b.t, "has_yield_interval") {
		b.sc.Scheduler.YieldInterval = b.draw(1, yieldIntervalMax, "yield_interval")
	}
	if rapid.Bool().Draw(b.t, "has_victim") {
		b.sc.Scheduler.Victim = rapid.SampledFrom([]string{
			scenario.VictimRandom, scenario.VictimRoundRobin, scenario.VictimLeastLoaded,
		}).Draw(b.t, "victim")
	}
	b.once["main"] = true
	if profile == scenario.ProfileSovereign {
		b.caps["main"] = b.drawCaps(true)
	}
	for i := 1; i < n; i++ {
		b.once[b.names[i]] = b.chance(3, "once")
		if profile == scenario.ProfileSovereign {
			b.caps[b.names[i]] = b.drawCaps(false)
		}
	}
	for i := n - 1; i >= 0; i-- {
		b.cur = i
		name := b.names[i]
		ops, cost := b.body(scope{once: b.once[name], main: i == 0}, topOpsMax, costMax)
		b.cost[name] = cost
		b.sc.Tasks[name] = &scenario.Task{Name: name, Ops: ops}
	}
	if profile == scenario.ProfileSovereign {
		// Main holds exactly its caps under sovereign, none when they are
		// left out; they are always written, so Oracles knows them.
		main := b.sc.Tasks["main"]
		main.Caps, main.HasCaps = append([]string{}, b.caps["main"].caps...), true
	}
	for name := range b.sc.Tasks {
		b.sc.TaskNames = append(b.sc.TaskNames, name)
	}
	sort.Strings(b.sc.TaskNames)
	return b.sc
}

// budget draws [budget]: mostly the default, sometimes small components.
func (b *builder) budget() scenario.Budget {
	bg := scenario.DefaultBudget
	if !b.chance(4, "small_budget") {
		return bg
	}
	if rapid.Bool().Draw(b.t, "small_ops") {
		bg.Ops = int64(b.draw(20, smallOpsMax, "budget_ops"))
	}
	if rapid.Bool().Draw(b.t, "small_memory") {
		bg.Memory = int64(b.draw(0, smallMemoryMax, "budget_memory"))
	}
	if rapid.Bool().Draw(b.t, "small_spawn_count") {
		bg.SpawnCount = int64(b.draw(0, smallSpawnCountMax, "budget_spawn_count"))
	}
	if rapid.Bool().Draw(b.t, "small_channel_ops") {
		bg.ChannelOps = int64(b.draw(0, smallChannelOpsMax, "budget_channel_ops"))
	}
	if rapid.Bool().Draw(b.t, "small_syscalls") {
		bg.Syscalls = int64(b.draw(0, smallSyscallsMax, "budget_syscalls"))
	}
	return bg
}

// override draws a budget option (a spawn's or a nursery's): some
// components, each small.
func (b *builder) override() *scenario.BudgetOverride {
	o := &scenario.BudgetOverride{}
	if rapid.Bool().Draw(b.t, "o_ops") {
		o.Ops, o.Set = int64(b.draw(0, smallOverrideOps, "o_ops_n")), o.Set|scenario.SetOps
	}
	if b.chance(3, "o_memory") {
		o.Memory, o.Set = int64(b.draw(0, smallMemoryMax, "o_memory_n")), o.Set|scenario.SetMemory
	}
	if b.chance(3, "o_spawn_count") {
		o.SpawnCount, o.Set = int64(b.draw(0, smallSpawnCountMax/2, "o_spawn_count_n")), o.Set|scenario.SetSpawnCount
	}
	if b.chance(3, "o_channel_ops") {
		o.ChannelOps, o.Set = int64(b.draw(0, smallChannelOpsMax, "o_channel_ops_n")), o.Set|scenario.SetChannelOps
	}
	if b.chance(3, "o_syscalls") {
		o.Syscalls, o.Set = int64(b.draw(0, smallSyscallsMax, "o_syscalls_n")), o.Set|scenario.SetSyscalls
	}
	return o
}

// drawCaps draws a capability set. Spawn comes up most (main gets it four
// times in five), so that programs still spawn under sovereign. A child's
// set is mostly a part of main's, so that main may give it; sometimes it
// is any set (a spawn that asks for more than its spawner holds fails
// with CapabilityDenied), and sometimes it is left out (the child
// inherits its spawner's).
func (b *builder) drawCaps(main bool) capsSpec {
	if !main && b.chance(6, "caps_inherit") {
		return capsSpec{}
	}
	from := []string{scenario.CapSpawn, scenario.CapBudget, scenario.CapSupervisor, scenario.CapChannel, scenario.CapIO}
	if !main && !b.chance(4, "caps_any") {
		from = b.caps["main"].caps
	}
	var cs []string
	for _, c := range from {
		keep := rapid.Bool().Draw(b.t, "cap_"+c)
		if c == scenario.CapSpawn {
			keep = main && !b.chance(5, "main_no_spawn") || !main && !b.chance(3, "no_spawn")
		}
		if keep {
			cs = append(cs, c)
		}
	}
	return capsSpec{has: true, caps: cs}
}

// The kinds of op the builder draws. Only their order in the lists that
// weigh them matters (kinds, endingsTop, endingsNested), not their values:
// those lists put the simplest first, because rapid shrinks a SampledFrom
// towards its first element.
const (
	kLog = iota
	kReturn
	kFail
	kPanic
	kCall
	kSpawn
	kCancel
	kNursery
	kLoop
	kUsing
	kDefer
	kPair           // a channel: a producer and a consumer spawned side by side
	kSpinner        // a spawn of a task looping for ever, stopped by timeout or budget
	kSupervised     // a nursery: a spawn `as` A, a few ops, and a recharge of A
	kCancelledOwner // a spawned owner blocked in its nursery body, cancelled from outside while its child fails

	// kNoEnding, in the endings lists, is a body that runs off its end.
	kNoEnding = kLog

	// kPlain+k is the plain operation k (scenario.OpGen): one with no
	// body that names nothing, drawn by its definition's Gen row.
	kPlain = 1000
)

// body draws up to opsMax ops costing at most budget checkpoints, and
// returns them with their cost. A body may end with return, fail or panic;
// those are drawn only there, since an op after them never runs.
func (b *builder) body(s scope, opsMax, budget int) ([]scenario.Op, int) {
	ends := endingsTop
	if s.depth > 0 {
		ends = endingsNested
	}
	end := rapid.SampledFrom(ends).Draw(b.t, "end")
	opsMin := 0
	if s.main {
		opsMin = 1 // an empty main makes an empty run
	}
	if end != kNoEnding {
		opsMax-- // the ending counts towards the body's ops
	}
	n := b.draw(min(opsMin, opsMax), opsMax, "ops")
	ops := make([]scenario.Op, 0, n+1)
	cost := 0
	for len(ops) < n {
		group, c := b.op(s, budget-cost, n-len(ops))
		ops = append(ops, group...)
		cost += c
	}
	switch end {
	case kReturn:
		n := b.draw(0, returnMax, "return")
		ops = append(ops, scenario.Op{Kind: scenario.Return, N: int64(n)})
	case kFail:
		ops = append(ops, scenario.Op{Kind: scenario.Fail, Str: b.next("E")})
	case kPanic:
		ops = append(ops, scenario.Op{Kind: scenario.Panic, Str: b.next("P")})
	}
	return ops, cost
}

// endingsTop and endingsNested weigh how a body ends: most run off their
// end. A failure is what exercises the nursery modes, so it comes up more
// than return and panic. A nested body ends early less often than a task
// body, or most programs would stop in their first nursery.
var (
	endingsTop    = []int{kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding, kReturn, kFail, kFail, kPanic}
	endingsNested = []int{kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding, kNoEnding,
		kNoEnding, kNoEnding, kNoEnding, kNoEnding, kFail, kPanic, kReturn}
)

// targets returns the tasks the current one may call or spawn within
// budget: those with a higher index (so calls and spawns form no cycle),
// and, of the tasks that must run at most once, only one not named yet
// and only from a body that itself runs at most once.
func (b *builder) targets(s scope, budget, extra int) []string {
	var out []string
	for j := b.cur + 1; j < len(b.names); j++ {
		name := b.names[j]
		if b.once[name] && (!s.once || b.refs[name] > 0) {
			continue
		}
		if b.cost[name]+extra <= budget {
			out = append(out, name)
		}
	}
	return out
}

// op draws one op, or the two spawns of a channel pair, costing at most
// budget checkpoints and at most room ops: a kind from the weighted list
// of kinds that fit, then that kind's draw: a plain operation's OpGen (in
// its file under sim/scenario), or the builder's row of shapeGens.
func (b *builder) op(s scope, budget, room int) ([]scenario.Op, int) {
	d := opDraw{s: s, budget: budget, calls: b.targets(s, budget, 1), spawns: b.targets(s, budget, 2)}
	kinds := b.kinds(&d, room)
	d.inner = scope{nurseries: s.nurseries, depth: s.depth + 1, nursery: s.nursery, once: s.once}
	k := rapid.SampledFrom(kinds).Draw(b.t, "kind")
	if k >= kPlain {
		return one(scenario.OpKind(k-kPlain).Def().Gen.Draw(b, d.budget))
	}
	if g := shapeGens[k]; g != nil {
		return g(b, &d)
	}
	return one(scenario.Op{Kind: scenario.Log, Str: b.next("L")}, 0)
}

// opDraw is what an op generator reads: the scope, the budget left, the
// tasks that may be called or spawned, and the scope of a nested body.
type opDraw struct {
	s             scope
	inner         scope
	budget        int
	calls, spawns []string
}

func one(op scenario.Op, cost int) ([]scenario.Op, int) { return []scenario.Op{op}, cost }

// kinds is the weighted list op draws from. The weights: spawns and
// nurseries are what the scheduler is about, so they come up more often
// than the plain ops. rapid draws an index biased towards the front of
// the list, and shrinks towards index 0: kLog, the simplest op, comes
// first and spawns right after it.
func (b *builder) kinds(d *opDraw, room int) []int {
	s, budget := d.s, d.budget
	kinds := []int{kLog}
	profile := b.sc.Scheduler.Profile
	if s.nursery != nil {
		w := 1
		if s.spawnsMore {
			w = 3
		}
		for range w {
			if len(d.spawns) > 0 {
				kinds = append(kinds, kSpawn, kSpawn, kSpawn, kSpawn, kSpawn)
			}
			if room >= 2 && b.pairFits(s, budget) {
				kinds = append(kinds, kPair, kPair, kPair)
			}
			if b.spinnerFits(s, budget) {
				kinds = append(kinds, kSpinner)
			}
			if b.cancelledOwnerFits(s, budget) {
				kinds = append(kinds, kCancelledOwner)
			}
		}
	}
	canNest := s.depth < bodyDepthMax
	if canNest && len(s.nurseries) < nurseryDepthMax && budget >= 2 && profile != scenario.ProfileCore {
		kinds = append(kinds, kNursery, kNursery, kNursery, kNursery)
		if s.main {
			// Main's own body opens the nurseries that start most of
			// the program: without one, nothing but main runs.
			kinds = append(kinds, kNursery, kNursery, kNursery, kNursery)
		}
		if (profile == scenario.ProfileCluster || profile == scenario.ProfileSovereign) &&
			len(b.targets(s, budget, supervisedExtra)) > 0 {
			kinds = append(kinds, kSupervised, kSupervised)
		}
	}
	kinds = append(kinds, plainKinds...)
	if len(d.calls) > 0 {
		kinds = append(kinds, kCall)
	}
	if len(s.nurseries) > 0 {
		kinds = append(kinds, kCancel)
	}
	if canNest {
		if budget >= 1 {
			kinds = append(kinds, kLoop)
		}
		kinds = append(kinds, kUsing, kDefer)
	}
	return kinds
}

// plainKinds are the plain operations (those with an OpGen row), each
// its weight times, in OpKind order.
var plainKinds = func() []int {
	var out []int
	for _, k := range scenario.OpKinds() {
		if g := k.Def().Gen; g != nil {
			for range g.Weight {
				out = append(out, kPlain+int(k))
			}
		}
	}
	return out
}()

// shapeGens draws the kinds whose draw depends on the program's shape
// (the tasks that may be called or spawned, the nurseries around, the
// budget left): the operations with a body or naming a task, and the
// groups (a channel pair, a spinner, ...). The plain operations are drawn
// by their own OpGen instead; kLog (and the endings, which body draws)
// have no row: op falls back to a log. It is filled in init because the
// rows with a body reach it again through builder.body.
var shapeGens map[int]func(b *builder, d *opDraw) ([]scenario.Op, int)

func init() {
	shapeGens = map[int]func(b *builder, d *opDraw) ([]scenario.Op, int){
		kCall: func(b *builder, d *opDraw) ([]scenario.Op, int) {
			name := rapid.SampledFrom(d.calls).Draw(b.t, "call")
			b.refs[name]++
			return one(scenario.Op{Kind: scenario.Call, Str: name}, 1+b.cost[name])
		},
		kSpawn: func(b *builder, d *opDraw) ([]scenario.Op, int) {
			name := rapid.SampledFrom(d.spawns).Draw(b.t, "spawn")
			return one(b.spawn(name), 2+b.cost[name])
		},
		kSupervised:     func(b *builder, d *opDraw) ([]scenario.Op, int) { return b.supervised(d.s, d.budget) },
		kPair:           func(b *builder, d *opDraw) ([]scenario.Op, int) { return b.pair(d.s, d.budget) },
		kSpinner:        func(b *builder, d *opDraw) ([]scenario.Op, int) { return b.spinner(d.s, d.budget) },
		kCancelledOwner: func(b *builder, d *opDraw) ([]scenario.Op, int) { return b.cancelledOwner(d.s, d.budget) },
		kCancel: func(b *builder, d *opDraw) ([]scenario.Op, int) {
			label := rapid.SampledFrom(d.s.nurseries).Draw(b.t, "cancel")
			return one(scenario.Op{Kind: scenario.Cancel, Str: label}, 0)
		},
		kNursery: genNursery,
		kLoop:    genLoop,
		kUsing: func(b *builder, d *opDraw) ([]scenario.Op, int) {
			op := scenario.Op{Kind: scenario.Using, Str: b.next("r")}
			body, c := b.body(d.inner, nestedOpsMax, d.budget)
			op.Body = body
			return one(op, c)
		},
		kDefer: genDefer,
	}
}

func genNursery(b *builder, d *opDraw) ([]scenario.Op, int) {
	s := d.s
	op := scenario.Op{Kind: scenario.Nursery, Str: b.next("n")}
	op.Mode = rapid.SampledFrom([]string{
		scenario.ModeFailFast, scenario.ModeCancelRemaining, scenario.ModeCollectAll,
	}).Draw(b.t, "mode")
	if !rapid.Bool().Draw(b.t, "unlimited") {
		op.MaxConcurrent = b.draw(1, maxConcurrentMax, "max_concurrent")
	}
	if b.chance(3, "has_timeout") {
		op.Timeout, op.HasTimeout = int64(b.draw(1, timeoutMax, "timeout")), true
	}
	info := &nurseryInfo{mode: op.Mode, maxConcurrent: op.MaxConcurrent, timeout: op.Timeout, poolOps: -1}
	if b.chance(4, "has_pool") {
		op.NurseryBudget = b.override()
		info.poolOps = op.NurseryBudget.Over(b.sc.Budget).Ops
	}
	op.Catch = rapid.Bool().Draw(b.t, "catch")
	inner := d.inner
	inner.nurseries = append(s.nurseries[:len(s.nurseries):len(s.nurseries)], op.Str)
	inner.nursery = info
	inner.spawnsMore = true
	body, c := b.body(inner, nestedOpsMax, d.budget-2)
	op.Body = body
	return one(op, 2+c)
}

func genLoop(b *builder, d *opDraw) ([]scenario.Op, int) {
	n := b.draw(0, min(loopCountMax, d.budget), "loop")
	bodyBudget := d.budget - 1
	if n > 0 {
		bodyBudget = d.budget/n - 1
	}
	inner := d.inner
	inner.once = d.s.once && n <= 1
	body, c := b.body(inner, nestedOpsMax, bodyBudget)
	return one(scenario.Op{Kind: scenario.Loop, N: int64(n), Body: body}, n*(1+c))
}

// genDefer: a defer body runs at task exit, outside every nursery of this
// body; the format forbids spawn and cancel there, and a cleanup is never
// a checkpoint. Log ops are what it is for.
func genDefer(b *builder, d *opDraw) ([]scenario.Op, int) {
	op := scenario.Op{Kind: scenario.Defer, Str: b.next("d")}
	n := b.draw(0, deferOpsMax, "defer_ops")
	for i := 0; i < n; i++ {
		op.Body = append(op.Body, scenario.Op{Kind: scenario.Log, Str: b.next("L")})
	}
	return one(op, 0)
}

// spawn is a spawn of an indexed task, with its caps under sovereign and
// sometimes a small budget.
func (b *builder) spawn(name string) scenario.Op {
	b.refs[name]++
	op := scenario.Op{Kind: scenario.Spawn, Str: name}
	if cs, ok := b.caps[name]; ok && cs.has {
		op.Caps, op.HasCaps = cs.caps, true
	}
	if b.chance(4, "spawn_budget") {
		op.SpawnBudget = b.override()
	}
	return op
}

// filler draws an op that cannot block for ever and needs no nursery,
// with its cost: what channel partners, spinners and supervisors do
// between the ops that matter. Only compute can fail (out of budget).
func (b *builder) filler() (scenario.Op, int) {
	switch b.draw(0, 4, "filler") {
	case 1:
		return scenario.Op{Kind: scenario.Yield}, 1
	case 2:
		n := b.draw(0, 3, "filler_compute")
		return scenario.Op{Kind: scenario.Compute, N: int64(n)}, n
	case 3:
		return scenario.Op{Kind: scenario.Sleep, N: int64(b.draw(0, 10, "filler_sleep"))}, 1
	case 4:
		return scenario.Op{Kind: scenario.CheckCancel}, 1
	}
	return scenario.Op{Kind: scenario.Log, Str: b.next("L")}, 0
}

// fillerCostMax is the most a filler costs.
const fillerCostMax = 3

// supervisedExtra is the cost of a supervised group besides its child's:
// the nursery, the spawn and up to two fillers.
const supervisedExtra = 4 + 2*fillerCostMax

// supervised draws a nursery with a small pool (0..3 ops) that spawns an
// indexed task `as` A, mostly with a budget short of what it needs, runs
// one or two fillers (mostly a sleep first, which lets the child run out
// and wait), then recharges A with all the child may use;
// or, under cluster, sometimes the spawn alone with a budget that covers
// it. Under cluster the child waits for the recharge when it runs out
// (Safe, rule 4); under sovereign the recharge needs the supervisor
// capability, and the spawner fails with CapabilityDenied without it.
func (b *builder) supervised(s scope, budget int) ([]scenario.Op, int) {
	name := rapid.SampledFrom(b.targets(s, budget, supervisedExtra)).Draw(b.t, "supervised")
	nop := scenario.Op{Kind: scenario.Nursery, Str: b.next("n")}
	nop.Mode = rapid.SampledFrom([]string{
		scenario.ModeFailFast, scenario.ModeCancelRemaining, scenario.ModeCollectAll,
	}).Draw(b.t, "mode")
	nop.NurseryBudget = &scenario.BudgetOverride{Ops: int64(b.draw(0, 3, "pool_ops")), Set: scenario.SetOps}
	nop.Catch = rapid.Bool().Draw(b.t, "catch")
	op := b.spawn(name)
	op.As = b.next("w")
	cost := 4 + b.cost[name]
	n := (&safety{sc: b.sc, needs: map[string]need{}}).needOf(name)
	if b.sc.Scheduler.Profile == scenario.ProfileCluster && b.chance(3, "enough_budget") {
		op.SpawnBudget = covering(n, b.sc.Budget, b.draw(0, 2, "slack"))
		nop.Body = []scenario.Op{op}
		return []scenario.Op{nop}, cost
	}
	if nop.Mode == scenario.ModeCancelRemaining && b.sc.Scheduler.Profile == scenario.ProfileCluster {
		// The child may wait for the recharge: cancelled from outside, a
		// cancel_remaining nursery would spare it while its body leaves
		// without recharging it (Safe, rule 4). No draw changes, so every
		// other seed's scenario stays as it was.
		nop.Mode = scenario.ModeFailFast
	}
	if !b.chance(4, "starts_full") {
		// Short of ops from the start (with its self-recharge, which
		// gives as much again, still short), so that it runs out.
		op.SpawnBudget = &scenario.BudgetOverride{Ops: int64(b.draw(0, int(n.Ops)/2, "short_ops")), Set: scenario.SetOps}
	}
	body := []scenario.Op{op}
	for i, k := 0, b.draw(1, 2, "fillers"); i < k; i++ {
		f, c := b.filler()
		if i == 0 && !b.chance(4, "no_sleep_first") {
			// The supervisor sleeps: the child runs meanwhile, runs
			// out first and waits for the recharge.
			f, c = scenario.Op{Kind: scenario.Sleep, N: int64(b.draw(1, 10, "sleep"))}, 1
		}
		body = append(body, f)
		cost += c
	}
	r := scenario.Op{Kind: scenario.Recharge, Str: op.As}
	slack := int64(b.draw(0, 3, "credit_slack"))
	r.Recharge = scenario.BudgetOverride{Ops: n.Ops + slack, Set: scenario.SetOps}
	if n.Memory > 0 {
		r.Recharge.Memory, r.Recharge.Set = n.Memory+slack, r.Recharge.Set|scenario.SetMemory
	}
	if n.Syscalls > 0 {
		r.Recharge.Syscalls, r.Recharge.Set = n.Syscalls+slack, r.Recharge.Set|scenario.SetSyscalls
	}
	if n.ChannelOps > 0 {
		r.Recharge.ChannelOps, r.Recharge.Set = n.ChannelOps+slack, r.Recharge.Set|scenario.SetChannelOps
	}
	nop.Body = append(body, r)
	return []scenario.Op{nop}, cost
}

// covering is a spawn budget that pays for everything n may charge: the
// components [budget] does not cover are set, each with some slack.
func covering(n need, def scenario.Budget, slack int) *scenario.BudgetOverride {
	s := int64(slack)
	o := &scenario.BudgetOverride{Ops: n.Ops + s, Set: scenario.SetOps}
	if def.Memory < n.Memory {
		o.Memory, o.Set = n.Memory+s, o.Set|scenario.SetMemory
	}
	if def.Syscalls < n.Syscalls {
		o.Syscalls, o.Set = n.Syscalls+s, o.Set|scenario.SetSyscalls
	}
	if def.ChannelOps < n.ChannelOps {
		o.ChannelOps, o.Set = n.ChannelOps+s, o.Set|scenario.SetChannelOps
	}
	return o
}

// partnerOpCost bounds what one channel op of a partner costs, with the
// filler that may come before it.
const partnerOpCost = 1 + fillerCostMax

// pairFits reports whether a channel pair may be spawned here: into a
// nursery where a partner cannot be left waiting for the other (not
// cancel_remaining, no max_concurrent), from a body that runs at most
// once, with room for two more tasks.
func (b *builder) pairFits(s scope, budget int) bool {
	n := s.nursery
	return s.once && n.mode != scenario.ModeCancelRemaining && n.maxConcurrent == 0 &&
		b.pairs < pairsMax && b.extra+2 <= extraTasksMax && budget >= 4+2*2*partnerOpCost
}

// pair draws a channel and the two tasks that use it, and returns their
// two spawns, side by side. The producer sends k values and closes the
// channel; the consumer receives r times, k-capacity <= r <= k+1, so
// that neither is left blocked once the other is done. Under fail_fast
// one of them sometimes fails part way (its sibling is then cancelled,
// interrupted if it is blocked); under collect_all, where a failure
// cancels nothing, neither can fail before its last channel op: fillers
// only, and a budget that covers them.
func (b *builder) pair(s scope, budget int) ([]scenario.Op, int) {
	b.pairs++
	b.extra += 2 // both partners, before the first's tail may make tasks of its own
	half := (budget - 4) / 2
	chanMax := min(chanOpsMax, half/partnerOpCost-1)
	ch := scenario.Channel{Name: b.next("ch"), Capacity: b.draw(0, capacityMax, "capacity")}
	b.sc.Channels = append(b.sc.Channels, ch)
	sort.Slice(b.sc.Channels, func(i, j int) bool { return b.sc.Channels[i].Name < b.sc.Channels[j].Name })
	k := b.draw(0, chanMax, "sends")
	r := b.draw(max(0, k-ch.Capacity), min(k+1, chanMax+1), "recvs")
	collect := s.nursery.mode == scenario.ModeCollectAll
	prod, pc := b.partner("p", ch.Name, scenario.Send, k, collect, half)
	cons, cc := b.partner("c", ch.Name, scenario.Recv, r, collect, half)
	ops := []scenario.Op{prod, cons}
	if rapid.Bool().Draw(b.t, "consumer_first") {
		ops[0], ops[1] = cons, prod
	}
	return ops, 4 + pc + cc
}

// partner makes one channel partner task: n channel ops of kind on ch,
// fillers between them, a close after the sends, then a short tail of
// any ops. It returns the spawn that starts it, and its cost.
func (b *builder) partner(prefix, ch string, kind scenario.OpKind, n int, collect bool, budget int) (scenario.Op, int) {
	name := b.next(prefix)
	failAt := -1
	if !collect && n > 0 && b.chance(4, "fails_early") {
		// After one channel op at least, so that Safe can tell which
		// channel it partners.
		failAt = b.draw(1, n, "fail_at")
	}
	var ops []scenario.Op
	cost := 0
	for i := 0; i < n && i != failAt; i++ {
		if b.chance(3, "partner_filler") {
			f, c := b.filler()
			ops = append(ops, f)
			cost += c
		}
		ops = append(ops, scenario.Op{Kind: kind, Str: ch})
		cost++
	}
	switch {
	case failAt >= 0:
		if rapid.Bool().Draw(b.t, "fail_or_panic") {
			ops = append(ops, scenario.Op{Kind: scenario.Fail, Str: b.next("E")})
		} else {
			ops = append(ops, scenario.Op{Kind: scenario.Panic, Str: b.next("P")})
		}
	case kind == scenario.Send:
		ops = append(ops, scenario.Op{Kind: scenario.Close, Str: ch})
	}
	prefixNeed := (&safety{sc: b.sc, needs: map[string]need{}}).bodyNeed(ops)
	if failAt < 0 {
		tail, c := b.body(scope{once: true}, tailOpsMax, budget-cost)
		ops = append(ops, tail...)
		cost += c
	}
	b.sc.Tasks[name] = &scenario.Task{Name: name, Ops: ops}
	b.cost[name] = cost

	op := scenario.Op{Kind: scenario.Spawn, Str: name}
	b.refs[name]++
	if b.sc.Scheduler.Profile == scenario.ProfileSovereign {
		if cs := b.drawCaps(false); cs.has {
			op.Caps, op.HasCaps = cs.caps, true
		}
	}
	switch {
	case collect:
		slack := int64(b.draw(0, 2, "partner_slack"))
		op.SpawnBudget = &scenario.BudgetOverride{Ops: prefixNeed.Ops + slack, ChannelOps: prefixNeed.ChannelOps + slack,
			Set: scenario.SetOps | scenario.SetChannelOps}
	case b.chance(3, "partner_budget"):
		op.SpawnBudget = b.override()
	}
	return op, cost
}

// spinnerBounds is what a spinner spawned into n may cost, in
// checkpoints (two an iteration), when its nursery's timeout stops it and
// when the pool and its own budget (at most spinOpsMax, twice with a
// self-recharge) do; -1 where that does not stop it.
func spinnerBounds(n *nurseryInfo) (byTimeout, byBudget int) {
	byTimeout, byBudget = -1, -1
	if n.timeout > 0 && n.mode != scenario.ModeCancelRemaining {
		byTimeout = int(n.timeout) + 2
	}
	if n.poolOps >= 0 && n.poolOps <= spinPoolOpsMax {
		byBudget = 2*int(n.poolOps+2*spinOpsMax) + 2
	}
	return byTimeout, byBudget
}

func fits(c, budget int) bool { return c >= 0 && 2+fillerCostMax+c <= budget }

func (b *builder) spinnerFits(s scope, budget int) bool {
	t, bb := spinnerBounds(s.nursery)
	return (fits(t, budget) || fits(bb, budget)) && b.spinners < spinnersMax && b.extra < extraTasksMax
}

// spinner makes a task that loops for ever, and returns its spawn: the
// nursery's timeout stops it (it is cancelled), or the small pool and a
// small budget of its own do (ResourceExhausted). With the
// budget-not-charged mutant the second kind runs until max_steps: a
// livelock.
func (b *builder) spinner(s scope, budget int) ([]scenario.Op, int) {
	b.spinners++
	b.extra++
	name := b.next("s")
	byTimeout, byBudget := spinnerBounds(s.nursery)
	useBudget := fits(byBudget, budget) && (!fits(byTimeout, budget) || rapid.Bool().Draw(b.t, "spin_budget"))
	cost := byTimeout
	if useBudget && (cost < 0 || byBudget < cost) {
		cost = byBudget
	}
	var ops []scenario.Op
	if rapid.Bool().Draw(b.t, "spin_prefix") {
		f, c := b.filler()
		ops = append(ops, f)
		cost += c
	}
	var step scenario.Op
	switch b.draw(0, 3, "spin_op") {
	case 0:
		step = scenario.Op{Kind: scenario.Yield}
	case 1:
		step = scenario.Op{Kind: scenario.Compute, N: 1}
	case 2:
		step = scenario.Op{Kind: scenario.Log, Str: b.next("L")}
	default:
		step = scenario.Op{Kind: scenario.CheckCancel}
	}
	ops = append(ops, scenario.Op{Kind: scenario.Loop, N: scenario.LoopForever, Body: []scenario.Op{step}})
	b.sc.Tasks[name] = &scenario.Task{Name: name, Ops: ops}
	b.cost[name] = cost

	op := scenario.Op{Kind: scenario.Spawn, Str: name}
	b.refs[name]++
	if b.sc.Scheduler.Profile == scenario.ProfileSovereign {
		if cs := b.drawCaps(false); cs.has {
			op.Caps, op.HasCaps = cs.caps, true
		}
	}
	if useBudget {
		// The nursery's small pool bounds it only with a small budget of
		// its own, whatever [budget] says.
		op.SpawnBudget = &scenario.BudgetOverride{Ops: int64(b.draw(0, spinOpsMax, "spin_ops")), Set: scenario.SetOps}
	}
	return []scenario.Op{op}, 2 + cost
}
