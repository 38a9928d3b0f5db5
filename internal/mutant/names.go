package mutant

// Name identifies one mutant.
type Name uint8

// The mutants. Each comment says which guarantee it breaks.
const (
	None                      Name = iota
	OrphanEscapes                  // a nursery's owner goes on without awaiting its children
	CleanupFIFO                    // cleanups run first-in first-out
	LaterErrorOverwrites           // a later child error replaces the first
	CancelOutranksError            // a cancelled nursery reports cancelled even when a child failed
	TransitiveSkipsLevel           // cancelling a task does not reach the nurseries it owns
	QueuedCancelRuns               // a task cancelled while queued runs anyway
	ResultsCompletionOrder         // per-child results come back in completion order
	TerminalChangesState           // a nursery ends while its owner is still in the body, then moves again
	BudgetNotCharged               // operations cost no budget
	StealReturnsPopped             // the owner's Pop of the last item leaves it stealable
	LostWakeup                     // a send hands its value to a blocked receiver but never wakes it
	SkipCapabilityCheck            // spawning does not check the spawn capability
	TimeoutCancelsStarted          // a cancel_remaining timeout also cancels started children
	ChildErrorDroppedOnCancel      // an owner cancelled while its nursery's child failed returns the cancellation, losing the error
	count
)

var names = [...]string{
	None:                      "none",
	OrphanEscapes:             "orphan-escapes",
	CleanupFIFO:               "cleanup-fifo",
	LaterErrorOverwrites:      "later-error-overwrites",
	CancelOutranksError:       "cancel-outranks-error",
	TransitiveSkipsLevel:      "transitive-skips-level",
	QueuedCancelRuns:          "queued-cancel-runs",
	ResultsCompletionOrder:    "results-completion-order",
	TerminalChangesState:      "terminal-changes-state",
	BudgetNotCharged:          "budget-not-charged",
	StealReturnsPopped:        "steal-returns-popped",
	LostWakeup:                "lost-wakeup",
	SkipCapabilityCheck:       "skip-capability-check",
	TimeoutCancelsStarted:     "timeout-cancels-started",
	ChildErrorDroppedOnCancel: "child-error-dropped-on-cancel",
}

func (n Name) String() string {
	if int(n) < len(names) {
		return names[n]
	}
	return "unknown"
}

// All lists every mutant.
func All() []Name {
	out := make([]Name, 0, count-1)
	for n := Name(1); n < count; n++ {
		out = append(out, n)
	}
	return out
}
