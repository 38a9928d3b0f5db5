package scenario

// This file declares the parts of an OpDef that the fuzzer (package gen)
// reads: how an operation is written back, what its safety rules and
// shrinker know of it, and how it is drawn.

// Formatter is what an operation's Format writes with (package gen's
// formatter): TOML text, one operation at a time.
type Formatter interface {
	Printf(format string, args ...any)
	Quote(s string) string                // a TOML basic string
	Strings(ss []string) string           // ["a", "b"]
	BudgetTable(o BudgetOverride) string  // { ops = 1, memory = 2 }, {} when empty
	BudgetFields(o BudgetOverride) string // ops = 1, memory = 2
}

// OpSafety is what the fuzzer's safety rules (gen.Safe, rules 1 to 4 of
// its doc) and its shrinker know of one operation, so that a new
// operation is a row here, not a case in each of Safe's walks. The zero
// OpSafety is an operation with no body that names nothing, may not spin,
// may fail before a channel partner's last channel op and charges
// nothing.
type OpSafety struct {
	Body BodyScope // where its body runs, if it has one
	// Runs is how many times its body runs when it runs once, capped at
	// 2 (nil: once). Only loop repeats.
	Runs func(op *Op) int
	Ref  bool // names a task body it runs: call, spawn (rule 1)
	// Spins: may be an op of a forever loop's body (rule 2).
	Spins bool
	Chan  ChanRole // its part in a channel (rule 3)
	// BeforeChan: cannot fail, so a collect_all channel partner may run it
	// before its last channel op (rule 3).
	BeforeChan bool
	Returns    bool // ends the task body by itself (return)
	// Need is what one run of it charges its own task's budget, the bodies
	// it runs in the same task included (rule 4; nil: nothing).
	Need func(c Coster, op *Op) Need
	// Halves: its N is a count the shrinker may halve.
	Halves bool
	// Defaults lists the edits that put its options back to their
	// defaults, for the shrinker (nil: none).
	Defaults func(op *Op) []func(op *Op)
}

// BodyScope is where an op's body runs relative to the nurseries around it.
type BodyScope uint8

// The body scopes.
const (
	NoBody       BodyScope = iota
	BodyInNew              // inside a nursery the op opens (nursery)
	BodyInSame             // inside the nurseries around the op (loop, using)
	BodyDetached           // when the task exits, outside every nursery (defer)
)

// Inline reports whether the body runs as part of the task body, so that a
// `return` in it ends the task body.
func (b BodyScope) Inline() bool { return b == BodyInNew || b == BodyInSame }

// ChanRole is an operation's part in a channel.
type ChanRole uint8

// The channel roles.
const (
	NotChan ChanRole = iota
	Sends
	Recvs
	Closes
)

// Need is what a body may charge its task's budget, each component capped
// at NeedCap.
type Need struct {
	Ops, Memory, Syscalls, ChannelOps int64
	Unbounded                         bool // a forever loop
}

// NeedCap keeps the sums of a hand-written scenario from overflowing.
const NeedCap = int64(1) << 40

func capAdd(a, b int64) int64 { return min(NeedCap, a+b) }

// Plus is what a and then b need.
func (a Need) Plus(b Need) Need {
	return Need{capAdd(a.Ops, b.Ops), capAdd(a.Memory, b.Memory), capAdd(a.Syscalls, b.Syscalls),
		capAdd(a.ChannelOps, b.ChannelOps), a.Unbounded || b.Unbounded}
}

// Times is what n runs of a need.
func (a Need) Times(n int64) Need {
	if n == 0 {
		return Need{}
	}
	mul := func(x int64) int64 {
		if x > NeedCap/n {
			return NeedCap
		}
		return x * n
	}
	return Need{mul(a.Ops), mul(a.Memory), mul(a.Syscalls), mul(a.ChannelOps), a.Unbounded}
}

// Coster is what an OpSafety's Need reads of the rest of the program
// (package gen's safety rules): the need of a body, and of a task's body.
type Coster interface {
	BodyNeed(ops []Op) Need
	TaskNeed(task string) Need
}

// OpGen is how the fuzzer draws a plain operation: one with no body that
// names nothing, which fits anywhere in a body (compute, yield, sleep,
// ...). The fuzzer adds each such operation Weight times to the list it
// draws a kind from, in OpKind order. Operations whose draw depends on the
// program's shape (spawn, nursery, loop, a channel pair) are drawn by
// package gen's builder instead.
type OpGen struct {
	Weight int
	// Draw draws the operation with at most budget checkpoints, and
	// returns it with its cost in checkpoints.
	Draw func(d Drawer, budget int) (Op, int)
}

// Drawer is what an OpGen draws with (package gen's builder, on rapid's
// seeded source).
type Drawer interface {
	Draw(lo, hi int, label string) int // an int in [lo, hi]
	Chance(in int, label string) bool  // true one time in `in`
	Next(prefix string) string         // a fresh name: prefix and a number
}
