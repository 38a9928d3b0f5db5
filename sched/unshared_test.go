package sched

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// unsharedTree builds a binary fan-out tree of the given depth under t,
// each inner node a nursery of two children; it returns the first error.
func unsharedTree(t *Task, depth int) error {
	if depth == 0 {
		return t.Checkpoint()
	}
	return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
		for range 2 {
			if err := n.Go("node", func(c *Task) error { return unsharedTree(c, depth-1) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestUnsharedTimeout: a lone worker without a sink leaves out the
// nurseries' locks (worker.unshared) until one of its tasks arms a
// nursery's timeout; the timeout then fires, on the clock's goroutine or
// on the worker, while the worker builds fan-out trees inside the timed
// nursery, and its cancellation walks down those trees as the worker
// opens, links, awaits and ends their nurseries. Under -race a worker
// that went on without the locks after arming the timeout is a reported
// race; in every build the cancellation must reach the trees (the loop
// ends) and nothing may stay live.
func TestUnsharedTimeout(t *testing.T) {
	for round := range 8 {
		s := leanSched(t, 1)
		var before, after bool
		trees := 0
		res := s.Run("main", func(root *Task) error {
			for range 10 {
				if err := unsharedTree(root, 5); err != nil {
					return err
				}
			}
			before = root.w.unshared()
			err := root.Nursery(NurseryOptions{Timeout: int64(50 + 50*round)}, func(n *Nursery) error {
				return n.Go("trees", func(c *Task) error {
					for trees < 1_000_000 {
						if err := unsharedTree(c, 6); err != nil {
							return err
						}
						trees++
					}
					return errors.New("the timeout never cancelled the trees")
				})
			})
			after = root.w.unshared()
			return err
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("round %d: main = %s after %d trees", round, res, trees)
		}
		if !before || after {
			t.Fatalf("round %d: unshared before the timeout %v, after it %v; want true, false", round, before, after)
		}
		if live := s.drv().Live(); live != 0 {
			t.Fatalf("round %d: Live = %d after the run", round, live)
		}
	}
}

// TestBudgetCopyFrom: copyFrom, which copies a Budget component by
// component, copies every one (one added to Budget and not to copyFrom
// fails here).
func TestBudgetCopyFrom(t *testing.T) {
	var src, dst Budget
	v := reflect.ValueOf(&src).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(i + 1))
	}
	dst.copyFrom(&src)
	if dst != src {
		t.Fatalf("copyFrom(%+v) = %+v", src, dst)
	}
}
