package sched

import (
	"errors"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestChildErrorOutranksOwnerCancel: a child fails under fail_fast while
// its owner's body is blocked on something else; then the owner is
// cancelled from outside (a sibling of the owner fails). The owner's body
// observes the cancellation, yet Task.Nursery must return the child's
// error: an error outranks a cancellation across the owner boundary, and
// the child's error must not vanish. Kept and lean schedulers, 1 and 4
// workers.
func TestChildErrorOutranksOwnerCancel(t *testing.T) {
	errChild := errors.New("child failed")
	for _, keep := range []bool{true, false} {
		for _, workers := range []int{1, 4} {
			s, err := newWith(Config{Workers: workers, Seed: 3, Budget: Unlimited}, link.Options{Mode: realMode(keep)})
			if err != nil {
				t.Fatal(err)
			}
			var ownerErr error
			var inner atomic.Pointer[Nursery]
			failed := make(chan struct{}) // closed once the inner nursery holds the child's error
			res := runWithin(t, s, func(root *Task) error {
				return root.Nursery(NurseryOptions{Label: "outer"}, func(outer *Nursery) error {
					if err := outer.Go("owner", func(o *Task) error {
						ownerErr = o.Nursery(NurseryOptions{Label: "inner"}, func(n *Nursery) error {
							inner.Store(n)
							if err := n.Go("child", func(*Task) error { return errChild }); err != nil {
								return err
							}
							never := s.drv().NewChannel("never", 0)
							_, _, err := o.ops().Recv(never) // blocked until cancelled from outside
							return err
						})
						return ownerErr
					}); err != nil {
						return err
					}
					return outer.Go("sibling", func(c *Task) error {
						// Fail only once the inner nursery has recorded the
						// child's error, so that the owner is cancelled after
						// the child failed.
						for range 1_000_000 {
							if n := inner.Load(); n != nil {
								select {
								case <-failed:
									return errors.New("sibling failed")
								default:
								}
								if (*nurseryView)(n).Snapshot().HasError {
									close(failed)
									return errors.New("sibling failed")
								}
							}
							if err := c.Yield(); err != nil {
								return err
							}
						}
						return errors.New("the inner child never failed")
					})
				})
			})
			if res.Kind != nursery.KindErr {
				t.Fatalf("keep %v, workers %d: main = %s, want an error", keep, workers, res)
			}
			if !errors.Is(ownerErr, errChild) {
				t.Fatalf("keep %v, workers %d: the owner's Task.Nursery returned %v, want the child's error", keep, workers, ownerErr)
			}
		}
	}
}

// realMode is the real-mode Mode that keeps every task or none.
func realMode(keep bool) link.Mode {
	if keep {
		return link.RealKeep
	}
	return link.Real
}
