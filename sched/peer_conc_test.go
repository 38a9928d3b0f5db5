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

// Ports of github.com/sourcegraph/conc's pool/error_pool_test.go
// (TestErrorPool) and pool/context_pool_test.go (TestContextPool). conc's
// ErrorPool, which returns every error, maps onto a collect_all nursery;
// WithCancelOnError and WithFirstError onto fail_fast;
// WithMaxGoroutines onto MaxConcurrent.

var (
	errConc1 = errors.New("err1")
	errConc2 = errors.New("err2")
)

// Ports TestErrorPool "wait returns no error if no errors" and "wait error
// if func returns error".
func TestPeerConcErrorPoolOneError(t *testing.T) {
	for _, fail := range []bool{false, true} {
		peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll}, func(_ *sched.Task, n *sched.Nursery) error {
			return n.Go("child", func(*sched.Task) error {
				if fail {
					return errConc1
				}
				return nil
			})
		}, func(workers int, err error) {
			if fail != errors.Is(err, errConc1) || fail != (err != nil) {
				t.Errorf("workers %d: fail %v: Nursery = %v", workers, fail, err)
			}
		})
	}
}

// Ports TestErrorPool "wait error is all returned errors" (and
// TestContextPool's copy of it): under collect_all the nursery's error
// joins every child's error, the first first, so errors.Is finds each.
func TestPeerConcErrorPoolAllErrors(t *testing.T) {
	peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll}, func(_ *sched.Task, n *sched.Nursery) error {
		for _, err := range []error{errConc1, nil, errConc2} {
			if e := n.Go("child", func(*sched.Task) error { return err }); e != nil {
				return e
			}
		}
		return nil
	}, func(workers int, err error) {
		if !errors.Is(err, errConc1) || !errors.Is(err, errConc2) {
			t.Fatalf("workers %d: Nursery = %v; want both errors", workers, err)
		}
		var ce *sched.ChildError
		if !errors.As(err, &ce) {
			t.Fatalf("workers %d: %T is not a *ChildError", workers, err)
		}
		joined, ok := ce.Err.(interface{ Unwrap() []error })
		if !ok || len(joined.Unwrap()) != 2 || joined.Unwrap()[0].Error() != ce.Text {
			t.Fatalf("workers %d: ChildError.Err = %v; want the two errors joined, the first (%q) first", workers, ce.Err, ce.Text)
		}
	})
}

// Ports TestErrorPool "propagates panics". conc re-panics in Wait; sched
// never lets a panic cross a task (on purpose): the nursery returns a
// *ChildError carrying the child's *PanicError.
func TestPeerConcErrorPoolPanics(t *testing.T) {
	peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll}, func(_ *sched.Task, n *sched.Nursery) error {
		for i := range 10 {
			if err := n.Go("child", func(*sched.Task) error {
				if i == 5 {
					panic("fatal")
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}, func(workers int, err error) {
		var pe *sched.PanicError
		if !errors.As(err, &pe) || pe.Value != "fatal" {
			t.Fatalf("workers %d: Nursery = %v; want the child's panic", workers, err)
		}
	})
}

// Ports TestErrorPool "limit" and TestContextPool "limit": with
// MaxConcurrent m (1, 10, 100), no more than m of 10*m children run at
// once.
func TestPeerConcErrorPoolLimit(t *testing.T) {
	for _, maxGoroutines := range []int{1, 10, 100} {
		var current atomic.Int64
		peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll, MaxConcurrent: maxGoroutines}, func(_ *sched.Task, n *sched.Nursery) error {
			for range maxGoroutines * 10 {
				if err := n.Go("child", func(t *sched.Task) error {
					if cur := current.Add(1); cur > int64(maxGoroutines) {
						return fmt.Errorf("expected no more than %d concurrent tasks", maxGoroutines)
					}
					if err := t.Blocking(func(context.Context) error { time.Sleep(time.Millisecond / 10); return nil }); err != nil {
						return err
					}
					current.Add(-1)
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		}, func(workers int, err error) {
			if err != nil || current.Load() != 0 {
				t.Fatalf("workers %d, limit %d: %v, %d still counted", workers, maxGoroutines, err, current.Load())
			}
		})
	}
}

// Ports TestContextPool "WithCancelOnError": a failure cancels the
// sibling waiting on its context. conc's error then joins err1 and the
// sibling's context.Canceled; sched's fail_fast returns the first error
// alone, since a sibling's cancellation is a consequence of it, not a
// failure of its own (an error outranks a cancellation).
func TestPeerConcContextPoolCancelOnError(t *testing.T) {
	peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
		entered := make(chan struct{})
		if err := n.Go("waiter", func(t *sched.Task) error {
			return t.Blocking(func(ctx context.Context) error {
				close(entered)
				<-ctx.Done()
				return ctx.Err()
			})
		}); err != nil {
			return err
		}
		return n.Go("fails", func(t *sched.Task) error {
			if err := t.Blocking(func(context.Context) error { <-entered; return nil }); err != nil {
				return err
			}
			return errConc1
		})
	}, func(workers int, err error) {
		if !errors.Is(err, errConc1) || errors.Is(err, context.Canceled) {
			t.Fatalf("workers %d: Nursery = %v; want err1 alone", workers, err)
		}
	})
}

// Ports TestContextPool "no WithCancelOnError": under collect_all a
// failure cancels nobody; the sibling runs to its end and the error is
// err1, not a cancellation.
func TestPeerConcContextPoolNoCancelOnError(t *testing.T) {
	var finished atomic.Int64
	peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll}, func(_ *sched.Task, n *sched.Nursery) error {
		if err := n.Go("sleeper", func(t *sched.Task) error {
			err := t.Blocking(func(ctx context.Context) error {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(10 * time.Millisecond):
					return nil
				}
			})
			if err == nil {
				finished.Add(1)
			}
			return err
		}); err != nil {
			return err
		}
		return n.Go("fails", func(*sched.Task) error { return errConc1 })
	}, func(workers int, err error) {
		if !errors.Is(err, errConc1) || errors.Is(err, context.Canceled) || errors.Is(err, sched.ErrCancelled) {
			t.Fatalf("workers %d: Nursery = %v; want err1 and no cancellation", workers, err)
		}
	})
	if finished.Load() != int64(len(peerWorkers)) {
		t.Fatalf("%d of %d sleepers ran to their end", finished.Load(), len(peerWorkers))
	}
}

// Ports TestContextPool "WithFirstError": fail_fast keeps the first error
// and drops later ones.
func TestPeerConcContextPoolFirstError(t *testing.T) {
	peerNursery(t, sched.NurseryOptions{Catch: false}, func(_ *sched.Task, n *sched.Nursery) error {
		first := make(chan struct{})
		if err := n.Go("first", func(t *sched.Task) error {
			defer close(first)
			return errConc1
		}); err != nil {
			return err
		}
		return n.Go("second", func(t *sched.Task) error {
			// As conc's test does, give the first error time to be
			// recorded; it cancels this task meanwhile.
			if err := t.Blocking(func(ctx context.Context) error {
				<-first
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Millisecond):
				}
				return nil
			}); err != nil {
				return nil // cancelled by the first error
			}
			return errConc2
		})
	}, func(workers int, err error) {
		if !errors.Is(err, errConc1) || errors.Is(err, errConc2) {
			t.Fatalf("workers %d: Nursery = %v; want err1 only", workers, err)
		}
	})
}
