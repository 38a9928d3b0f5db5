package sched

// Idle reports whether w's next step can only look for work and park: it
// has no current task and every queue it could take from (its deque, the
// global queue, every other deque, another worker's next slot) is empty.
// Such a step changes nothing a task can observe, so a schedule explorer
// need not branch on it. Seeded driver only: the answer is exact when no
// other worker moves.
func (w *worker) Idle() bool {
	return w.cur == nil && !w.WorkFindable()
}

// Vacant reports whether w has nothing of its own to do: no current task,
// an empty deque and next slot (its stack, alone), no global-queue head
// held. A worker that is not vacant is not Idle; a vacant one is Idle
// unless WorkFindable. O(1). Seeded driver only.
func (w *worker) Vacant() bool {
	return w.cur == nil && w.queued() == 0 && w.held == nil
}

// WorkFindable reports whether a step of w that looks for work would find
// a task: in its own queues, the global queue, any worker's deque or
// another worker's next slot. It takes one pass over the workers. A
// vacant worker's next slot is empty, so every Vacant worker gets the
// same answer: a driver that asks about every worker at every step
// (sim.Useful) asks one vacant worker, once, and not each worker's Idle,
// which would make the step's cost quadratic in the workers. Seeded
// driver only: exact when no other worker moves.
func (w *worker) WorkFindable() bool {
	return w.hasWork() || w.s.slotted != 0 && w.othersNext()
}

// QueueLen is the length of w's local deque. Seeded driver only (exact
// when no other worker moves): an explorer branches only on the steal
// victims that have something to steal.
func (w *worker) QueueLen() int { return w.queued() }

// Running reports whether w is in the middle of a task: its next step
// resumes that task. Switching away from such a worker is a preemption;
// switching away from one whose task just blocked, yielded or ended is
// not. Seeded driver only.
func (w *worker) Running() bool { return w.cur != nil }

// CurrentID is the id of the task w is in the middle of, 0 if none.
// Seeded driver only: PCT gives priorities to tasks, not to workers.
func (w *worker) CurrentID() uint64 {
	if w.cur == nil {
		return 0
	}
	return w.cur.id
}

// Current is the task w is in the middle of, nil if none. Seeded driver
// only: with the task's State, a driver tells a yield (the task left the
// worker and is ready) from a block or an end.
func (w *worker) Current() *Task { return w.cur }
