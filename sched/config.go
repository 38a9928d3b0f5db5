package sched

import (
	"fmt"
	"math"
	"runtime"
)

// Victim is the steal-victim selection strategy (docs/spec.md#victims).
type Victim uint8

const (
	VictimRandom      Victim = iota // a seeded Xoshiro256** draw per attempt (the default)
	VictimRoundRobin                // cycle through the other workers
	VictimLeastLoaded               // the other worker with the longest deque (a snapshot)
)

var victimNames = [...]string{"random", "round_robin", "least_loaded"}

func (v Victim) String() string {
	if int(v) < len(victimNames) {
		return victimNames[v]
	}
	return fmt.Sprintf("Victim(%d)", uint8(v))
}

// ParseVictim maps a scenario's victim name to its strategy.
func ParseVictim(s string) (Victim, bool) {
	for i, n := range victimNames {
		if n == s {
			return Victim(i), true
		}
	}
	return 0, false
}

// Profile is a Janus profile (docs/spec.md#profiles).
type Profile uint8

const (
	ProfileService   Profile = iota // every task holds every capability
	ProfileCore                     // no scheduler: spawn and nursery are refused
	ProfileCluster                  // like service, plus supervisor recharge
	ProfileSovereign                // tasks hold only the capabilities they are given
)

var profileNames = [...]string{"service", "core", "cluster", "sovereign"}

func (p Profile) String() string {
	if int(p) < len(profileNames) {
		return profileNames[p]
	}
	return fmt.Sprintf("Profile(%d)", uint8(p))
}

// ParseProfile maps a scenario's profile name to its Profile.
func ParseProfile(s string) (Profile, bool) {
	for i, n := range profileNames {
		if n == s {
			return Profile(i), true
		}
	}
	return 0, false
}

// DefaultYieldInterval is the per-profile forced-yield interval in ops (seed
// 001 section 4.3): 512 under cluster, 1024 otherwise.
func DefaultYieldInterval(p Profile) int {
	if p == ProfileCluster {
		return 512
	}
	return 1024
}

// WorkersMax is the largest worker count (docs/spec.md#workers).
const WorkersMax = 256

// Config configures a Scheduler. The zero value is usable: one worker per
// CPU, seed 0, random victims, the service profile and its yield interval,
// and Unlimited for every task (sched/driver, which runs
// scenarios, gives DefaultBudget instead).
type Config struct {
	Workers       int     // 1..WorkersMax; 0 means runtime.NumCPU()
	Seed          uint64  // seeds every worker's victim generator
	Victim        Victim  // steal-victim strategy
	Profile       Profile // capability profile
	YieldInterval int     // ops between forced yields; 0 means DefaultYieldInterval(Profile)
	Budget        Budget  // each root task's budget; the zero value means Unlimited
	RootCaps      Caps    // under the sovereign profile, the root task's capabilities (none by default)

	// MaxSteps bounds a real-mode run: past that many worker steps in all
	// (steps that ran a task or took one; an idle worker's looks for work
	// do not count), the root task is cancelled (ResourceExhausted) and
	// every task unwinds at its next checkpoint; a driver learns that the
	// bound was passed from sched/driver's Scheduler.LimitHit. 0 means no
	// bound. The seeded driver keeps its own bound and ignores this one.
	MaxSteps int64
}

// normalize fills defaults and checks ranges.
func (c Config) normalize() (Config, error) {
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.Workers < 1 || c.Workers > WorkersMax {
		return c, fmt.Errorf("sched: workers %d out of range 1..%d", c.Workers, WorkersMax)
	}
	if c.Victim > VictimLeastLoaded {
		return c, fmt.Errorf("sched: unknown victim strategy %d", c.Victim)
	}
	if c.Profile > ProfileSovereign {
		return c, fmt.Errorf("sched: unknown profile %d", c.Profile)
	}
	if c.YieldInterval == 0 {
		c.YieldInterval = DefaultYieldInterval(c.Profile)
	}
	if c.YieldInterval < 1 || c.YieldInterval > math.MaxInt32 {
		return c, fmt.Errorf("sched: yield interval %d out of range 1..%d", c.YieldInterval, math.MaxInt32)
	}
	if c.Budget == (Budget{}) {
		// A Go program's zero Config has no quotas; sched/driver fills
		// DefaultBudget (the scenario format's) before it gets here.
		c.Budget = Unlimited
	}
	return c, nil
}
