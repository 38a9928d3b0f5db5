// Package waits explains why a run stopped without finishing: for a
// deadlock, a livelock or a stopped run it names every unfinished task,
// what it waits on (a send or a receive on a channel, a lock, a nursery's
// end, a sleep, a recharge, a blocking call, or nothing: it is runnable), who could
// wake it, and the wait-for cycle among blocked tasks when there is one.
//
// The analysis reads only the event stream of the run (the trace's events,
// docs/trace-format.md), so the same code explains a run as it ends, a trace
// file read back, and a simtest body's run:
//
//	b := waits.New()
//	for i := range events {
//		b.Add(&events[i])
//	}
//	a := b.Analysis()
//	a.Write(os.Stdout)           // one paragraph per unfinished task, then the cycle
//	fmt.Println(a.Summary())     // one line, for a failure summary
//
// What each event tells it: spawn names a task and puts it in a nursery,
// nursery opens and ends a nursery, result finishes a task, block says what
// a task waits on (its `on` field; `until` for a sleep; `at` for the
// scenario op or Go source line of the call), run, wake and recharge end a
// wait, exhausted starts a wait for a recharge, and chan (a completed
// channel operation, with its peer) says who holds what a channel carries,
// and lock (a sched.Mutex or RWMutex taken or released) who holds a lock.
// A trace recorded before chan events existed still gets every wait; only
// its channel wakers are then unknown.
//
// Who could wake a task:
//
//   - a receive on X: the unfinished tasks that hold a value received from
//     X and not sent back (a lock's holder, for a capacity-1 channel whose
//     token is taken by a receive), else those that sent on X before;
//   - a send on X: the unfinished tasks that sent on X more often than
//     they received (a lock's holder, for a lock taken by a send), else
//     those that received from X before;
//   - a Lock or RLock of a sched.Mutex or RWMutex (named mutex#N,
//     rwmutex#N): the unfinished tasks that took it more often than they
//     released it;
//   - a nursery's end: its unfinished children;
//   - a recharge: the owner of the nursery the task runs in (a supervisor
//     recharges its children), or a pool;
//   - a sleep: the clock; a blocking call: its return, outside the
//     scheduler;
//   - a sched.WaitGroup's Wait, a sched.Cond's Wait: nobody is named, and
//     the wait says why (NobodyWaitGroup, NobodyCond). The trace records
//     neither Add nor Done, Signal nor Broadcast, and neither object has a
//     name: Add takes no task (the spawner usually counts tasks that will
//     call Done), so no count per task exists to read.
//
// With Builder.Users (a scenario's run: which task bodies send on or
// receive from each channel), a channel wait that no past operation
// explains is put down to the unfinished tasks whose code may do the
// operation it needs ("whose code sends on c"), or to nobody.
//
// The wait-for graph has an edge from each blocked task to each blocked
// task that could wake it; Analysis.Cycle is the first cycle a depth-first
// search finds, visiting tasks in id order. Building the analysis costs
// O(1) per event (amortised map updates) and O(n log n) at the end, n the
// tasks, nurseries and channel uses, for the sorting.
package waits
