// Package sched is the CBC-MN scheduler: tasks on stackful fibers, N
// workers with Chase-Lev work-stealing deques and seeded Xoshiro256**
// victim selection, cooperative yields driven by budget units,
// capability-gated spawning, and structured concurrency through nurseries.
//
// Run drives it with one goroutine per worker (real mode):
//
//	s, _ := sched.New(sched.Config{Workers: 4, Budget: sched.Unlimited})
//	res := s.Run("main", func(t *sched.Task) error {
//		return t.Nursery(sched.NurseryOptions{Label: "n"}, func(n *sched.Nursery) error {
//			for i := 0; i < 10; i++ {
//				if err := n.Go("child", work); err != nil {
//					return err
//				}
//			}
//			return nil
//		}) // returns when every child has finished; a child error comes back as *ChildError
//	})
//
// The seeded simulator (package sim) drives the same code one atomic step at
// a time instead (Config.StepCheckpoints, Config.Sink, Config.Clock,
// Worker.Step), which is why the core starts no goroutine, reads no clock and
// takes every random choice from a generator seeded by the caller.
//
// The choices, stated once:
//   - Panics: a panic in a task body never crosses the task: it becomes the
//     task's result (panic:MSG, with the stack in Task.PanicStack), and its
//     cleanups still run.
//   - Errors: a body returns an error to fail; the first failing child of a
//     nursery wins (ChildError), an error outranks a cancellation.
//   - Cancellation is cooperative: a cancelled task is marked, the mark
//     reaches every nursery it owns at once, and the task observes it at its
//     next checkpoint (Checkpoint, Yield, Compute, spawning, channel
//     operations, Sleep...), which returns a *CancelError; a blocked task is
//     interrupted. Cleanups (Defer, Using) run in LIFO order and never observe
//     cancellation.
//   - Errors match with errors.Is and errors.As: a *ChildError unwraps to the
//     child's own error (or its *PanicError), a *CancelError matches
//     ErrCancelled, and a *SchedError matches a *SchedError with its Code.
//   - Budgets and capabilities: every operation charges the task's Budget
//     (seed 001 section 3.3); SpawnBudgetExhausted, ResourceExhausted and
//     CapabilityDenied come back as *SchedError. sched.Unlimited is the
//     budget of a program that wants structured concurrency without quotas.
//
// Lifetimes. A *Nursery is valid only inside the body it was given to:
// once Task.Nursery returns, the scheduler may reuse it for another
// nursery. Nursery.Go hands out no task, so a task spawned with it is
// reused once done; Nursery.Spawn returns a *Task that stays valid (and is
// therefore never reused, nor is its nursery). Without Config.KeepTasks a
// nursery keeps no per-child results (NurserySnapshot.Results is empty):
// its memory follows the children unfinished at once, not all it ever had.
//
// Costs, measured on the project's 2-core machine (docs/performance.md): a
// spawn with Go allocates nothing in the steady state and starts no
// goroutine (tasks, nurseries and fibers are reused per worker); a yield
// is a fiber switch and allocates nothing. docs/semantics.md lists every
// semantic choice.
package sched
