package sched

// liveFibers lists the tasks that took a fiber under a stepped mode, so that
// Abort can close every suspended fiber without the scheduler keeping every
// task: a run stopped by deadlock or a limit leaves tasks parked inside their
// fibers, and a fiber that is never closed keeps its goroutine parked for
// the life of the process (check, fuzz and simtest stop thousands of runs).
//
// Entries are appended when a task takes its fiber and never removed one by
// one: an entry is current while its task still holds a fiber and still has
// the id it had then (a task reused from a free list gets a new id, so its
// old entries are stale). The list is compacted when it has doubled since
// the last compaction, which keeps it within twice the number of fibers
// held plus a constant, at an amortized O(1) per fiber taken. Its order is
// the order tasks first ran, which depends only on the schedule.
//
// Stepped modes only: one goroutine drives every worker, so the list needs
// no lock, and the real modes pay nothing.
type liveFibers struct {
	list []liveFiber
	next int // compact when len(list) reaches next
}

type liveFiber struct {
	t  *Task
	id uint64
}

// current reports whether e's task still holds the fiber it was listed for.
func (e liveFiber) current() bool { return e.t.id == e.id && e.t.fib != nil }

// took records that t has just taken a fiber.
func (l *liveFibers) took(t *Task) {
	if len(l.list) >= l.next {
		kept := l.list[:0]
		for _, e := range l.list {
			if e.current() {
				kept = append(kept, e)
			}
		}
		clear(l.list[len(kept):])
		l.list = kept
		l.next = 2*len(kept) + 64
	}
	l.list = append(l.list, liveFiber{t, t.id})
}

// closeAll closes every fiber still held by a listed task, in listing
// order, and empties the list.
func (l *liveFibers) closeAll() {
	for _, e := range l.list {
		if e.current() {
			e.t.fib.Close()
			e.t.fib = nil
		}
	}
	clear(l.list)
	l.list, l.next = l.list[:0], 0
}
