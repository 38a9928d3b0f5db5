package goker

import (
	"sort"

	"github.com/cbcsim/cbcsim/sched"
)

// Kernel is one GoKer blocking bug, ported to package sched.
type Kernel struct {
	ID      string // GoBench's id, <project>_<pull request>: "cockroach_584"
	Subtype string // GoBench's type and subtype: "resource deadlock / double locking"

	// Body returns the kernel's root task: the buggy version, or the fixed
	// one when fixed is true.
	Body func(fixed bool) sched.Func

	// Strategy, when not empty, is the simtest strategy TestGoKer finds
	// the bug with, for a kernel the default (random) does not find
	// within the default runs.
	Strategy string

	// MaxSteps, when not zero, bounds a run's busy steps (simtest's
	// MaxSteps) for a kernel whose bug is a task that never stops: the
	// run is then a livelock (Livelock true), found sooner than at
	// simtest's default.
	MaxSteps int64
	Livelock bool // the bug shows as a livelock, not a deadlock

	// FixHangs, when not empty, says why the fixed version still fails
	// under simtest (the fix itself blocks on some interleaving); the
	// suite then does not require it to pass.
	FixHangs string
}

var registry = map[string]Kernel{}

// register adds k to the suite; every kernel's file calls it once, from a
// package-level variable.
func register(k Kernel) struct{} {
	if _, dup := registry[k.ID]; dup {
		panic("goker: register: duplicate kernel " + k.ID)
	}
	registry[k.ID] = k
	return struct{}{}
}

// Kernels returns the ported kernels, ordered by id.
func Kernels() []Kernel {
	ks := make([]Kernel, 0, len(registry))
	for _, k := range registry {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].ID < ks[j].ID })
	return ks
}

// Subtypes of GoBench's blocking set (gobench/configures/goker/blocking.json).
const (
	abba        = "resource deadlock / AB-BA deadlock"
	doubleLock  = "resource deadlock / double locking"
	rwr         = "resource deadlock / RWR deadlock"
	commChan    = "communication deadlock / channel"
	commChanCV  = "communication deadlock / channel & condition variable"
	commChanCtx = "communication deadlock / channel & context"
	commCV      = "communication deadlock / condition variable"
	mixedLock   = "mixed deadlock / channel & lock"
	mixedWG     = "mixed deadlock / channel & WaitGroup"
	mixedMisuse = "mixed deadlock / misuse WaitGroup"
)
