package sched

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestParkedStackFrames: a task that parks at its first run, on its
// worker's loop fiber (real mode), has under its function only the
// loop's body and the fiber's and iter.Pull's frames: the loop runs the
// task's body, with its deferred recover, in its own frame, and goes on
// through fiber.Fiber.Again rather than a loop of its own. Each frame is
// walked by the collector at every cycle, a million times over for a
// million parked tasks (docs/performance.md, "Fifth round").
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
			for parked.Load() == 0 {
				if err := root.Yield(); err != nil {
					return err
				}
			}
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			for g := range strings.SplitSeq(string(buf), "\n\n") {
				if strings.Contains(g, "TestParkedStackFrames.func1.1.1(") {
					stack = g
				}
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
		"github.com/cbcsim/cbcsim/sched.(*workerLoop).RunFiber",
		"github.com/cbcsim/cbcsim/fiber.New.(*Fiber).loop.func1",
		"iter.Pull[...].func1",
	}
	if strings.Join(below, "\n") != strings.Join(want, "\n") {
		t.Fatalf("frames under the parked task's function:\n%s\nwant:\n%s\nthe stack:\n%s", strings.Join(below, "\n"), strings.Join(want, "\n"), stack)
	}
}
