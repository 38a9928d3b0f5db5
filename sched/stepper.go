package sched

import "fmt"

// endStep ends a seeded step at a checkpoint of t, which stays its
// worker's current task. Without a Stepper the task suspends and the
// driver takes the next step. With one, the driver decides the next step
// here, on t's fiber (link.Stepper); when that step is the same worker's,
// it resumes t, so t goes on at once: what worker.Step and worker.run do
// for a current task that has reached a checkpoint (its state, its
// counters, the run event, in that order) is done here instead, without
// the two fiber switches. Keep the two in step.
func (t *Task) endStep() {
	if t.w.mode&modeSites != 0 {
		t.site()
	}
	if st := t.s.stepper; st != nil {
		w := t.w
		// t stays in state running while the driver decides: between two
		// steps nothing reads the state of a task that is its worker's
		// current one (a driver tells a yield by the worker's current
		// task first), and the two atomic stores, ready and running again,
		// would be the only trace of the pause. If t suspends, the worker
		// makes it ready as ever.
		t.s.inStepper = true
		next := st.NextStep(w.id)
		t.s.inStepper = false
		if next {
			w.stats.Steps++
			t.steps++
			w.stats.Runs++
			w.em.emitRun(t.id)
			return
		}
	} else if t.s.aborting.Load() {
		// Abort is unwinding t (a deferred call made a checkpoint). It
		// clears the Stepper first, so that a step with one tests one
		// field here, not two: the run is over, the driver is not asked;
		// the suspension panics at once (fiber.Yield on a closed fiber)
		// and the unwinding goes on.
		t.suspend(reasonCheckpoint)
	}
	if c := t.w.c; c.loopFib == t.fib && c.took != t {
		t.onLoopFiber(c)
	}
	t.suspend(reasonCheckpoint)
}

// onLoopFiber panics: t is at a checkpoint on its worker's loop fiber,
// which it did not take. A task may run there only as the task that took
// it (inline.go): anything else is a bug of the carrier, and suspending
// would suspend the worker's loop.
func (t *Task) onLoopFiber(c *carrier) {
	panic(fmt.Sprintf("sched: task %d suspends on its worker's loop fiber, which task %d took", t.id, c.took.id))
}

// stepperPanicked keeps r, a panic recovered on t's fiber, for Step to
// raise on the driver's side when it was raised by the driver's own code
// (Task.endStep).
func (t *Task) stepperPanicked(r any) {
	s := t.s
	if !s.inStepper {
		return
	}
	s.inStepper = false
	if s.stepperPanic == nil {
		s.stepperPanic = r
	}
}
