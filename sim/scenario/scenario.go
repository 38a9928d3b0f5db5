package scenario

import "github.com/cbcsim/cbcsim/sched"

// Version is the newest scenario format version this package reads, and
// MinVersion the oldest. Version 2 adds what issue 25 needed to test the
// seeds' cancellation statements (docs/scenarios.md#format-version-2):
// spawn's `into`, the nursery option `timeout_fails`, the operations
// `cancel_self` and `if_cancelled`, and the expectations `state` and
// `transitions` of a nursery and `[expect.task.NAME]`. A version-1 file
// loads as before; one that uses a version-2 feature is refused, located.
const (
	Version    = 2
	MinVersion = 1
)

// Scheduler profiles (the `profile` key of [scheduler]).
const (
	ProfileCore      = "core"
	ProfileService   = "service"
	ProfileCluster   = "cluster"
	ProfileSovereign = "sovereign"
)

// Victim selection policies (the `victim` key of [scheduler]).
const (
	VictimRandom      = "random"
	VictimRoundRobin  = "round_robin"
	VictimLeastLoaded = "least_loaded"
)

// Nursery error modes (the `mode` option of a nursery).
const (
	ModeFailFast        = "fail_fast"
	ModeCancelRemaining = "cancel_remaining"
	ModeCollectAll      = "collect_all"
)

// Capabilities a task may hold (`caps`). Under "sovereign" a task holds only
// those listed; under the other profiles every task holds all of them (and
// under "cluster" a task holding CapSupervisor may also `recharge`). Version 1
// of the format gates only spawning (CapSpawn) and self-recharge (CapBudget);
// CapChannel and CapIO are accepted so that files can state intent, and have
// no effect yet.
const (
	CapSpawn      = "spawn"
	CapBudget     = "budget"
	CapSupervisor = "supervisor"
	CapChannel    = "channel"
	CapIO         = "io"
)

// Defaults for keys left out of the file.
const (
	DefaultVictim         = VictimRandom
	DefaultProfile        = ProfileService
	DefaultMaxSteps int64 = 1_000_000
	DefaultMode           = ModeFailFast
)

// The forced-yield intervals left-out `yield_interval` means: the
// library's per-profile defaults, which it owns.
var (
	DefaultYieldInterval        = sched.DefaultYieldInterval(sched.ProfileService) // core, service, sovereign
	DefaultYieldIntervalCluster = sched.DefaultYieldInterval(sched.ProfileCluster)
)

// DefaultBudget is the task budget used for every component that [budget]
// leaves out: the library's default, which it owns, so that a scenario and
// a Go program start from the same budget.
var DefaultBudget = Budget(sched.DefaultBudget)

// Scenario is a loaded, validated scenario file. Every reference in it
// (task, channel, nursery label) has been resolved at load time.
type Scenario struct {
	Version     int
	Name        string // `name`, or the file's base name without ".toml"
	Description string

	Source []byte // the exact bytes of the file
	SHA256 string // hex SHA-256 of Source

	Scheduler Scheduler
	Budget    Budget    // [budget], defaults filled in
	Channels  []Channel // sorted by name

	Tasks     map[string]*Task
	TaskNames []string // sorted, for deterministic iteration

	Expect *Expect // nil if the file has no [expect]
}

// Scheduler is the [scheduler] table with defaults filled in.
type Scheduler struct {
	Workers       int    // 1..256; 0 = not given: the caller picks (CPU count)
	Seed          uint64 // meaningful only if HasSeed
	HasSeed       bool
	Victim        string // random | round_robin | least_loaded
	Profile       string // core | service | cluster | sovereign
	YieldInterval int    // ops between forced yields
	MaxSteps      int64  // simulator bound; past it the run is a livelock
}

// Budget is a full budget: one quota per component.
type Budget struct {
	Ops, Memory, SpawnCount, ChannelOps, Syscalls int64
}

// Channel is one entry of [channels].
type Channel struct {
	Name     string
	Capacity int // 0 is a rendezvous channel
}

