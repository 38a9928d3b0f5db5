package sched

import "unsafe"

// storeStepped stores st as t's state with a plain store instead of an
// atomic one. Only under a stepped mode: there one goroutine runs at a
// time (the driver's, or one task fiber's it switched to) and every
// coroutine switch orders what came before it, for the race detector
// too, so the state is never written and read at once. An atomic Store
// is an exchange on amd64, with the stall of a locked instruction, and
// worker.drive does two of them on every seeded step that switches
// (docs/performance.md#the-seeded-step).
func (t *Task) storeStepped(st taskState) {
	// atomic.Uint32 is its uint32 and a zero-size noCopy marker; the
	// test TestStoreStepped checks that State reads what this writes.
	*(*uint32)(unsafe.Pointer(&t.state)) = uint32(st)
}
