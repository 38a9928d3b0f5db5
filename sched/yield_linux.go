package sched

import "syscall"

// osYield gives up the calling thread's core to any other runnable thread
// of the machine (sched_yield), and returns at once when there is none.
// Raw: it does not block, so the Go scheduler need not hand the
// processor on (the runtime's own osyield is the same call).
func osYield() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
