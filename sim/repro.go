package sim

import (
	"fmt"
	"strings"
)

// Command is the one `cbcsim run` command line that reruns the run c of
// the scenario file at path, built from the resolved configuration so
// that every value a flag can set is pinned: seed, worker count, victim
// strategy, step bound and the driver's strategy with pct's depth (seeded
// mode), or the worker count and mode
// (real mode, which has no seed to pin: the OS schedules its workers).
// Every repro command printed by run, check and fuzz comes from here.
func (c Config) Command(path string) string {
	parts := []string{"cbcsim", "run", ShellQuote(path)}
	if c.Mode.Real() {
		parts = append(parts, fmt.Sprintf("--workers %d", c.Workers), "--real")
		if c.Mode.Lean() {
			parts = append(parts, "--lean")
		}
		if c.RealTimeout > 0 && c.RealTimeout != DefaultRealTimeout {
			parts = append(parts, "--real-timeout "+c.RealTimeout.String())
		}
		return strings.Join(parts, " ")
	}
	parts = append(parts, fmt.Sprintf("--seed %d --workers %d --victim %s --max-steps %d",
		c.Seed, c.Workers, ShellQuote(c.Victim.String()), c.MaxSteps))
	if c.Strategy == StrategyPCT {
		parts = append(parts, fmt.Sprintf("--strategy %s --pct-depth %d", StrategyPCT, c.PCTDepth))
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell when it holds anything but the
// characters that are safe bare.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
