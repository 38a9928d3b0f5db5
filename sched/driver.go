package sched

// Idle reports whether w's next step can only look for work and park: it
// has no current task and every queue it could take from (its deque, the
// global queue, every other deque) is empty. Such a step changes nothing a
// task can observe, so a schedule explorer need not branch on it.
// Seeded driver only: the answer is exact when no other worker moves.
func (w *Worker) Idle() bool { return w.cur == nil && !w.hasWork() }

// QueueLen is the length of w's local deque. Seeded driver only (exact
// when no other worker moves): an explorer branches only on the steal
// victims that have something to steal.
func (w *Worker) QueueLen() int { return w.dq.Len() }
