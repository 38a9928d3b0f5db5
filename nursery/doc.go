// Package nursery is the nursery state machine (docs/spec.md#nursery-states)
// and the error-mode rules (docs/spec.md#nursery-modes) as pure logic: the
// five states, the children in spawn order, max_concurrent admission, the
// first error, per-child results and cancellation reasons. It starts no goroutines, takes no locks, reads no
// clock and does not import the scheduler: the scheduler calls it, one call
// at a time under its own lock, and applies the Effects each call returns.
// docs/nursery.md has the transition table and every semantic choice.
//
// The usage loop, from the scheduler's side:
//
//	n := nursery.New(nursery.Config{Mode: nursery.CancelRemaining, MaxConcurrent: 2})
//	var fx nursery.Effects // reused for every call; each call resets it
//	c, admit, err := n.Spawn(&fx) // AdmitRun: schedule c; AdmitPending: wait for fx.Release
//	n.Start(c)                    // c ran its first step
//	n.Complete(c, nursery.Err("Failed"), &fx)
//	// apply fx: mark fx.Cancel with fx.Reason, forget fx.Dropped,
//	// schedule fx.Release in order, trace fx.Transitions, wake the owner on fx.Terminal
//	n.Close(&fx) // the owner awaits; fx.Terminal once every child is finished
//	_ = n.Outcome() // success, child_failed (n.FirstError) or cancelled
//
// Nothing in Spawn, Start or Complete allocates once the slices (the
// nursery's, reused through Reset, and the Effects') have grown.
package nursery
