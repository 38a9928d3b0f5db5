// Package sim runs scenarios on the real scheduler core under a seeded
// driver and checks them.
//
// The driver owns one Xoshiro256** generator, seeded from the run's seed,
// and at every step picks which unparked worker takes its next atomic action
// (sched.Worker.Step). Every decision and effect goes to the trace; the same
// scenario, seed and configuration give the same trace byte for byte. After
// the run, invariant checkers read the recorded events and the scenario's
// [expect] table is checked.
//
//	sc, err := scenario.Load("scenarios/fail_fast.toml")
//	cfg, err := sim.Resolve(sc, sim.Options{Seed: 7, HasSeed: true})
//	run, err := sim.Execute(sc, cfg, sim.Options{Trace: f})
//	if !run.Passed() { ... run.Checks ... }
//
// Package scenario (sim/scenario) loads and validates scenario files.
package sim
