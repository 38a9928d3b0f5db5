// Package mutant holds the deliberately broken variants of the scheduler
// used to prove that the checkers catch real bugs (mutation testing).
//
// Each mutant breaks one guarantee and is switched on by name at run time,
// but only in binaries built with the `mutants` build tag: without the tag
// On is a constant false that the compiler removes, so the production
// scheduler carries no trace of them.
//
//	go test -tags mutants ./sim/mutants   // make mutants
//
// The deep mutants (Deep) break a guarantee only under a particular
// interleaving: the harness hunts them with each strategy of the seeded
// driver (docs/mutants.md).
//
// In code:
//
//	if mutant.On(mutant.CleanupFIFO) { ... broken behaviour ... }
package mutant
