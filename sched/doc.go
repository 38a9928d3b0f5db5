// Package sched is the CBC-MN scheduler: tasks on stackful fibers, N
// workers with Chase-Lev work-stealing deques and seeded Xoshiro256**
// victim selection, cooperative yields driven by budget units,
// capability-gated spawning, and structured concurrency through nurseries.
//
// Run drives it with one goroutine per worker (real mode):
//
//	s, _ := sched.New(sched.Config{Workers: 4})
//	res := s.Run("main", func(t *sched.Task) error {
//		return t.Nursery(sched.NurseryOptions{Label: "n"}, func(n *sched.Nursery) error {
//			for i := 0; i < 10; i++ {
//				if _, err := n.Spawn(t, "child", work, sched.SpawnOptions{}); err != nil {
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
//   - Budgets and capabilities: every operation charges the task's Budget
//     (seed 001 section 3.3); SpawnBudgetExhausted, ResourceExhausted and
//     CapabilityDenied come back as *SchedError.
//
// Costs, measured on the project's 2-core machine (docs/performance.md): a
// spawned task is one allocation of 256 bytes and no goroutine (fibers
// are pooled per worker); a yield is a fiber switch and allocates nothing.
// docs/semantics.md lists every semantic choice.
package sched
