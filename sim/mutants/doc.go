// Package mutants proves that the checkers catch real bugs. Its test,
// built only with the `mutants` tag (make mutants), switches on each
// deliberately broken variant of the scheduler in turn (package
// internal/mutant) and runs the bundled scenarios over seeds and worker
// counts, then the scenario fuzzer, until one of them catches it. Every
// mutant must be caught within the stated number of seeds; a survivor
// fails the test.
package mutants
