package sched

import "sync"

// Recycling. Unless the Mode keeps every task, a task spawned with
// Nursery.Go (which hands out no *Task) and a nursery without a timeout are
// reused once they are done, so that a program spawning millions of tasks
// allocates a few hundred. A task is done once its nursery has recorded
// its result; a nursery once Task.Nursery returns. Each worker keeps its
// own free lists; a list that overflows hands half of itself to a shared
// stack, and an empty one takes a batch back, as the Go runtime does with
// its free goroutines, so that a worker that only frees (it runs children
// another worker spawned) feeds the one that only allocates.

// A worker keeps as many objects as a spawner's run of spawns between two
// forced yields (1,024 ops, a spawn each) can take: with 128, a worker
// spawning 1,024 children took most of their memory from the shared
// stack, in batches the other worker had just freed, so that the spawner
// wrote four cache lines in the other core's cache at every spawn; with
// 1,024 a worker mostly reuses the tasks it ran itself
// (docs/performance.md#free-lists). The shared stack keeps as many
// objects as before.
const (
	freeLocal  = 1024 // objects a worker keeps
	freeBatch  = freeLocal / 2
	freeShared = 8 // batches the shared stack keeps; more go to the collector
)

// freeList is one worker's stack of free objects. Only that worker uses it.
type freeList[T any] struct {
	items  []*T
	shared *sharedFree[T]
}

// get returns a free object, or nil when there is none. Small enough to
// be inlined at its two callers (a spawn's and a nursery's), the shared
// stack is getShared's.
func (l *freeList[T]) get() *T {
	k := len(l.items) - 1
	if k < 0 {
		return l.getShared()
	}
	x := l.items[k]
	l.items[k] = nil
	l.items = l.items[:k]
	return x
}

// getShared is get when the list is empty: it takes a batch from the
// shared stack, if there is one.
func (l *freeList[T]) getShared() *T {
	if !l.shared.take(&l.items) {
		return nil
	}
	return l.get()
}

// put adds x, which the caller has reset, to the list.
func (l *freeList[T]) put(x *T) {
	if len(l.items) == freeLocal {
		l.shared.give(&l.items)
	}
	l.items = append(l.items, x)
}

// sharedFree is the scheduler-wide stack of batches.
type sharedFree[T any] struct {
	mu      sync.Mutex
	batches [][]*T
}

// give moves the top freeBatch objects of *items into the stack (or drops
// them when it is full).
//
// The batch is allocated only when the stack has room for it, under the
// lock, so that a full stack costs no 4 KiB allocation to be dropped. A
// batch taken back (take) is appended into the taker's list and not kept,
// so each batch the stack holds is one allocation, as before.
func (s *sharedFree[T]) give(items *[]*T) {
	l := *items
	top := l[len(l)-freeBatch:]
	s.mu.Lock()
	if len(s.batches) < freeShared {
		batch := make([]*T, freeBatch)
		copy(batch, top)
		s.batches = append(s.batches, batch)
	}
	s.mu.Unlock()
	clear(top)
	*items = l[:len(l)-freeBatch]
}

// take appends one batch to *items, reporting false when there is none.
func (s *sharedFree[T]) take(items *[]*T) bool {
	s.mu.Lock()
	if len(s.batches) == 0 {
		s.mu.Unlock()
		return false
	}
	batch := s.batches[len(s.batches)-1]
	s.batches[len(s.batches)-1] = nil
	s.batches = s.batches[:len(s.batches)-1]
	s.mu.Unlock()
	*items = append(*items, batch...)
	return true
}
