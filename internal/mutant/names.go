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
	ScopeStopsAtOwner              // cancelling a nursery does not reach the nurseries its owner opened inside its body
	CleanupCutShort                // budget exhaustion inside a cleanup ends the cleanup and its error is lost
	OutsideCancelsStarted          // a cancel_remaining nursery cancelled from outside also cancels its started children

	// The deep mutants: each shows only under a particular interleaving
	// (docs/mutants.md).
	TimeoutIgnoredClosing    // a timeout that fires once the owner awaits (Closing) is ignored
	CancelSkipsAwaiting      // cancelling a task skips the nurseries it already awaits
	ErrorDroppedCancelling   // a child error that ends while its nursery is cancelling is not recorded
	LeanCountedTwice         // the last lean child, ending lock-free before the owner awaits, is counted twice
	SleepTimerSurvivesCancel // cancelling a sleeper leaves its timer armed: it wakes the task again
	StealTakesNewest         // a steal takes the newest item, which the owner pops again
	CancelLeavesWaiter       // cancelling a blocked receiver leaves it queued: a later send goes to it
	CloseLosesReceiver       // closing a channel drops a blocked receiver without waking it

	// The fast paths' deep mutants: each breaks a path real mode takes by
	// default, which the seeded driver reaches through its policy
	// decisions and its carried loop (docs/policies.md).
	NextSlotOverwrite   // a task woken into a next slot that holds one drops the one it held
	StealNextKeeps      // a thief takes the task in a next slot and leaves it there: it runs twice
	HandOffLosesYielder // a lone worker's yield that swaps with the held queue head drops the yielder
	RelaySkipsFinish    // a task that ends on a fiber which takes the loop over is never finished
	CreditReturnedTwice // an owner awaiting gives its unspent spawn credits back twice
	OwnerNextQueued     // an owner woken as its worker's next task is also queued: it runs twice
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
	ScopeStopsAtOwner:         "scope-stops-at-owner",
	CleanupCutShort:           "cleanup-cut-short",
	OutsideCancelsStarted:     "outside-cancels-started",

	TimeoutIgnoredClosing:    "timeout-ignored-closing",
	CancelSkipsAwaiting:      "cancel-skips-awaiting",
	ErrorDroppedCancelling:   "error-dropped-cancelling",
	LeanCountedTwice:         "lean-counted-twice",
	SleepTimerSurvivesCancel: "sleep-timer-survives-cancel",
	StealTakesNewest:         "steal-takes-newest",
	CancelLeavesWaiter:       "cancel-leaves-waiter",
	CloseLosesReceiver:       "close-loses-receiver",

	NextSlotOverwrite:   "next-slot-overwrite",
	StealNextKeeps:      "steal-next-keeps",
	HandOffLosesYielder: "hand-off-loses-yielder",
	RelaySkipsFinish:    "relay-skips-finish",
	CreditReturnedTwice: "credit-returned-twice",
	OwnerNextQueued:     "owner-next-queued",
}

func (n Name) String() string {
	if int(n) < len(names) {
		return names[n]
	}
	return "unknown"
}

// deep is the set of deep mutants, listed by name rather than by a range
// of constants so that a mutant added later is shallow unless it says so.
var deep = [...]Name{
	TimeoutIgnoredClosing, CancelSkipsAwaiting, ErrorDroppedCancelling, LeanCountedTwice,
	SleepTimerSurvivesCancel, StealTakesNewest, CancelLeavesWaiter, CloseLosesReceiver,
	NextSlotOverwrite, StealNextKeeps, HandOffLosesYielder, RelaySkipsFinish, CreditReturnedTwice, OwnerNextQueued,
}

// IsDeep reports whether n shows only under a particular interleaving.
func (n Name) IsDeep() bool {
	for _, d := range deep {
		if d == n {
			return true
		}
	}
	return false
}

// Deep lists the mutants that show only under a particular interleaving;
// the harness hunts each on its own scenario with every strategy.
func Deep() []Name { return append([]Name(nil), deep[:]...) }

// Shallow lists the mutants that are not deep: the bundled scenarios and
// the fuzzer catch them.
func Shallow() []Name {
	var out []Name
	for _, n := range All() {
		if !n.IsDeep() {
			out = append(out, n)
		}
	}
	return out
}

// All lists every mutant.
func All() []Name {
	out := make([]Name, 0, count-1)
	for n := Name(1); n < count; n++ {
		out = append(out, n)
	}
	return out
}

// Parse finds the mutant named s ("none" included).
func Parse(s string) (Name, bool) {
	for n, name := range names {
		if name == s {
			return Name(n), true
		}
	}
	return None, false
}

// EnvVar names the environment variable that switches a mutant on in a
// binary built with the mutants tag (FromEnv), so that a shell user or a
// CI recipe can show a mutant with the real cbcsim binary.
const EnvVar = "CBCSIM_MUTANT"

// List is every mutant's name, comma-separated, for messages.
func List() string {
	out := ""
	for i, n := range All() {
		if i > 0 {
			out += ", "
		}
		out += n.String()
	}
	return out
}
