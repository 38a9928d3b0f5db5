package sched

import (
	"testing"
	"time"
)

// TestDeadlockAfterLastTimer: a nursery with a timeout whose body waits,
// in a cleanup (which no cancellation interrupts), on a channel nobody
// sends to is a deadlock once the timeout has fired: the timeout cancels
// the body's scope, but a cleanup is never cut short. Real mode must
// report it as the seeded mode does, whether the timer fires while the
// workers still back off (a short timeout) or long after they went to
// sleep. (TestScopeTimeoutEndsBodyWait: outside a cleanup the timeout
// ends the wait.)
func TestDeadlockAfterLastTimer(t *testing.T) {
	for _, ticks := range []int64{1000, 50_000} {
		for _, workers := range []int{1, 2} {
			s, err := New(Config{Workers: workers, Budget: Unlimited})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan Result, 1)
			go func() {
				done <- s.Run("main", func(t *Task) error {
					return t.Nursery(NurseryOptions{Label: "n", Timeout: ticks}, func(n *Nursery) error {
						return t.Using("r", func() error {
							t.Defer("wait", func(t *Task) error {
								_, _, err := t.ops().Recv(s.drv().NewChannel("never", 0))
								return err
							})
							return nil
						})
					})
				})
			}()
			select {
			case res := <-done:
				// The cleanup's wait is not interruptible, so the deadlock's
				// cancellation of main cannot unwind it: the run is stuck
				// again and ends err:deadlock (docs/semantics.md#liveness).
				if !s.drv().Deadlocked() || res.String() != "err:deadlock" {
					t.Fatalf("timeout %d, workers %d: main = %s, deadlocked %v; want err:deadlock after a deadlock", ticks, workers, res, s.drv().Deadlocked())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("timeout %d, workers %d: the run hangs after its last timer fired", ticks, workers)
			}
		}
	}
}
