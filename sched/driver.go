package sched

// Idle reports whether w's next step can only look for work and park: it
// has no current task and every queue it could take from (its deque, the
// global queue, every other deque, another worker's next slot) is empty.
// Such a step changes nothing a task can observe, so a schedule explorer
// need not branch on it. Seeded driver only: the answer is exact when no
// other worker moves.
//
// It is Vacant and not WorkQueued: a vacant worker's own queues are empty
// (its next slot too: on a run of one worker, no task is put in the next
// slot), so what it could take is what every worker could. A driver that
// asks about every worker at every step (sim.Useful) asks WorkQueued
// once, not each worker's Idle, which would cost a pass over the workers
// for each: O(workers²) a step, 108 s for a livelock of a million steps
// at 256 workers under pct (docs/reliability.md).
func (w *worker) Idle() bool {
	return w.Vacant() && !w.WorkQueued()
}

// Vacant reports whether w has nothing of its own to do: no current task,
// an empty deque and next slot (its stack, alone), no global-queue head
// held. O(1). Seeded driver only.
func (w *worker) Vacant() bool {
	return w.cur == nil && w.queued() == 0 && w.held == nil
}

// WorkQueued reports whether a task waits where any vacant worker could
// take it: in the global queue, in a deque, or in a next slot (looked at
// only while the stepped count of them, slotted, is not 0, as hasWork's
// callers do with othersNext). The same answer for every worker of the
// scheduler; one pass over the workers at most. Seeded driver only: exact
// when no other worker moves.
func (w *worker) WorkQueued() bool {
	s := w.s
	if s.global.len() > 0 {
		return true
	}
	for _, v := range s.workers {
		if v.dq.Len() > 0 || s.slotted != 0 && v.next.Load() != nil {
			return true
		}
	}
	return false
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
