// Package mutants proves that the checkers catch real bugs. Its test,
// built only with the `mutants` tag (make mutants), switches on each
// deliberately broken variant of the scheduler in turn (package
// internal/mutant) and runs the bundled scenarios over seeds and worker
// counts, then the scenario fuzzer, until one of them catches it. Every
// mutant must be caught within the stated number of seeds; a survivor
// fails the test.
//
// The deep mutants (mutant.Deep) show only under a particular
// interleaving. TestDeepMutants hunts each on its own small scenario
// (testdata/deep/NAME.toml) with every strategy, random, pct and explore,
// one explore.RunHunt per cell, and prints the runs each needed and the
// shrunk schedule's size; which strategy caught which mutant within the
// short bounds is checked against testdata/deep.golden (-update rewrites
// it), and every deep mutant must be caught by pct or explore. The flag
// -long (make mutants) uses the long bounds and adds failure rates
// (docs/mutants.md).
package mutants
