//go:build mutants

package mutant

import "sync/atomic"

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = true

var active atomic.Uint32

// On reports whether mutant n is active.
func On(n Name) bool { return Name(active.Load()) == n }

// Set activates mutant n (None switches every mutant off).
func Set(n Name) { active.Store(uint32(n)) }
