// Package fiber provides stackful coroutines for the work-stealing
// scheduler: a task runs on a Fiber, can give control back mid-way with
// Yield, and can be resumed later by whichever worker goroutine owns it then.
// Fibers are built on the runtime's coroutines (iter.Pull), so a switch is a
// direct goroutine hand-off, not a trip through the Go scheduler.
//
// The usage loop, from the owner's side:
//
//	f := fiber.New(fiber.BodyFunc(func(f *fiber.Fiber) {
//		f.Yield(waitingForChild) // Resume returns (waitingForChild, Suspended)
//	}))
//	for {
//		reason, status := f.Resume() // from any goroutine, one at a time
//		if status != fiber.Suspended {
//			break // Done, or Panicked: see f.Panic()
//		}
//		_ = reason // park the fiber until reason is resolved
//	}
//	f.Close()
//
// A scheduler runs tasks on pooled fibers so that starting a task creates no
// goroutine:
//
//	pool := fiber.NewPool(0) // 0: keep at most DefaultPoolMax idle fibers
//	f := pool.Get(task)      // task implements fiber.Body
//	for _, st := f.Resume(); st == fiber.Suspended; _, st = f.Resume() {
//	}
//	pool.Put(f) // f must be Done or Panicked
//
// # Panics
//
// A panic in a body, including one raised by the body's own deferred
// functions, never escapes Resume and never crashes the process: Resume
// returns (0, Panicked) and Fiber.Panic gives the value and the coroutine's
// stack. The scheduler decides what a failed task means; a panic that tore
// down a worker goroutine would take every task queued on that worker with
// it. Misuse of the fiber itself (Resume of a finished or closed fiber, Put
// of an unfinished one) is a scheduler bug and does panic, in the caller.
//
// runtime.Goexit in a body (t.FailNow, for instance) cannot be stopped.
// The fiber keeps it from reaching the goroutine that called Resume (which
// iter.Pull would end): the coroutine parks in the middle of the Goexit,
// Resume returns Panicked with a PanicError whose Goexited is true, and
// Put or Close lets the coroutine exit on a goroutine of its own. The
// fiber is never pooled again.
//
// A body that calls Fiber.Again before it returns runs again at once, on
// the same coroutine, without Resume returning: a
// scheduler's loop that recovers its tasks' panics in its own frame can so
// go on after one has ended that frame.
//
// Close of a fiber suspended in Yield unwinds the body: Yield panics with a
// private value, the body's defers run, and the fiber recovers the value. A
// body that recovers every panic must re-panic values it does not know.
//
// # Cost
//
// On the development machine (AMD EPYC, 2 vCPU, Go 1.26) a Resume+Yield
// round trip costs about 73 ns against about 70 ns for bare iter.Pull
// next+yield (BenchmarkFiberSwitch, BenchmarkRawPullSwitch): the fiber adds a status
// check, a store of the reason and its load. Neither allocates. A pooled task
// start (Get, run a trivial body to Done, Put) costs about 90 ns and no
// allocation, against about 240 ns and one allocation for go func +
// sync.WaitGroup (BenchmarkFiberSpawnPooled, BenchmarkGoroutineSpawnWaitGroup).
// Each fiber, idle or not, holds a parked goroutine and its stack, and
// about 256 bytes of heap in 8 objects: the 48-byte Fiber, the 16-byte
// sequence closure handed to iter.Pull, and iter.Pull's coroutine and closures (its stop is
// not kept: Close ends the coroutine through next).
package fiber
