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
	tasksMax         = 6  // main and t1..t5
	topOpsMax        = 8  // ops in a task's own body
	nestedOpsMax     = 4  // ops in a nested body (loop, nursery, using)
	deferOpsMax      = 2  // log ops in a defer body
	bodyDepthMax     = 4  // nested bodies inside one task body
	nurseryDepthMax  = 3  // nested nurseries inside one task body
	loopCountMax     = 4  // loop = 0..4, never "forever"
	computeMax       = 50 // compute = 0..50
	returnMax        = 9  // return = 0..9
	maxConcurrentMax = 3  // max_concurrent = 0..3 (0: unlimited)
	yieldIntervalMax = 64 // yield_interval = 1..64 when given

	// costMax bounds the checkpoints one task body may pass, counting the
	// bodies it calls and spawns (transitively) and multiplying loop bodies
	// by their counts. With it, a generated run takes a few hundred
	// scheduler steps at most, whatever the draws.
	costMax = 400
)

// Scenario returns a generator of valid scenarios, loaded: each one is
// built as an AST, written with Format and parsed back, so Source, SHA256
// and every op's Path are filled in and the scenario is exactly what
// `cbcsim run` would read from the file.
//
// A generated scenario uses only what this version of the simulator runs:
// compute, yield, call, loop (0..4 iterations), spawn, nursery (every mode,
// max_concurrent 0..3, catch, nested at most 3 deep), cancel of an
// enclosing nursery, check_cancel, defer (with log bodies), using, log,
// return, fail and panic. It has no channels, sleep, recharge, nursery
// timeout or [expect], and leaves workers unset. Every program terminates: a
// task calls and spawns only tasks with a higher index (main is 0, then
// t1..t5), loops are bounded, and nothing blocks except a nursery awaiting
// its children. Labels, log texts and error strings are unique within a
// scenario, so a trace or a failure message names one place.
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

// builder draws one scenario. Tasks are drawn from the last to main, so
// when a body is drawn the cost of every task it may call or spawn is known.
type builder struct {
	t     *rapid.T
	names []string // by index: main, t1, ...
	cost  []int    // checkpoints of each task body already drawn
	cur   int      // index of the task being drawn
	seq   int      // numbers labels, log texts and error strings
}

// scope is where in a task body an op is drawn.
type scope struct {
	nurseries []string // labels of the enclosing nurseries, innermost last
	depth     int      // nested bodies around this one
}

func newBuilder(t *rapid.T) *builder { return &builder{t: t} }

func (b *builder) next(prefix string) string {
	b.seq++
	return prefix + strconv.Itoa(b.seq)
}

func (b *builder) scenario() *scenario.Scenario {
	n := rapid.IntRange(1, tasksMax).Draw(b.t, "tasks")
	b.names = make([]string, n)
	b.cost = make([]int, n)
	b.names[0] = "main"
	for i := 1; i < n; i++ {
		b.names[i] = "t" + strconv.Itoa(i)
	}
	sc := &scenario.Scenario{
		Version: scenario.Version,
		Name:    "generated",
		Scheduler: scenario.Scheduler{
			Victim:        scenario.DefaultVictim,
			Profile:       scenario.DefaultProfile,
			YieldInterval: scenario.DefaultYieldInterval,
			MaxSteps:      scenario.DefaultMaxSteps,
		},
		Budget: scenario.DefaultBudget,
		Tasks:  make(map[string]*scenario.Task, n),
	}
	if rapid.Bool().Draw(b.t, "has_yield_interval") {
		sc.Scheduler.YieldInterval = rapid.IntRange(1, yieldIntervalMax).Draw(b.t, "yield_interval")
	}
	if rapid.Bool().Draw(b.t, "has_victim") {
		sc.Scheduler.Victim = rapid.SampledFrom([]string{
			scenario.VictimRandom, scenario.VictimRoundRobin, scenario.VictimLeastLoaded,
		}).Draw(b.t, "victim")
	}
	for i := n - 1; i >= 0; i-- {
		b.cur = i
		ops, cost := b.body(scope{}, topOpsMax, costMax)
		b.cost[i] = cost
		sc.Tasks[b.names[i]] = &scenario.Task{Name: b.names[i], Ops: ops}
	}
	sc.TaskNames = append([]string(nil), b.names...)
	sort.Strings(sc.TaskNames)
	return sc
}

