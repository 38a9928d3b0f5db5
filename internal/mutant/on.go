//go:build mutants

package mutant

import (
	"fmt"
	"sync/atomic"
)

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = true

var active atomic.Uint32

// On reports whether mutant n is active.
func On(n Name) bool { return Name(active.Load()) == n }

// Set activates mutant n (None switches every mutant off).
func Set(n Name) { active.Store(uint32(n)) }

// FromEnv switches on the mutant named value (the value of EnvVar); ""
// leaves the mutants as they are. It returns the mutant switched on, or
// an error naming the known ones.
func FromEnv(value string) (Name, error) {
	if value == "" {
		return None, nil
	}
	n, ok := Parse(value)
	if !ok {
		return None, fmt.Errorf("%s=%q: no such mutant (want one of: %s)", EnvVar, value, List())
	}
	Set(n)
	return n, nil
}
