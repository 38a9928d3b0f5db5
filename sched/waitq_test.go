package sched

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestWaitqMatchesModel: push, pop and remove behave like a FIFO slice
// with deletion, across compactions, and the slice stays within twice the
// waiters plus 64.
func TestWaitqMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q waitq
		var model []*Task
		pool := make([]*Task, 300)
		for i := range pool {
			pool[i] = &Task{id: uint64(i)}
		}
		inQueue := func(x *Task) bool { return slices.Contains(model, x) }
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				x := rapid.SampledFrom(pool).Draw(t, "task")
				if inQueue(x) {
					t.Skip("a task waits in one place at a time")
				}
				q.push(x)
				model = append(model, x)
			},
			"pop": func(t *rapid.T) {
				got := q.pop()
				var want *Task
				if len(model) > 0 {
					want, model = model[0], model[1:]
				}
				if got != want {
					t.Fatalf("pop = %v, want %v", got, want)
				}
			},
			"remove": func(t *rapid.T) {
				x := rapid.SampledFrom(pool).Draw(t, "task")
				i := slices.Index(model, x)
				if got := q.remove(x); got != (i >= 0) {
					t.Fatalf("remove = %v, want %v", got, i >= 0)
				}
				if i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			},
			"": func(t *rapid.T) {
				if q.len() != len(model) {
					t.Fatalf("len = %d, want %d", q.len(), len(model))
				}
				// The bound that keeps a slot within the int32 qpos.
				if len(q.items) > 2*q.n+64 {
					t.Fatalf("slice of %d slots for %d waiters, over 2n+64", len(q.items), q.n)
				}
			},
		})
	})
}

// TestCloseManyWaiters: closing a channel with many blocked receivers, and
// cancelling many blocked senders, stays linear (it was quadratic).
func TestCloseManyWaiters(t *testing.T) {
	const waiters = 20000
	b := DefaultBudget
	b.SpawnCount = 1 << 20
	s, err := New(Config{Workers: 2, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run("main", func(t *Task) error {
		c := t.s.drv().NewChannel("c", 0)
		err := t.Nursery(NurseryOptions{Mode: nursery.CollectAll}, func(n *Nursery) error {
			for i := 0; i < waiters; i++ {
				if _, err := n.Spawn(t, "r", func(t *Task) error {
					_, _, err := t.ops().Recv(c)
					return err
				}, SpawnOptions{}); err != nil {
					return err
				}
			}
			blocked := func() int {
				c.mu.Lock()
				defer c.mu.Unlock()
				return c.recvq.len()
			}
			for blocked() < waiters/2 {
				if err := t.Yield(); err != nil {
					return err
				}
			}
			return t.ops().Close(c)
		})
		return err
	})
	if res.String() != "ok" {
		t.Fatalf("main = %s", res)
	}
}

// TestWaitqHolesCompacted: waiters that block and are cancelled behind one
// that stays (removals, no pops) leave holes that are compacted away, so
// the slice stays within twice the waiters plus 64 rather than growing
// with every block.
func TestWaitqHolesCompacted(t *testing.T) {
	var q waitq
	stays, comes := &Task{}, &Task{}
	q.push(stays)
	for i := range 10_000 {
		q.push(comes)
		if !q.remove(comes) {
			t.Fatalf("cycle %d: remove of the second waiter failed", i)
		}
		if len(q.items) > 2*q.n+64 {
			t.Fatalf("cycle %d: slice of %d slots for %d waiters", i, len(q.items), q.n)
		}
	}
	if got := q.pop(); got != stays {
		t.Fatalf("pop = %v, want the waiter that stayed", got)
	}
}
