package sched

import "testing"

// TestStoreStepped: what storeStepped writes is what State reads, for
// every state, so the plain store hits the atomic's word.
func TestStoreStepped(t *testing.T) {
	var task Task
	for st := stateReady; st <= stateCancelled; st++ {
		task.storeStepped(st)
		if got := (*taskOps)(&task).State(); got != st {
			t.Fatalf("storeStepped(%v), State = %v", st, got)
		}
	}
}
