package sched

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// TestPanicEndsFromTheDeferredCall: a task that panics ends from the
// deferred call that recovered the panic (taskBody.RunFiber), so its
// cleanups run there: they may suspend the task, panic or Goexit, and the
// task's result is still its own panic, every cleanup runs once, and the
// workers go on.
func TestPanicEndsFromTheDeferredCall(t *testing.T) {
	for _, workers := range []int{1, 2} {
		s, err := newWith(Config{Workers: workers, Budget: Unlimited}, link.Options{Mode: realMode(false)})
		if err != nil {
			t.Fatal(err)
		}
		const tasks = 60
		var cleanups atomic.Int64
		var results []string
		res := runWithin(t, s, func(root *Task) error {
			err := root.Nursery(NurseryOptions{Label: "panickers", Mode: nursery.CollectAll}, func(n *Nursery) error {
				for i := range tasks {
					if err := n.Go("p", func(t *Task) error {
						t.Defer("count", func(t *Task) error {
							cleanups.Add(1)
							return t.Yield() // suspends inside the deferred call
						})
						switch i % 3 {
						case 1:
							t.Defer("goexit", func(*Task) error { runtime.Goexit(); return nil })
						case 2:
							t.Defer("panic", func(*Task) error { panic("again") })
						}
						if err := t.Yield(); err != nil {
							return err
						}
						panic("boom")
					}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				results = append(results, err.Error())
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		if got := cleanups.Load(); got != tasks {
			t.Fatalf("workers %d: %d cleanups ran, want %d", workers, got, tasks)
		}
		if len(results) != 1 || !strings.Contains(results[0], "panic") {
			t.Fatalf("workers %d: the nursery reported %q, want the children's panics", workers, results)
		}
		if s.drv().Live() != 0 {
			t.Fatalf("workers %d: %d tasks still live", workers, s.drv().Live())
		}
	}
}
