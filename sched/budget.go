package sched

import (
	"fmt"
	"math"
)

// Budget is a task's resource quota (docs/spec.md#budgets). Each component
// counts down; reaching 0 exhausts the task. A zero component means zero,
// not "the default": the scenario format gives explicit zeros a meaning
// (spawn_count = 0 forbids spawning), and the library keeps that reading.
// Start from DefaultBudget or Unlimited and change the components that
// matter; only a wholly zero Config.Budget stands for DefaultBudget.
type Budget struct {
	Ops        int64 // abstract instructions
	Memory     int64 // bytes
	SpawnCount int64 // children it may spawn
	ChannelOps int64 // channel sends and receives
	Syscalls   int64 // file and network I/O operations
}

// DefaultBudget is the scenario format's default task budget.
var DefaultBudget = Budget{Ops: 100_000, Memory: 1 << 20, SpawnCount: 64, ChannelOps: 1024, Syscalls: 64}

// Unlimited is a budget no program exhausts, for Go programs that want
// structured concurrency without quotas: Config{Budget: sched.Unlimited}.
var Unlimited = Budget{Ops: math.MaxInt64 / 2, Memory: math.MaxInt64 / 2, SpawnCount: math.MaxInt32, ChannelOps: math.MaxInt64 / 2, Syscalls: math.MaxInt64 / 2}

// Cost is what one operation charges (docs/spec.md#budgets).
type Cost = Budget

// Component names one budget component, for messages and the trace.
type Component uint8

const (
	CompNone Component = iota
	CompOps
	CompMemory
	CompSpawnCount
	CompChannelOps
	CompSyscalls
)

var componentNames = [...]string{"none", "ops", "memory", "spawn_count", "channel_ops", "syscalls"}

func (c Component) String() string {
	if int(c) < len(componentNames) {
		return componentNames[c]
	}
	return fmt.Sprintf("Component(%d)", uint8(c))
}

// short reports the first component of b that cannot pay c, or CompNone.
func (b *Budget) short(c Cost) Component {
	switch {
	case c.Ops > b.Ops:
		return CompOps
	case c.Memory > b.Memory:
		return CompMemory
	case c.SpawnCount > b.SpawnCount:
		return CompSpawnCount
	case c.ChannelOps > b.ChannelOps:
		return CompChannelOps
	case c.Syscalls > b.Syscalls:
		return CompSyscalls
	}
	return CompNone
}

// none reports whether b is all zeros (a Cost that charges nothing),
// field by field: comparing the 40-byte struct with Budget{} is a call of
// runtime.memequal, at every seeded step's checkpoint.
func (b *Budget) none() bool {
	return b.Ops|b.Memory|b.SpawnCount|b.ChannelOps|b.Syscalls == 0
}

// sub charges c to b; the caller has checked short(c) == CompNone.
func (b *Budget) sub(c Cost) {
	b.Ops -= c.Ops
	b.Memory -= c.Memory
	b.SpawnCount -= c.SpawnCount
	b.ChannelOps -= c.ChannelOps
	b.Syscalls -= c.Syscalls
}

// payable is the part of c that b can pay, component by component (an
// overrun in a cleanup pays what is left and runs on: exhausted).
func (b *Budget) payable(c Cost) Cost {
	return Cost{
		Ops:        max(min(c.Ops, b.Ops), 0),
		Memory:     max(min(c.Memory, b.Memory), 0),
		SpawnCount: max(min(c.SpawnCount, b.SpawnCount), 0),
		ChannelOps: max(min(c.ChannelOps, b.ChannelOps), 0),
		Syscalls:   max(min(c.Syscalls, b.Syscalls), 0),
	}
}

// take moves up to want of each component from b to the result
// (docs/spec.md#budgets: a child's budget is min(pool, default), taken from
// the pool).
func (b *Budget) take(want Budget) Budget {
	got := Budget{
		Ops:        min(b.Ops, want.Ops),
		Memory:     min(b.Memory, want.Memory),
		SpawnCount: min(b.SpawnCount, want.SpawnCount),
		ChannelOps: min(b.ChannelOps, want.ChannelOps),
		Syscalls:   min(b.Syscalls, want.Syscalls),
	}
	b.sub(got)
	return got
}