// Task is one [task.NAME] body.
type Task struct {
	Name    string
	Caps    []string // only task.main may give caps (see docs/scenarios.md)
	HasCaps bool
	Ops     []Op
}

// Op is one operation of a body. Which fields mean something depends on
// Kind: each operation's file (op_NAME.go, see OpDef) says which it uses.
type Op struct {
	Kind OpKind
	Path string // TOML path of this op, e.g. "task.main.ops[0].body[1]"
	Line int    // 1-based; 0 if unknown
	Col  int    // 1-based; 0 if unknown

	N    int64
	Str  string
	Body []Op

	// spawn options
	As          string
	SpawnBudget *BudgetOverride // nil if not given
	Caps        []string
	HasCaps     bool

	// nursery options
	Mode          string // fail_fast (default) | cancel_remaining | collect_all
	Timeout       int64  // ticks; meaningful only if HasTimeout
	HasTimeout    bool
	MaxConcurrent int             // 0 = unlimited
	NurseryBudget *BudgetOverride // nil = the owner's remaining budget
	Catch         bool
	TimeoutFails  bool // version 2: a passed timeout fails the nursery (N2001)

	// spawn option (version 2): the label of a nursery the spawning task
	// was handed (its own, or one its ancestors are inside), spawned into
	// with GoFrom; "" spawns into the innermost enclosing nursery.
	Into string

	// recharge options
	Recharge BudgetOverride
}

// Bits of BudgetOverride.Set, one per component.
const (
	SetOps uint8 = 1 << iota
	SetMemory
	SetSpawnCount
	SetChannelOps
	SetSyscalls
)

// BudgetOverride is a budget table where components may be left out: a spawn's
// or nursery's `budget`, or a recharge's amounts. Set says which were given.
type BudgetOverride struct {
	Ops, Memory, SpawnCount, ChannelOps, Syscalls int64
	Set                                           uint8
}

// Has reports whether every component in bits was given.
func (o BudgetOverride) Has(bits uint8) bool { return o.Set&bits == bits }

// Over returns base with the given components replaced: the contract's
// "components left out take the [budget] values".
func (o BudgetOverride) Over(base Budget) Budget {
	if o.Has(SetOps) {
		base.Ops = o.Ops
	}
	if o.Has(SetMemory) {
		base.Memory = o.Memory
	}
	if o.Has(SetSpawnCount) {
		base.SpawnCount = o.SpawnCount
	}
	if o.Has(SetChannelOps) {
		base.ChannelOps = o.ChannelOps
	}
	if o.Has(SetSyscalls) {
		base.Syscalls = o.Syscalls
	}
	return base
}

// Expect is the [expect] table. Every string list of alternatives has been
// split on "|" and validated; see Match for how a pattern matches.
type Expect struct {
	Outcome []string // ok | failed | cancelled | deadlock | livelock | *; nil = any
	Value   *int64   // nil = any
	Error   []string // nil = any

	Log    []string // the whole log, exactly; meaningful only if HasLog
	HasLog bool

	LogOrder []string // these entries appear in this relative order; nil = none

	Nursery       map[string]*ExpectNursery // by label
	NurseryLabels []string                  // sorted

	Task      map[string]*ExpectTask // by task name (version 2)
	TaskNames []string               // sorted
}

// ExpectNursery is one [expect.nursery.LABEL] table. It applies to every
// nursery instance with that label.
type ExpectNursery struct {
	Result []string // success | child_failed | cancelled | *; nil = any
	Error  []string // nil = any

	Results    [][]string // per child in spawn order; alternatives of each
	HasResults bool

	// Version 2.
	State          []string // the final state: Closed | Cancelled | *; nil = any
	Transitions    []string // every transition in order, "FROM->TO"; meaningful only if HasTransitions
	HasTransitions bool
}

// ExpectTask is one [expect.task.NAME] table (version 2): it applies to
// every task spawned as NAME (main for task.main).
type ExpectTask struct {
	Result []string // a child result pattern; nil = any
}
