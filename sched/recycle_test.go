package sched

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// recycleTree is a random tree of nested nurseries whose children are
// spawned with Go, so that their tasks and nurseries are reused (free.go).
type recycleTree struct {
	mode     nursery.Mode
	kids     []*recycleTree
	leaf     int // for leaves: 0 ok, 1 error, 2 panic, 3 loop until cancelled
	failures int // failing leaves in this subtree
}

func genRecycleTree(r *rand.Rand, depth int) *recycleTree {
	n := &recycleTree{mode: nursery.Mode(r.IntN(3))}
	if depth == 0 || r.IntN(4) == 0 {
		n.leaf = r.IntN(4)
		if r.IntN(3) != 0 {
			n.leaf = 0 // mostly successful leaves
		}
		if n.leaf == 1 || n.leaf == 2 {
			n.failures = 1
		}
		return n
	}
	for range 1 + r.IntN(3) {
		k := genRecycleTree(r, depth-1)
		n.kids = append(n.kids, k)
		n.failures += k.failures
	}
	return n
}

// recycleCounts are what every run of a tree must balance.
type recycleCounts struct {
	started, ended, wrongName atomic.Int64
}

func (tr *recycleTree) body(c *recycleCounts, name string) Func {
	return func(t *Task) error {
		c.started.Add(1)
		defer c.ended.Add(1)
		if t.Name() != name {
			c.wrongName.Add(1)
		}
		if tr.kids == nil {
			switch tr.leaf {
			case 1:
				return errors.New("leaf failed")
			case 2:
				panic("leaf panicked")
			case 3:
				// Loops until a failure elsewhere cancels it; a tree
				// without failures ends it with a bounded count.
				for range 200 {
					if err := t.Checkpoint(); err != nil {
						return err
					}
					if err := t.Yield(); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return t.Nursery(NurseryOptions{Mode: tr.mode}, func(n *Nursery) error {
			for i, k := range tr.kids {
				kn := fmt.Sprintf("%s.%d", name, i)
				if err := n.Go(kn, k.body(c, kn)); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// TestRecycledTasksAndNurseries: under -race, on 1 to 4 workers, random
// trees with failures, panics and cancellation run one after the other in
// one Run, reusing tasks and nurseries. Every body that starts ends, each
// task sees its own name, the root fails exactly when some leaf fails, and
// nothing stays live.
func TestRecycledTasksAndNurseries(t *testing.T) {
	trees := 200
	if testing.Short() {
		trees = 50
	}
	for _, workers := range []int{1, 2, 4} {
		r := rand.New(rand.NewPCG(uint64(workers), 7))
		s := leanSched(t, workers)
		var c recycleCounts
		res := s.Run("main", func(root *Task) error {
			for i := range trees {
				tr := genRecycleTree(r, 4)
				err := root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
					return n.Go("tree", tr.body(&c, "tree"))
				})
				if err != nil {
					return fmt.Errorf("tree %d: %v", i, err)
				}
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		if c.started.Load() != c.ended.Load() || c.started.Load() == 0 {
			t.Fatalf("workers %d: %d bodies started, %d ended", workers, c.started.Load(), c.ended.Load())
		}
		if c.wrongName.Load() != 0 {
			t.Fatalf("workers %d: %d tasks saw another task's name", workers, c.wrongName.Load())
		}
		if s.drv().Live() != 0 {
			t.Fatalf("workers %d: %d tasks still live", workers, s.drv().Live())
		}
	}
}

// TestRecycledTreeOutcome: a tree's owner fails exactly when one of its
// leaves fails, whatever the interleaving, with recycled tasks.
func TestRecycledTreeOutcome(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := leanSched(t, 2)
	var c recycleCounts
	var bad atomic.Int64
	res := s.Run("main", func(root *Task) error {
		for range 100 {
			tr := genRecycleTree(r, 3)
			err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				return n.Go("tree", tr.body(&c, "tree"))
			})
			var ce *ChildError
			failed := errors.As(err, &ce)
			if err != nil && !failed {
				return err
			}
			if failed != (tr.failures > 0) {
				bad.Add(1)
			}
		}
		return nil
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("main = %s", res)
	}
	if bad.Load() != 0 {
		t.Fatalf("%d trees failed without a failing leaf or the reverse", bad.Load())
	}
}

// TestChanDeliversEachValueOnce: under -race, eight senders on four
// workers and a receiver that takes 300 of their 400 values, then cancels
// the senders, some of them blocked: every value received was sent once
// and is received once, and only a buffer's worth of successful sends is
// left unreceived.
func TestChanDeliversEachValueOnce(t *testing.T) {
	for _, capacity := range []int{0, 3} {
		s := leanSched(t, 4)
		ch := NewChan[string](s, "c", capacity)
		var mu sync.Mutex
		sent, got := map[string]int{}, map[string]int{}
		res := s.Run("main", func(root *Task) error {
			return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				for i := range 8 {
					err := n.Go("sender", func(t *Task) error {
						for j := range 50 {
							v := fmt.Sprintf("%d.%d", i, j)
							if err := ch.Send(t, v); err != nil {
								return err
							}
							mu.Lock()
							sent[v]++
							mu.Unlock()
						}
						return nil
					})
					if err != nil {
						return err
					}
				}
				for range 300 {
					v, ok, err := ch.Recv(root)
					if err != nil || !ok {
						return fmt.Errorf("recv: %v %v", ok, err)
					}
					mu.Lock()
					got[v]++
					mu.Unlock()
				}
				// 100 sends are left: cancel the senders, some blocked.
				n.Cancel(root)
				return nil
			})
		})
		if res.Kind != nursery.KindOK && res.Kind != nursery.KindCancelled {
			t.Fatalf("cap %d: main = %s", capacity, res)
		}
		for v, k := range got {
			if k != 1 || sent[v] != 1 {
				t.Fatalf("cap %d: %q received %d times, sent %d", capacity, v, k, sent[v])
			}
		}
		// A rendezvous send succeeds only when received; a buffered one may
		// sit in the buffer.
		if left := len(sent) - len(got); left < 0 || left > capacity {
			t.Fatalf("cap %d: %d values received, %d sends succeeded", capacity, len(got), len(sent))
		}
		if len(got) != 300 {
			t.Fatalf("cap %d: %d values received, want 300", capacity, len(got))
		}
	}
}

// TestRecycledNurseryFresh: a nursery reused from the free list after a
// cancelled one is not cancelled, and one reused after a nursery whose
// spawn pool ran out has its own pool again (newNursery stores the
// cancellation words and the pool only when they differ): on one worker,
// round after round, a cancelled nursery then a fresh one whose child
// runs, and a nursery of spawn_count 1 that spends it and refuses a
// second spawn, then another that spawns one again.
func TestRecycledNurseryFresh(t *testing.T) {
	s := leanSched(t, 1)
	pool := Unlimited
	pool.SpawnCount = 1
	var ran atomic.Int64
	const rounds = 50
	res := runWithin(t, s, func(root *Task) error {
		for i := range rounds {
			if err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				n.Cancel(root)
				return nil
			}); err != nil {
				return fmt.Errorf("round %d: the cancelled nursery returned %v", i, err)
			}
			if err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				if r := n.cancelling.Load() | n.fast.cancelled.Load(); r != 0 {
					return fmt.Errorf("a reused nursery opens cancelled (%d)", r)
				}
				if n.waiter != nil || n.timer != nil || n.firstErr != nil || n.errs != nil || n.keepMem {
					return fmt.Errorf("a reused nursery opens with a waiter, timer, error or keepMem left: %p %p %v %v %v", n.waiter, n.timer, n.firstErr, n.errs, n.keepMem)
				}
				return n.Go("kid", func(*Task) error { ran.Add(1); return nil })
			}); err != nil {
				return fmt.Errorf("round %d: %v", i, err)
			}
			var second error
			if err := root.Nursery(NurseryOptions{Budget: &pool}, func(n *Nursery) error {
				if err := n.Go("one", func(*Task) error { ran.Add(1); return nil }); err != nil {
					return err
				}
				second = n.Go("two", func(*Task) error { return nil })
				return nil
			}); err != nil {
				return fmt.Errorf("round %d: the pooled nursery returned %v", i, err)
			}
			if !errors.Is(second, ErrSpawnBudgetExhausted) {
				return fmt.Errorf("round %d: a second spawn from a pool of one returned %v", i, second)
			}
		}
		return nil
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("run: %v", res)
	}
	if ran.Load() != 2*rounds {
		t.Errorf("%d children ran, want %d", ran.Load(), 2*rounds)
	}
}

// TestSpawnFromChildren: children on several workers spawning into their
// parent's nursery with Spawn at once mark it not to be reused
// (keepMem) under its lock: under -race an unguarded mark is a reported
// race. Every grandchild runs, and each handle's Parent stays the
// nursery.
func TestSpawnFromChildren(t *testing.T) {
	s, err := New(Config{Workers: 2, Budget: Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	res := s.Run("main", func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range 2 {
				if err := n.Go("spawner", func(c *Task) error {
					for range 200 {
						h, err := n.Spawn(c, "grandchild", func(*Task) error { ran.Add(1); return nil }, SpawnOptions{})
						if err != nil {
							return err
						}
						if h.ops().Parent() != n {
							return fmt.Errorf("a handle's Parent is %v, not the nursery", h.ops().Parent())
						}
					}
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if res.Kind != nursery.KindOK || ran.Load() != 400 {
		t.Fatalf("run %s, %d of 400 grandchildren ran", res, ran.Load())
	}
}
