package sched

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestWokenSlot: a lone worker without a sink keeps the task it wakes into
// its empty deque out of the deque, as its bottom (worker.woken), and what
// it pushes after it (a spawn, a second wake) runs first, as through the
// deque: the same order of turns with the slot (one worker, solo) as
// without it (solo off: no slot, no hosting), and the slot held the woken
// receiver.
func TestWokenSlot(t *testing.T) {
	play := func(solo bool) (order []string, slotted int) {
		note := func(format string, args ...any) { order = append(order, fmt.Sprintf(format, args...)) }
		res, _ := hostRun(t, 1, 0, nil, solo, func(root *Task) error {
			a := NewChan[int](root.Scheduler(), "a", 0)
			b := NewChan[int](root.Scheduler(), "b", 0)
			return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				for _, name := range []string{"ra", "rb"} {
					c := a
					if name == "rb" {
						c = b
					}
					if err := n.Go(name, func(t *Task) error {
						for r := range 3 {
							v, _, err := c.Recv(t)
							if err != nil {
								return err
							}
							note("%s got %d in round %d", name, v, r)
						}
						return nil
					}); err != nil {
						return err
					}
				}
				if err := root.Yield(); err != nil { // both receivers park
					return err
				}
				for r := range 3 {
					if err := a.Send(root, r); err != nil { // ra woken: the slot
						return err
					}
					if root.w.woken != nil {
						slotted++
					}
					switch r {
					case 1: // a spawn behind the woken ra
						if err := n.Go("spawned", func(*Task) error {
							note("spawned runs")
							return nil
						}); err != nil {
							return err
						}
					case 2: // a second wake behind it
						if err := b.Send(root, 10); err != nil {
							return err
						}
					}
					if err := root.Yield(); err != nil {
						return err
					}
					note("root after round %d", r)
				}
				for r := 1; r < 3; r++ {
					if err := b.Send(root, 10+r); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("solo=%v: run: %v", solo, res)
		}
		return order, slotted
	}
	order, slotted := play(true)
	plain, plainSlotted := play(false)
	if !slices.Equal(order, plain) {
		t.Errorf("turns with the slot:\n%q\nwithout:\n%q", order, plain)
	}
	if slotted != 3 || plainSlotted != 0 {
		t.Errorf("the slot held the woken receiver %d times with it, %d without: want 3, 0", slotted, plainSlotted)
	}
}