// The kinds of op the builder draws. They index nothing: the lists that
// weigh them (op, endingsTop, endingsNested) put the simplest first,
// because rapid shrinks a SampledFrom towards its first element.
const (
	kLog = iota
	kCompute
	kYield
	kCheckCancel
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

	// kNoEnding, in the endings lists, is a body that runs off its end.
	kNoEnding = kLog
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
	if b.cur == 0 && s.depth == 0 {
		opsMin = 1 // an empty main makes an empty run
	}
	if end != kNoEnding {
		opsMax-- // the ending counts towards the body's ops
	}
	n := rapid.IntRange(min(opsMin, opsMax), opsMax).Draw(b.t, "ops")
	ops := make([]scenario.Op, 0, n+1)
	cost := 0
	for i := 0; i < n; i++ {
		op, c := b.op(s, budget-cost)
		ops = append(ops, op)
		cost += c
	}
	switch end {
	case kReturn:
		n := rapid.IntRange(0, returnMax).Draw(b.t, "return")
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
// budget: those with a higher index (so calls and spawns form no cycle).
func (b *builder) targets(budget, extra int) []string {
	var out []string
	for j := b.cur + 1; j < len(b.names); j++ {
		if b.cost[j]+extra <= budget {
			out = append(out, b.names[j])
		}
	}
	return out
}

func (b *builder) costOf(name string) int {
	for j, n := range b.names {
		if n == name {
			return b.cost[j]
		}
	}
	panic("gen: costOf: unknown task " + name)
}

// op draws one op that costs at most budget checkpoints.
func (b *builder) op(s scope, budget int) (scenario.Op, int) {
	// The weights: spawns and nurseries are what the scheduler is about, so
	// they come up more often than the plain ops. rapid draws an index
	// biased towards the front of the list, and shrinks towards index 0:
	// kLog, the simplest op, comes first and spawns right after it.
	kinds := []int{kLog}
	calls := b.targets(budget, 1)
	spawns := b.targets(budget, 2)
	if len(s.nurseries) > 0 && len(spawns) > 0 {
		kinds = append(kinds, kSpawn, kSpawn, kSpawn, kSpawn, kSpawn, kSpawn)
	}
	canNest := s.depth < bodyDepthMax
	if canNest && len(s.nurseries) < nurseryDepthMax && budget >= 2 {
		kinds = append(kinds, kNursery, kNursery, kNursery, kNursery)
	}
	kinds = append(kinds, kCompute, kCompute, kYield, kCheckCancel)
	if len(calls) > 0 {
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
	inner := scope{nurseries: s.nurseries, depth: s.depth + 1}
	switch rapid.SampledFrom(kinds).Draw(b.t, "kind") {
	case kCompute:
		// Mostly a few iterations, which interleave finely; sometimes a
		// long one, which keeps a task busy while others are cancelled.
		hi := 5
		if rapid.IntRange(0, 3).Draw(b.t, "long") == 3 {
			hi = computeMax
		}
		n := rapid.IntRange(0, min(hi, budget)).Draw(b.t, "compute")
		return scenario.Op{Kind: scenario.Compute, N: int64(n)}, n
	case kYield:
		return scenario.Op{Kind: scenario.Yield}, min(1, budget)
	case kCheckCancel:
		return scenario.Op{Kind: scenario.CheckCancel}, min(1, budget)
	case kCall:
		name := rapid.SampledFrom(calls).Draw(b.t, "call")
		return scenario.Op{Kind: scenario.Call, Str: name}, 1 + b.costOf(name)
	case kSpawn:
		name := rapid.SampledFrom(spawns).Draw(b.t, "spawn")
		return scenario.Op{Kind: scenario.Spawn, Str: name}, 2 + b.costOf(name)
	case kCancel:
		label := rapid.SampledFrom(s.nurseries).Draw(b.t, "cancel")
		return scenario.Op{Kind: scenario.Cancel, Str: label}, 0
	case kNursery:
		op := scenario.Op{Kind: scenario.Nursery, Str: b.next("n")}
		op.Mode = rapid.SampledFrom([]string{
			scenario.ModeFailFast, scenario.ModeCancelRemaining, scenario.ModeCollectAll,
		}).Draw(b.t, "mode")
		op.MaxConcurrent = rapid.IntRange(0, maxConcurrentMax).Draw(b.t, "max_concurrent")
		op.Catch = rapid.Bool().Draw(b.t, "catch")
		inner.nurseries = append(s.nurseries[:len(s.nurseries):len(s.nurseries)], op.Str)
		body, c := b.body(inner, nestedOpsMax, budget-2)
		op.Body = body
		return op, 2 + c
	case kLoop:
		n := rapid.IntRange(0, min(loopCountMax, budget)).Draw(b.t, "loop")
		bodyBudget := budget - 1
		if n > 0 {
			bodyBudget = budget/n - 1
		}
		body, c := b.body(inner, nestedOpsMax, bodyBudget)
		return scenario.Op{Kind: scenario.Loop, N: int64(n), Body: body}, n * (1 + c)
	case kUsing:
		op := scenario.Op{Kind: scenario.Using, Str: b.next("r")}
		body, c := b.body(inner, nestedOpsMax, budget)
		op.Body = body
		return op, c
	case kDefer:
		// A defer body runs at task exit, outside every nursery of this
		// body; the format forbids spawn and cancel there, and a cleanup
		// is never a checkpoint. Log ops are what it is for.
		op := scenario.Op{Kind: scenario.Defer, Str: b.next("d")}
		n := rapid.IntRange(0, deferOpsMax).Draw(b.t, "defer_ops")
		for i := 0; i < n; i++ {
			op.Body = append(op.Body, scenario.Op{Kind: scenario.Log, Str: b.next("L")})
		}
		return op, 0
	}
	return scenario.Op{Kind: scenario.Log, Str: b.next("L")}, 0
}
