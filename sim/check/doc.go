// Package check is `cbcsim check`: every scenario under many seeds and
// worker counts, on the sweep runner (package sim/sweep), folded into a
// deterministic report with a table per scenario, each kind of failure
// with the command that reproduces it (sim.Config.Command), repro
// directories, and a sample of runs executed twice to catch
// nondeterminism (docs/check.md).
//
//	rep, err := check.Scenarios(scs, paths, check.Options{Seeds: 100, Workers: []int{1, 2, 4}}, os.Stderr)
//	if err != nil { ... } // bad input, before any run
//	rep.Write(os.Stdout)
//	if rep.Failed() { ... }
//
// The report does not depend on the number of jobs, and with Options.Shard
// a process runs one shard of the runs (docs/check.md#sharding).
package check
