package sched

import "github.com/cbcsim/cbcsim/sched/internal/link"

// workerMode is what a worker's run allows it, as bits. It is resolved
// once (resolveMode: at New, for every worker alike) before any step and
// never changes afterwards. Every shortcut a worker takes asks one of the
// predicates below and nothing else; each says what it means and who may
// rely on it. The one other input to a shortcut, timed, changes while the
// run goes on and is a field of its own (worker.timed).
type workerMode uint8

const (
	// modeAlone: the run has one worker.
	modeAlone workerMode = 1 << iota
	// modeStepped: a driver steps the workers one at a time
	// (link.Mode.Stepped): every policy is the driver's decision.
	modeStepped
	// modeKeeps: the scheduler keeps every task and nursery
	// (link.Mode.Keeps).
	modeKeeps
	// modeLegacy2: a replay of a version-2 trace (link.Options.Legacy2):
	// every policy answers no, unrecorded.
	modeLegacy2
	// modeStory: the run writes its story's events (link.Options.Story,
	// sched/story.go).
	modeStory
	// modeSites: a story run that tells its sink each suspension's Go
	// source line (link.Options.Sites, Task.site).
	modeSites
)

// resolveMode is the mode of cfg's workers.
func resolveMode(cfg *config) workerMode {
	var m workerMode
	if cfg.Workers == 1 {
		m |= modeAlone
	}
	if cfg.Mode.Stepped() {
		m |= modeStepped
	}
	if cfg.Mode.Keeps() {
		m |= modeKeeps
	}
	if cfg.Legacy2 {
		m |= modeLegacy2
	}
	if cfg.Story && cfg.Sink != nil && cfg.Mode.Stepped() {
		m |= modeStory
		if cfg.Sites {
			m |= modeSites
		}
	}
	return m
}

// alone: w is its run's only worker, under either driver. No one steals
// from it, so its ready tasks live on a plain stack (w.stack) instead of
// the Chase-Lev deque, it keeps the global queue's head out of the queue
// (yieldHeld), and its tasks may park under the lock their channel
// operation or await already holds (waitOnChannel, Nursery.await): the
// only code that resumes a woken task is w's own step, which runs after
// the task has suspended. Real mode's hosting (inline.go) relies on it
// too, with a loop fiber.
func (w *worker) alone() bool { return w.mode&modeAlone != 0 }

// stepped: a driver steps the workers one at a time, and a policy is its
// decision (policy). Stepped code may rely on no other goroutine running
// while a step does.
func (w *worker) stepped() bool { return w.mode&modeStepped != 0 }

// unshared reports whether w's steps are the only code that touches
// nurseries and their owners' links (Task.owned), and channels (a
// canceller's cancelWait is the only other party: channel.shared), so
// that the locks which guard them against other goroutines may be left
// out. It holds for a worker that is alone, in a run that either is
// stepped (nothing runs beside a step) or keeps no records (a kept
// nursery's Snapshot may be taken by another goroutine while a real run
// goes on), until one of its tasks arms a nursery's timeout (w.timed).
// The one other party that touches a nursery in such a run is a
// timeout's firing on the clock's goroutine (Nursery.timeout, which
// cancels down the tree); the clock's sleeps and Blocking's goroutines
// only queue a task for w to take (wakeFrom), and everything else runs in
// w's steps, one at a time. timed is sticky: once a timeout was armed,
// every section takes its lock again, and what w did before arming it
// happened before the timer's firing (the timers' lock orders them). A
// fan-out tree's node thus takes six locks fewer on one worker
// (docs/performance.md#the-lone-worker).
func (w *worker) unshared() bool {
	return w.mode&modeAlone != 0 && w.mode&(modeStepped|modeKeeps) != modeKeeps && !w.timed
}

// nextSlots: w may put the task its running task wakes into its next
// slot (worker.next), and take another worker's (stealNext): several
// workers, and not a version-2 replay. A lone worker has its stack.
func (w *worker) nextSlots() bool { return w.mode&(modeAlone|modeLegacy2) == 0 }

// policy is the answer to decision d, whose real-mode answer is real,
// about task: real in real mode; in a stepped run, no when real is no (the
// shortcut does not apply), else the driver's decision (decide). It is
// small enough to be inlined where real mode takes the shortcut.
func (w *worker) policy(d link.Decision, real bool, task *Task) bool {
	if !real || w.mode&modeStepped == 0 {
		return real
	}
	return w.decide(d, task)
}

// decide is a stepped run's answer to d about task: the driver's
// DecisionSource when it has one (an explorer, a recorded schedule), else
// an even draw of w's seeded generator; no for a version-2 replay. The
// answer is recorded as a decide event, which a replay that follows the
// recorded schedule reads back.
func (w *worker) decide(d link.Decision, task *Task) bool {
	if w.mode&modeLegacy2 != 0 {
		return false
	}
	var yes bool
	if src := w.s.cfg.Decisions; src != nil {
		yes = src.Decide(w.id, d)
	} else {
		yes = w.rng.Uint64()&1 == 0
	}
	if w.em.on() {
		w.em.emitDecide(d, yes, task.id)
	}
	return yes
}
