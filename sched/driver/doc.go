// Package driver drives package sched's scheduler one step at a time, for
// whoever runs it deterministically instead of with sched's Run: the seeded
// simulator (package sim), the C ABI's deterministic mode, benchmarks and
// tests. It is to sched what etcd raft's RawNode is to its Node: the same
// core, driven by the caller (docs/api-split.md).
//
// The loop a driver runs:
//
//	d, _ := driver.New(driver.Config{Config: sched.Config{Workers: 2}, Mode: driver.Seeded, Sink: sink, Clock: clock})
//	d.Start("main", body)
//	for !d.Done() {
//		d.FireTimers(clock.Now())
//		w := d.Worker(pick())
//		w.Step()
//	}
//
// The scenario operations that only a simulated program performs (Compute,
// Call, Alloc, Syscall, SetValue, Log, Recharge, the int64 token Channel)
// and the inspection of tasks and nurseries (State, Stats, Result,
// Snapshot) are functions here, not methods on sched's types, so that a Go
// program's view of sched stays small. Each costs one interface call over
// the method it forwards to.
package driver
