package sched

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/fiber"
)

// TestParkedTaskAllocs: a task created and parked in a channel receive
// (real mode, one worker, the way BenchmarkParkedTasks parks a million)
// allocates its Task and its fiber (iter.Pull's six objects, the Fiber and
// its sequence closure) and, amortized, a little of the queues that index
// it: the wait record is part of the Task, where a record of its own was
// a tenth object a parked task (docs/performance.md#parked-task-memory). The
// fibers are all new ones: the process's shared idle fibers are off, as
// a parked task keeps its fiber and a million of them outnumber any pool.
// A first batch leaves the runtime the exited goroutines that the second,
// measured one reuses for its coroutines, as a benchmark's warm-up does.
func TestParkedTaskAllocs(t *testing.T) {
	const maxAllocs = 9.25 // 9 objects, and the queues' growth amortized
	defer fiber.SetSharing(fiber.SetSharing(false))
	parkBatch(t)
	perTask := parkBatch(t)
	t.Logf("%.3f allocations a parked task", perTask)
	if perTask > maxAllocs {
		t.Fatalf("%.3f allocations a parked task, want at most %.2f", perTask, maxAllocs)
	}
}

// parkBatch parks 4,096 tasks on 64 channels and reports the allocations
// from the first spawn until the last has parked, a task.
func parkBatch(t *testing.T) float64 {
	t.Helper()
	const tasks, chans = 4096, 64
	s := leanSched(t, 1)
	cs := make([]*Chan[int], chans)
	for i := range cs {
		cs[i] = NewChan[int](s, "park", 0)
	}
	var parked atomic.Int64
	kids := make([]Func, chans)
	for i, c := range cs {
		kids[i] = func(t *Task) error {
			parked.Add(1)
			if _, ok, err := c.Recv(t); ok || err != nil {
				return fmt.Errorf("recv: ok %v, err %v", ok, err)
			}
			return nil
		}
	}
	var perTask float64
	res := s.Run("main", func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range tasks {
				if err := n.Go("parked", kids[i%chans]); err != nil {
					return err
				}
			}
			for i := 0; parked.Load() < tasks; i++ {
				if i == 3 {
					return fmt.Errorf("%d of %d parked after three yields", parked.Load(), tasks)
				}
				if err := root.Yield(); err != nil {
					return err
				}
			}
			runtime.ReadMemStats(&after)
			perTask = float64(after.Mallocs-before.Mallocs) / tasks
			for _, c := range cs {
				if err := c.Close(root); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if res.String() != "ok" {
		t.Fatalf("main = %s", res)
	}
	return perTask
}
