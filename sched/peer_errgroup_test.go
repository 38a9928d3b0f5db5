package sched_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// Ports of golang.org/x/sync/errgroup's errgroup_test.go. errgroup.Group
// maps onto a fail_fast nursery (Go, Wait = the end of Task.Nursery,
// WithContext = each task's Context, SetLimit = MaxConcurrent).

// Ports TestZeroGroup: Wait returns the first error of the children run so
// far, nil when there is none. errgroup calls Wait after every Go and
// reuses the group; a nursery ends with its body (no reuse, on purpose), so
// each prefix of errs gets a nursery of its own, and MaxConcurrent 1 makes
// the children end in spawn order, so that "first" is well defined.
func TestPeerErrgroupZeroGroup(t *testing.T) {
	err1 := errors.New("errgroup_test: 1")
	err2 := errors.New("errgroup_test: 2")
	cases := [][]error{{}, {nil}, {err1}, {err1, nil}, {err1, nil, err2}}
	for _, errs := range cases {
		var firstErr error
		for i := range errs {
			if firstErr == nil && errs[i] != nil {
				firstErr = errs[i]
			}
			peerNursery(t, sched.NurseryOptions{MaxConcurrent: 1}, func(_ *sched.Task, n *sched.Nursery) error {
				for _, err := range errs[:i+1] {
					if e := n.Go("child", func(*sched.Task) error { return err }); e != nil {
						return e
					}
				}
				return nil
			}, func(workers int, got error) {
				if !errors.Is(got, firstErr) || (firstErr == nil) != (got == nil) {
					t.Errorf("workers %d: errs %v: Nursery = %v; want %v", workers, errs[:i+1], got, firstErr)
				}
				var ce *sched.ChildError
				if firstErr != nil && (!errors.As(got, &ce) || ce.Err != firstErr) {
					t.Errorf("workers %d: errs %v: ChildError.Err is not the child's own error value", workers, errs[:i+1])
				}
			})
		}
	}
}

// Ports TestWithContext: the first error cancels the group's context. In
// sched every task has its own Context, cancelled when that task is
// cancelled: a sibling blocked on its context is released by the failure,
// and the nursery returns the failing child's error.
func TestPeerErrgroupWithContext(t *testing.T) {
	errDoom := errors.New("group_test: doomed")
	cases := []struct {
		errs []error
		want error
	}{
		{want: nil},
		{errs: []error{nil}, want: nil},
		{errs: []error{errDoom}, want: errDoom},
		{errs: []error{errDoom, nil}, want: errDoom},
	}
	for _, tc := range cases {
		var released atomic.Int64
		peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
			entered := make(chan struct{})
			if tc.want != nil {
				// A sibling that waits on its context until the failure
				// cancels it; the children end only once it waits.
				if err := n.Go("waiter", func(t *sched.Task) error {
					err := t.Blocking(func(ctx context.Context) error {
						close(entered)
						<-ctx.Done()
						return ctx.Err()
					})
					if errors.Is(err, sched.ErrCancelled) {
						released.Add(1)
					}
					return err
				}); err != nil {
					return err
				}
			} else {
				close(entered)
			}
			for _, err := range tc.errs {
				if e := n.Go("child", func(t *sched.Task) error {
					if e := t.Blocking(func(context.Context) error { <-entered; return nil }); e != nil {
						return e
					}
					return err
				}); e != nil {
					return e
				}
			}
			return nil
		}, func(workers int, got error) {
			if !errors.Is(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("workers %d: errs %v: Nursery = %v; want %v", workers, tc.errs, got, tc.want)
			}
		})
		if tc.want != nil && released.Load() != int64(len(peerWorkers)) {
			t.Errorf("errs %v: %d of %d waiters saw their context cancelled", tc.errs, released.Load(), len(peerWorkers))
		}
	}
}

