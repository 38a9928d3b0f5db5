package sim

import (
	"fmt"

	"github.com/cbcsim/cbcsim/trace"

	"github.com/cbcsim/cbcsim/sched/driver"
)

// Mode is how a run executes: on the seeded driver or on real worker
// goroutines, keeping every task and nursery or not. It is resolved once,
// from run's and check's --real and --lean (ModeOf) or from a trace's
// format version (replay), and every other part of sim asks it. The zero
// Mode is the default, seeded.
type Mode uint8

const (
	// ModeSeeded: the seeded driver on a Go program's code path
	// (driver.Seeded: lean nurseries, reuse, per-worker id blocks), its
	// tables built from the event stream (tables.go).
	ModeSeeded Mode = iota
	// ModeSeededKeep: the seeded driver keeping every task and nursery
	// (driver.SeededKeep): no lean nurseries, no reuse, ids in creation
	// order. Its traces are format version 1; replay runs a version-1
	// trace in it so that it reproduces byte for byte
	// (docs/trace-format.md). No flag of run selects it.
	ModeSeededKeep
	// ModeReal: real worker goroutines (--real), keeping every task and
	// nursery for the tables (driver.RealKeep).
	ModeReal
	// ModeRealLean: real worker goroutines as a Go program's scheduler
	// (--real --lean, driver.Real): tasks and nurseries are reused and
	// nurseries keep no per-child records. The task and nursery tables
	// stay empty, so only main's outcome, value, error and log are
	// checked.
	ModeRealLean
	// ModeSeededV2: the seeded driver as format version 2 ran it, before
	// the policies were decisions (driver.Config.Legacy2): every policy
	// takes the slower way and none is recorded. replay runs a version-2
	// trace in it so that it reproduces byte for byte. No flag selects
	// it.
	ModeSeededV2
	// ModeSeededPlain: ModeSeeded without the story events (chan, at=,
	// until=, docs/trace-format.md): a replay of a version-3 trace
	// recorded before they existed, so that it reproduces byte for
	// byte. No flag selects it.
	ModeSeededPlain
	// ModeSeededAtEvery: ModeSeeded with the place on every run line
	// (at=), as version 3 wrote it before a run line said the place only
	// when it changed (docs/trace-format.md): a replay of a version-3
	// trace without the header line "run_at: changed", so that it
	// reproduces byte for byte. No flag selects it.
	ModeSeededAtEvery
)

var modeNames = [...]string{ModeSeeded: "seeded", ModeSeededKeep: "seeded-keep", ModeReal: "real", ModeRealLean: "real-lean",
	ModeSeededV2: "seeded-v2", ModeSeededPlain: "seeded-plain", ModeSeededAtEvery: "seeded-at-every"}

// story reports whether m's runs write the story events: a version-3
// seeded run's, unless it replays a trace from before them.
func (m Mode) story() bool { return m == ModeSeeded || m == ModeSeededAtEvery }

// ModeOf is the mode the flags --real and --lean select. --lean without
// --real is the caller's to refuse; here it is seeded.
func ModeOf(real, lean bool) Mode {
	switch {
	case real && lean:
		return ModeRealLean
	case real:
		return ModeReal
	}
	return ModeSeeded
}

// legacy2 reports whether m replays a trace recorded before the policy
// decisions (format versions 1 and 2).
func (m Mode) legacy2() bool { return m == ModeSeededKeep || m == ModeSeededV2 }

// traceVersion is the format version of m's traces: 1 with every task
// kept, 2 before the policy decisions, else the current one.
func (m Mode) traceVersion() int {
	switch m {
	case ModeSeededKeep:
		return 1
	case ModeSeededV2:
		return 2
	}
	return trace.FormatVersion
}

// Real reports whether m runs on real worker goroutines.
func (m Mode) Real() bool { return m == ModeReal || m == ModeRealLean }

// Lean reports whether m is real mode without kept tasks (--lean).
func (m Mode) Lean() bool { return m == ModeRealLean }

// String is the mode's name: seeded, seeded-keep, real or real-lean.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// driver is the driver's mode for m.
func (m Mode) driver() driver.Mode {
	switch m {
	case ModeSeededKeep:
		return driver.SeededKeep
	case ModeReal:
		return driver.RealKeep
	case ModeRealLean:
		return driver.Real
	}
	return driver.Seeded
}
