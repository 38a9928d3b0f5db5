//go:build !linux

package sched

// osYield is sched_yield where the project measured it (yield_linux.go);
// elsewhere an idle worker yields only to the process's goroutines.
func osYield() {}