// Ports TestTryGo: with a limit of 42, 42 TryGo calls succeed and the 43rd
// fails while they run; once they are done TryGo succeeds again; a limit
// of 1 admits one. errgroup's SetLimit(0) blocks every call; sched has no
// such setting (MaxConcurrent 0 is no limit), so that case is not ported.
func TestPeerErrgroupTryGo(t *testing.T) {
	for _, workers := range peerWorkers {
		res := peerRun(t, workers, func(root *sched.Task) error {
			release := make(chan struct{})
			fn := func(t *sched.Task) error {
				return t.Blocking(func(context.Context) error { <-release; return nil })
			}
			err := root.Nursery(sched.NurseryOptions{MaxConcurrent: 42}, func(n *sched.Nursery) error {
				for i := range 42 {
					if ok, err := n.TryGo("fn", fn); !ok || err != nil {
						return fmt.Errorf("TryGo should succeed but got fail at %d-th call (%v)", i, err)
					}
				}
				if ok, err := n.TryGo("fn", fn); ok || err != nil {
					return fmt.Errorf("TryGo is expected to fail but succeeded (%v)", err)
				}
				close(release)
				return nil
			})
			if err != nil {
				return err
			}
			return root.Nursery(sched.NurseryOptions{MaxConcurrent: 1}, func(n *sched.Nursery) error {
				block := make(chan struct{})
				if ok, err := n.TryGo("fn", func(t *sched.Task) error {
					return t.Blocking(func(context.Context) error { <-block; return nil })
				}); !ok || err != nil {
					return fmt.Errorf("TryGo should succeed but got failed (%v)", err)
				}
				ok, err := n.TryGo("fn", fn)
				close(block)
				if ok || err != nil {
					return fmt.Errorf("TryGo should fail but succeeded (%v)", err)
				}
				return nil
			})
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
	}
}

// Ports TestGoLimit: with a limit of 10, no more than 10 of 1025 children
// are ever active at once.
func TestPeerErrgroupGoLimit(t *testing.T) {
	const limit = 10
	peerNursery(t, sched.NurseryOptions{MaxConcurrent: limit}, func(_ *sched.Task, n *sched.Nursery) error {
		var active atomic.Int32
		for i := 0; i <= 1<<10; i++ {
			if err := n.Go("child", func(t *sched.Task) error {
				if n := active.Add(1); n > limit {
					return fmt.Errorf("saw %d active tasks; want ≤ %d", n, limit)
				}
				if err := t.Blocking(func(context.Context) error { time.Sleep(time.Microsecond); return nil }); err != nil {
					return err
				}
				active.Add(-1)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}, func(workers int, err error) {
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
	})
}

// Ports TestCancelCause: a sibling's context is cancelled with a cause.
// errgroup's cause is the failing function's error; sched's is the
// sibling's own *CancelError (reason SiblingFailed), since a task may be
// cancelled for reasons other than a sibling's error. The failing child's
// error is what the nursery returns, as in errgroup.
func TestPeerErrgroupCancelCause(t *testing.T) {
	errDoom := errors.New("group_test: doomed")
	var causes atomic.Int64
	peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
		entered := make(chan struct{})
		if err := n.Go("waiter", func(t *sched.Task) error {
			return t.Blocking(func(ctx context.Context) error {
				close(entered)
				<-ctx.Done()
				var ce *sched.CancelError
				if errors.As(context.Cause(ctx), &ce) && ce.Reason == nursery.SiblingFailed {
					causes.Add(1)
				}
				return ctx.Err()
			})
		}); err != nil {
			return err
		}
		return n.Go("doomed", func(t *sched.Task) error {
			if err := t.Blocking(func(context.Context) error { <-entered; return nil }); err != nil {
				return err
			}
			return errDoom
		})
	}, func(workers int, err error) {
		if !errors.Is(err, errDoom) {
			t.Errorf("workers %d: Nursery = %v; want %v", workers, err, errDoom)
		}
	})
	if causes.Load() != int64(len(peerWorkers)) {
		t.Errorf("%d of %d contexts had the SiblingFailed cause", causes.Load(), len(peerWorkers))
	}
}
