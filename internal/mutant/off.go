//go:build !mutants

package mutant

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = false

// On reports whether mutant n is active. Without the mutants tag it is
// always false and calls to it compile away.
func On(Name) bool { return false }

// Set activates mutant n. Without the mutants tag it panics: a mutant must
// never run in a production binary.
func Set(Name) { panic("mutant: Set: binary built without the mutants tag") }
