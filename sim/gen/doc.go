// Package gen generates scenarios, writes them as TOML, fuzzes the
// scheduler with them and shrinks the failures it finds.
//
// The fuzzing loop, as `cbcsim fuzz` runs it:
//
//	rep, err := gen.Fuzz(gen.FuzzOptions{Seeds: 5000}, os.Stderr)
//	if err != nil {
//		return err // bad options, or a generator bug
//	}
//	if f := rep.First; f != nil {
//		fmt.Println(f.Failed, f.SizeBefore, f.SizeAfter) // broken invariants, ops
//		fmt.Println(f.Command) // cbcsim run fuzz-out/fuzz-SEED/scenario.toml --seed N --workers W
//	}
//
// and as a property test, where rapid draws and shrinks on its own:
//
//	rapid.Check(t, func(t *rapid.T) {
//		sc := gen.Scenario().Draw(t, "scenario")
//		... run sc, assert every invariant ...
//	})
//
// Determinism. One generator seed gives one scenario (Scenario().Example
// is seeded), and the run seed and worker count come from that seed too
// (RunSeed). Fuzz runs seeds on every core but reports the lowest failing
// one, so the same command finds the same failure on any machine. Time
// only stops a --duration run and paces the progress lines.
//
// Termination. A deadlock or a livelock is a failure only if the program
// could not have caused it. Safe states the fragment of the format whose
// programs end by construction (channels shared by one producer and one
// consumer spawned side by side, forever loops only where a timeout or a
// small budget stops them, a recharge for every child that waits for
// one); the generator draws only from it, a test holds it to that, and
// the shrinker never leaves it, so a shrunk deadlock is the scheduler's.
//
// Oracles. Some rules of the contract leave no trace the simulator's
// invariants can see without knowing the program: which capabilities a
// task holds, whether a timed-out child had started. Oracles checks them
// from the events and the scenario; Execute adds them to a run's checks.
//
// Design notes. Scenarios are generated as an AST and written with Format,
// not generated as text: the AST is what the shrinker edits, and a
// round-trip test (Parse(Format(x)) has x's ops) keeps the two in step.
// Rejected: shrinking only with rapid. rapid shrinks the random choices
// behind a scenario, which works inside a Go test but cannot start from a
// file, and a choice deleted early shifts every later one; the structural
// reducer (Shrink) edits the program itself, as pebble's reducer does, and
// keeps an edit only if the program still fails the same way.
package gen
