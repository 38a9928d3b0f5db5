package sched

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestParkedStackFrames: a task that parks at its first run, on its
// worker's loop fiber (real mode), has under its function only the
// loop's body and the fiber's and iter.Pull's frames: the loop runs the
// task's body, with its deferred recover, in its own frame, and goes on
// through fiber.Fiber.Again rather than a loop of its own. Each frame is
// walked by the collector at every cycle, a million times over for a
// million parked tasks (docs/performance.md#parked-stacks).
func TestParkedStackFrames(t *testing.T) {
	s := leanSched(t, 1)
	ch := NewChan[int](s, "c", 0)
	var parked atomic.Int64
	var stack string
	res := s.Run("main", func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			if err := n.Go("parked", func(t *Task) error {
				parked.Add(1)
				_, _, err := ch.Recv(t)
				return err
			}); err != nil {
				return err
			}
			var err error
			if stack, err = parkedStack(root, &parked, "TestParkedStackFrames.func1.1.1("); err != nil {
				return err
			}
			return ch.Close(root)
		})
	})
	if res.String() != "ok" {
		t.Fatalf("main = %s", res)
	}
	if stack == "" {
		t.Fatal("no goroutine parked in the task's function")
	}
	// The functions below the task's own, one a frame (inlined calls are
	// listed with "(...)" and have no frame).
	var below []string
	seen := false
	for line := range strings.SplitSeq(stack, "\n") {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by") || !strings.HasSuffix(line, ")") || strings.HasSuffix(line, "(...)") {
			continue
		}
		name := line[:strings.LastIndex(line, "(")]
		if seen {
			below = append(below, name)
		}
		seen = seen || strings.HasSuffix(name, "TestParkedStackFrames.func1.1.1")
	}
	want := []string{
		"github.com/cbcsim/cbcsim/sched.(*carrier).RunFiber",
		"github.com/cbcsim/cbcsim/fiber.New.(*Fiber).loop.func1",
		"iter.Pull[...].func1",
	}
	if strings.Join(below, "\n") != strings.Join(want, "\n") {
		t.Fatalf("frames under the parked task's function:\n%s\nwant:\n%s\nthe stack:\n%s", strings.Join(below, "\n"), strings.Join(want, "\n"), stack)
	}
}

// TestInlinePanicsLoopGoesOn: tasks that panic while running inline on
// their worker's loop fiber end as panics, and the loop goes on after
// each (its deferred recover ends its frame, and fiber.Fiber.Again starts
// it again): the tasks after them run, inline or parked, and the run ends.
func TestInlinePanicsLoopGoesOn(t *testing.T) {
	s := leanSched(t, 1)
	ch := NewChan[int](s, "c", 0)
	var ran, panicked atomic.Int64
	res := s.Run("main", func(root *Task) error {
		return root.Nursery(NurseryOptions{Mode: nursery.CollectAll, Catch: true}, func(n *Nursery) error {
			for i := range 300 {
				if err := n.Go("kid", func(t *Task) error {
					ran.Add(1)
					switch i % 3 {
					case 0:
						panicked.Add(1)
						panic("kid panicked")
					case 1:
						_, _, err := ch.Recv(t) // parks until the close below
						return err
					}
					return nil
				}); err != nil {
					return err
				}
			}
			for ran.Load() < 300 {
				if err := root.Yield(); err != nil {
					return err
				}
			}
			return ch.Close(root)
		})
	})
	if res.String() != "ok" || ran.Load() != 300 || panicked.Load() != 100 {
		t.Fatalf("main = %s, %d ran, %d panicked; want ok, 300, 100", res, ran.Load(), panicked.Load())
	}
}

// parkedStack yields root until parked says a task started, then returns
// the stack of the goroutine whose trace names marker (the parked task's
// function): a task parks at its first blocking operation, and root's
// yields let the lone worker run it that far.
func parkedStack(root *Task, parked *atomic.Int64, marker string) (string, error) {
	for parked.Load() == 0 {
		if err := root.Yield(); err != nil {
			return "", err
		}
	}
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, marker) {
			return g, nil
		}
	}
	return "", nil
}
