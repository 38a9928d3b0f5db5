// Package deque is the scheduler's per-worker run queue: a lock-free
// Chase-Lev work-stealing deque (spec section 7.1).
//
// Each worker owns one Deque. The owner pushes the tasks it spawns and pops
// them back in LIFO order, which keeps its working set hot in cache; idle
// workers steal from the other end in FIFO order, taking the oldest and
// usually largest pieces of work. Push and Pop take no lock and use a CAS
// only in the race for the last item, and none of the three operations
// allocates except when the ring grows.
//
//	q := deque.New[Task](256)   // owner creates it and shares it with thieves
//
//	// Owner, in its worker loop:
//	q.Push(t)
//	if t := q.Pop(); t != nil {
//		run(t)
//	}
//
//	// Any other worker, when its own deque is empty:
//	if t := victim.Steal(); t != nil {
//		run(t)
//	}
//
// Steal returns nil both when the deque is empty and when it lost a race
// for the top item; the scheduler's bounded steal loop (spec 7.2, 7.4)
// simply moves on to the next victim. The ring doubles when full, up to a
// stated bound of 1<<30 items, past which Push panics. The package has no
// goroutines, clocks or random sources of its own: who calls what, and when,
// is entirely up to the scheduler.
package deque
