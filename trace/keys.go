package trace

// The field keys an event or the header carries, one owner for each: the
// scheduler writes them (sched), the checkers, the oracles, diff and
// export read them. docs/trace-format.md lists which kind carries which.
const (
	KeyTask     = "task"    // the task an event is about: t<id>
	KeyNursery  = "nursery" // the nursery: n<id>
	KeyParent   = "parent"  // a spawn's spawning task
	KeyLabel    = "label"   // a nursery's or cleanup's label
	KeyMode     = "mode"    // a nursery's mode; present only on its open
	KeyCatch    = "catch"   // on a nursery's open, only when it catches its children's errors
	KeyFrom     = "from"    // a transition's state before
	KeyTo       = "to"      // a transition's state after; the clock's new time
	KeyReason   = "reason"  // a cancellation's reason
	KeyResult   = "result"  // a task's or the run's result
	KeyOutcome  = "outcome" // a nursery's or the run's outcome
	KeyError    = "error"   // a nursery's first error
	KeyRecords  = "records" // on a lean nursery's outcome: the children it kept a record of (docs/trace-format.md)
	KeySeq      = "seq"     // a cleanup's sequence number in its task
	KeyDo       = "do"      // a cleanup event's action: push or run
	KeyVictim   = "victim"  // a steal's victim worker; the header's strategy
	KeyMaxSteps = "max_steps"
	KeyLive     = "live"     // a deadlock's live task count
	KeyCrash    = "crash"    // a note of the scheduler's own panic
	KeyAdmit    = "admit"    // a spawn's admission: run, or queued behind max_concurrent
	KeyAs       = "as"       // a recharge's target, by its spawn's `as` name
	KeyComp     = "comp"     // the budget component an exhaustion ran out of
	KeyFound    = "found"    // a recharge note: what the target's lookup found
	KeyOn       = "on"       // what a block waits on
	KeyOps      = "ops"      // a recharge's operations
	KeyRecharge = "recharge" // a recharge note: the target's name
	KeyTarget   = "target"   // a recharge's target task
	KeyText     = "text"     // a log event's text
	KeyTimeout  = "timeout"  // a nursery timeout note: the nursery's label
	KeyWhy      = "why"      // why a task yielded: explicit or budget
	KeyOp       = "op"       // a chan event's operation: send, recv or close
	KeyCh       = "ch"       // a chan event's channel, by name
	KeyPeer     = "peer"     // a chan event's other task: the receiver of a send, the sender of a received value
	KeyVia      = "via"      // a chan event's value went through the channel's buffer (via=buffer)
	KeyAt       = "at"       // where a task is: its scenario op's path, or the Go file:line of its sched call
	KeyUntil    = "until"    // a sleep's block: the tick it wakes at
	KeySlot     = "slot"     // where a woken task went: next (its waker's next slot) or current (its worker's current task); absent: the deque
	KeyOverrun  = "overrun"  // a note: the budget component a cleanup overran, running on uncharged

	// Header keys.
	KeyName          = "name"
	KeySHA256        = "scenario-sha256"
	KeySeed          = "seed"
	KeyWorkers       = "workers"
	KeyProfile       = "profile"
	KeyYieldInterval = "yield_interval"
	KeyStrategy      = "strategy"  // the seeded driver's strategy; absent: random
	KeyPCTDepth      = "pct_depth" // with strategy pct: its depth
	KeyRunAt         = "run_at"    // "changed": a run line has an at= field only when its task's place changed; absent: on every run line with a place (docs/trace-format.md)
)
