// Package sched is structured concurrency for Go programs, on a
// capability-budgeted cooperative M:N scheduler (CBC-MN): tasks on
// stackful fibers, N workers with work-stealing deques, budgets and
// capabilities per task, and nurseries that own their children.
//
// A nursery is an errgroup.Group that cannot leak: Task.Nursery runs its
// body, then waits for every child, on every path out (error, panic,
// cancellation, runtime.Goexit):
//
//	s, _ := sched.New(sched.Config{Budget: sched.Unlimited}) // one worker per CPU
//	res := s.Run("main", func(t *sched.Task) error {
//		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
//			for _, url := range urls {
//				if err := n.Go("fetch", func(t *sched.Task) error {
//					return t.Blocking(func(ctx context.Context) error { return get(ctx, url) })
//				}); err != nil {
//					return err
//				}
//			}
//			return nil
//		}) // every child has finished here; the first error comes back as a *ChildError
//	})
//
// What a Go programmer reaches for, and where it is:
//   - errgroup's Go, Wait, SetLimit, TryGo: Nursery.Go, the end of
//     Task.Nursery, NurseryOptions.MaxConcurrent, Nursery.TryGo.
//   - A child spawning into the nursery it was handed (Trio): Nursery.GoFrom.
//   - WithContext: every task has its own Task.Context, cancelled with it.
//   - Blocking calls (I/O, Go channels, locks): Task.Blocking parks the task
//     and runs the call on a goroutine of its own, so it holds no worker.
//   - Every error, not just the first (conc's ErrorPool): a collect_all
//     nursery's *ChildError joins them (errors.Join, the first first).
//   - Timeouts: NurseryOptions.Timeout cancels the nursery's scope, the
//     body included (Trio's move_on_after); with TimeoutFails it is
//     ErrNurseryTimeout (fail_after).
//   - Typed channels between tasks: Chan; Go's select: Select, with
//     Chan.SendCase, Chan.RecvCase, DefaultCase, and Chan.TrySend,
//     Chan.TryRecv for the one-case non-blocking forms.
//   - sync.Mutex, RWMutex, Cond, WaitGroup: Mutex, RWMutex, Cond,
//     WaitGroup, whose waits park the task, not the worker, and whose
//     unlocks never fail (a deferred Unlock is always right).
//   - time.Sleep, time.After, time.Timer, time.Ticker: Task.SleepFor,
//     After, NewTimer, NewTicker, on the scheduler's clock (virtual under
//     the seeded driver); `case <-ctx.Done()`: DoneCase.
//   - Run with an error value and a context: Scheduler.RunContext.
//
// The choices, stated once (docs/semantics.md has the reasons and the
// differences from errgroup, conc, Trio and the JDK):
//   - Cancellation is cooperative: a cancelled task is marked, the mark
//     reaches every nursery it owns at once, and the task observes it at its
//     next checkpoint (Checkpoint, Yield, spawning, channel operations,
//     Sleep, Blocking...), which returns a *CancelError; a blocked task is
//     interrupted and its context cancelled. Cancelling a nursery (Cancel,
//     its timeout) cancels its whole scope, as Trio's cancel scopes do:
//     its children, the nurseries its owner opened in its body, and the
//     owner's own code in the body until it leaves the nursery, which then
//     returns nil. A failing child cancels its siblings and the nurseries
//     opened in the body, not the body. A nursery cancelled from outside
//     keeps its own mode: under cancel_remaining its started children
//     finish. Cleanups (Defer, Using) run in LIFO order, never observe
//     cancellation and are never cut short by their budget: an overrun
//     runs on uncharged and the task ends ErrResourceExhausted.
//   - Errors: the first failing child of a fail_fast nursery wins
//     (ChildError, which unwraps to the child's own error value); an error
//     outranks a cancellation, across the owner too.
//   - Errors match with errors.Is: ErrCancelled for every cancellation, and
//     the sentinels (ErrCapabilityDenied, ErrSpawnBudgetExhausted,
//     ErrResourceExhausted, ErrNurseryNotActive, ErrNurseryTimeout,
//     ErrChannelClosed) for the failures the scheduler imposes.
//   - Panics never cross a task: a panic is the task's result (panic:MSG,
//     its *PanicError unwraps to the value when it is an error), and so is
//     a runtime.Goexit (ErrGoexit), which t.FailNow in a test calls.
//   - Budgets and capabilities: every operation charges the task's Budget;
//     sched.Unlimited is the budget of a program that wants structured
//     concurrency without quotas.
//
// Lifetimes. A *Nursery is valid only while its body or one of its
// children runs: once Task.Nursery returns, the scheduler may reuse it for
// another nursery. Nursery.Go hands out no task, so a task spawned with it
// is reused once done; Nursery.Spawn returns a *Task that stays valid (and
// is therefore never reused, nor is its nursery). A nursery keeps no
// per-child results: its memory follows the children unfinished at once,
// not all it ever had.
//
// Costs, measured on the project's 2-core machine
// (docs/performance.md#current-figures): a
// spawn with Go allocates nothing in the steady state and starts no
// goroutine (tasks, nurseries and fibers are reused per worker); a yield
// is a fiber switch and allocates nothing; a Blocking call starts one
// goroutine.
//
// The seeded simulator (package sim) drives the same code one atomic step
// at a time instead of Run, through package sched/driver, which is why the
// core reads no clock and takes every random choice from a generator
// seeded by the caller; under it Blocking runs its function inline, within
// the step. The scenario operations (Compute, Send and Recv of int64
// tokens...) and the inspection of tasks and nurseries live there too.
package sched
