package sched

import (
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestDeadlockAfterLastTimer: a nursery with a timeout whose body waits on
// a channel nobody sends to is a deadlock once the timeout has fired (the
// timeout cancels the children, not the body). Real mode must report it as
// the seeded mode does, whether the timer fires while the workers still
// back off (a short timeout) or long after they went to sleep.
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
						_, _, err := t.ops().Recv(s.drv().NewChannel("never", 0))
						return err
					})
				})
			}()
			select {
			case res := <-done:
				if !s.drv().Deadlocked() || res.Kind != nursery.KindCancelled || res.Reason != nursery.Deadlock {
					t.Fatalf("timeout %d, workers %d: main = %s, deadlocked %v; want cancelled:Deadlock after a deadlock", ticks, workers, res, s.drv().Deadlocked())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("timeout %d, workers %d: the run hangs after its last timer fired", ticks, workers)
			}
		}
	}
}
