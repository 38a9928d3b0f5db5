package sched

import (
	"context"
	"runtime"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestRunFromLockedThread: Run called from a goroutine locked to its OS
// thread (runtime.LockOSThread, as a GUI or cgo main thread is) runs the
// tasks on fibers and returns main's result. It was a fatal error of the
// runtime ("coro: OS thread locking must match locking at coroutine
// creation") when the fibers were closed from the caller.
func TestRunFromLockedThread(t *testing.T) {
	for _, workers := range []int{1, 2} {
		done := make(chan Result, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s, err := New(Config{Workers: workers, Budget: Unlimited})
			if err != nil {
				t.Error(err)
				done <- Result{}
				return
			}
			done <- s.Run("main", func(t *Task) error {
				return t.Nursery(NurseryOptions{Label: "n"}, func(n *Nursery) error {
					for range 8 {
						n.Go("child", func(c *Task) error { c.Yield(); return nil })
					}
					return nil
				})
			})
		}()
		if res := <-done; res.Kind != nursery.KindOK {
			t.Errorf("workers %d: main = %s, want ok", workers, res)
		}
	}
}

// TestRunContextFromLockedThread: RunContext, with a context that can
// cancel the root, from a goroutine locked to its OS thread.
func TestRunContextFromLockedThread(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s, err := New(Config{Workers: 2, Budget: Unlimited})
		if err != nil {
			done <- err
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done <- s.RunContext(ctx, "main", func(t *Task) error {
			var mu Mutex
			return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
				for range 8 {
					n.Go("child", func(c *Task) error {
						if err := mu.Lock(c); err != nil {
							return err
						}
						defer mu.Unlock(c)
						return c.Yield()
					})
				}
				return nil
			})
		})
	}()
	if err := <-done; err != nil {
		t.Fatalf("RunContext from a locked thread: %v", err)
	}
}
