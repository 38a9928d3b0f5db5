package sched

import (
	"fmt"
	"math"
	"runtime"
)

// Victim is the steal-victim selection strategy of seed 001 section 7.3.
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

// Profile is a Janus profile (seed 001 section 10).
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

// WorkersMax is the largest worker count (seed 001 section 13.2).
const WorkersMax = 256

// Config configures a Scheduler. The zero value is usable: one worker per
// CPU, seed 0, random victims, the service profile and its yield interval,
// and DefaultBudget for every task.
type Config struct {
	Workers       int     // 1..WorkersMax; 0 means runtime.NumCPU()
	Seed          uint64  // seeds every worker's victim generator
	Victim        Victim  // steal-victim strategy
	Profile       Profile // capability profile
	YieldInterval int     // ops between forced yields; 0 means DefaultYieldInterval(Profile)
	Budget        Budget  // each root task's budget; the zero value means DefaultBudget
	RootCaps      Caps    // under the sovereign profile, the root task's capabilities (none by default)

	// StepCheckpoints makes every checkpoint end the worker's step, so a
	// driver that calls Worker.Step interleaves tasks at checkpoint
	// granularity. The seeded simulator sets it; real mode leaves it off
	// and a task runs until it yields, blocks or ends.
	StepCheckpoints bool

	// Sink receives every scheduling event. Nil means no events (real mode).
	Sink Sink

	// KeepTasks keeps every task and nursery for Tasks and Nurseries after
	// the run (always on with a Sink). A long-running program leaves it off.
	KeepTasks bool

	// MaxSteps bounds a real-mode run: past that many worker steps in all
	// (steps that ran a task or took one; an idle worker's looks for work
	// do not count), the root task is cancelled (ResourceExhausted), every
	// task unwinds at its next checkpoint, and LimitHit reports it. 0 means
	// no bound. The seeded driver keeps its own bound and ignores this one.
	MaxSteps int64

	// Clock gives the time in ticks for sleeps and timeouts. The seeded
	// driver injects its virtual clock; nil means the real-mode wall clock
	// (RealTickNanos per tick) started by Run.
	Clock Clock

	// Victims, when set, chooses every steal victim instead of the
	// strategy (schedule-driven replay of a recorded trace).
	Victims VictimSource

	// StealHalf makes a successful steal take half of the victim's deque
	// (at most StealBatchMax tasks) instead of one task: the thief runs
	// the first and queues the rest on its own deque. Off by default:
	// docs/performance.md has the measurement that decided it.
	StealHalf bool
}

// StealBatchMax bounds the tasks one StealHalf steal moves.
const StealBatchMax = 64

// VictimSource chooses steal victims. NextVictim returns the index of the
// worker that worker w attempts to steal from next; it must not be w.
type VictimSource interface {
	NextVictim(w int) int
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
		c.Budget = DefaultBudget
	}
	return c, nil
}
