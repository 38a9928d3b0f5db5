package sched

import (
	"errors"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestScopeCancelReachesInner: cancelling a nursery from inside the body
// of a nursery its owner opened in it cancels that inner nursery's child
// (which spins for ever) and the owner's own code until it leaves the
// cancelled nursery, and no longer after (docs/semantics.md#scoped-cancellation).
func TestScopeCancelReachesInner(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		var inBody, inner, outer, after error
		var cancelledAfter bool
		res := runWithin(t, s, func(root *Task) error {
			outer = root.Nursery(NurseryOptions{Label: "outer"}, func(o *Nursery) error {
				inner = root.Nursery(NurseryOptions{Label: "inner"}, func(n *Nursery) error {
					if err := n.Go("spinner", spinUntilCancelled); err != nil {
						return err
					}
					o.Cancel(root)
					inBody = root.Checkpoint()
					return inBody
				})
				return inner
			})
			after = root.Checkpoint()
			cancelledAfter = root.IsCancelled()
			return nil
		})
		var ce *CancelError
		if !errors.As(inBody, &ce) || ce.Reason != nursery.ExplicitCancel {
			t.Fatalf("workers %d: the body's checkpoint after the cancel = %v; want ExplicitCancel", workers, inBody)
		}
		if !errors.Is(inner, ErrCancelled) {
			t.Fatalf("workers %d: inner = %v; want the cancellation going on out of it", workers, inner)
		}
		if outer != nil || after != nil || cancelledAfter || res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: outer = %v, checkpoint after = %v, IsCancelled after = %v, main = %s; want nil, nil, false, ok",
				workers, outer, after, cancelledAfter, res)
		}
	}
}

// TestScopeTimeoutEndsBodyWait: a timeout interrupts the owner's own wait
// in the body (Trio's move_on_after around a sleep); with TimeoutFails the
// nursery returns ErrNurseryTimeout (fail_after).
func TestScopeTimeoutEndsBodyWait(t *testing.T) {
	for _, fails := range []bool{false, true} {
		for _, workers := range []int{1, 2, 4} {
			s := leanSched(t, workers)
			var got, waited error
			runWithin(t, s, func(root *Task) error {
				never := NewChan[int](s, "never", 0)
				got = root.Nursery(NurseryOptions{Label: "n", Timeout: 1000, TimeoutFails: fails}, func(*Nursery) error {
					_, _, waited = never.Recv(root)
					return waited
				})
				return nil
			})
			if !errors.Is(waited, ErrCancelled) {
				t.Fatalf("fails %v, workers %d: the body's receive = %v; want the timeout's cancellation", fails, workers, waited)
			}
			if fails && !errors.Is(got, ErrNurseryTimeout) || !fails && got != nil {
				t.Fatalf("fails %v, workers %d: Nursery = %v", fails, workers, got)
			}
		}
	}
}

// TestScopeFailFastSparesBody: a first child error under fail_fast reaches
// a nursery the owner opened in the body (its child, blocked for ever, is
// cancelled) but not the owner's own code, which learns of the error at
// the end of its body.
func TestScopeFailFastSparesBody(t *testing.T) {
	crash := errors.New("crash")
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		var got, inner, body error
		runWithin(t, s, func(root *Task) error {
			never := NewChan[int](s, "never", 0)
			got = root.Nursery(NurseryOptions{Label: "outer"}, func(o *Nursery) error {
				if err := o.Go("crasher", func(*Task) error { return crash }); err != nil {
					return err
				}
				inner = root.Nursery(NurseryOptions{Label: "inner"}, func(n *Nursery) error {
					return n.Go("waiter", func(t *Task) error {
						_, _, err := never.Recv(t)
						return err
					})
				})
				body = root.Checkpoint()
				return nil
			})
			return nil
		})
		if inner != nil || body != nil {
			t.Fatalf("workers %d: inner = %v, the body's checkpoint = %v; want nil, nil (the body is not cancelled)", workers, inner, body)
		}
		if !errors.Is(got, crash) {
			t.Fatalf("workers %d: outer = %v; want the crash", workers, got)
		}
	}
}

// TestOutsideCancelKeepsMode: a cancel_remaining nursery cancelled from
// outside (its owner is marked) lets its started child finish and drops
// the one still waiting for max_concurrent.
func TestOutsideCancelKeepsMode(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		spawned, started, release := NewChan[int](s, "spawned", 1), NewChan[int](s, "started", 1), NewChan[int](s, "go", 1)
		var finished, queuedRan bool
		var inner error
		runWithin(t, s, func(root *Task) error {
			return root.Nursery(NurseryOptions{Label: "outer", Catch: true}, func(o *Nursery) error {
				if err := o.Go("middle", func(m *Task) error {
					inner = m.Nursery(NurseryOptions{Label: "inner", Mode: nursery.CancelRemaining, MaxConcurrent: 1}, func(n *Nursery) error {
						if err := n.Go("worker", func(w *Task) error {
							if _, _, err := spawned.Recv(w); err != nil {
								return err
							}
							if err := started.Send(w, 1); err != nil {
								return err
							}
							if _, _, err := release.Recv(w); err != nil {
								return err
							}
							finished = true
							return nil
						}); err != nil {
							return err
						}
						if err := n.Go("queued", func(*Task) error { queuedRan = true; return nil }); err != nil {
							return err
						}
						return spawned.Send(m, 1) // both spawned; the worker holds the only slot
					})
					return inner
				}); err != nil {
					return err
				}
				if _, _, err := started.Recv(root); err != nil {
					return err
				}
				// The release is a cleanup, which runs after the cancel and
				// which no cancellation interrupts.
				return root.Using("signal", func() error {
					root.Defer("release", func(t *Task) error { return release.Send(t, 1) })
					o.Cancel(root)
					return nil
				})
			})
		})
		if !finished || queuedRan || !errors.Is(inner, ErrCancelled) {
			t.Fatalf("workers %d: worker finished %v, queued ran %v, inner %v; want the started worker to finish, the queued child never to run, middle cancelled",
				workers, finished, queuedRan, inner)
		}
	}
}

// TestCleanupOverrun: a cleanup that needs more ops than its task's
// budget and pool hold runs to the end, uncharged past the exhaustion, and
// the task ends err:ResourceExhausted though it was cancelled
// (docs/semantics.md#budgets-in-cleanups).
func TestCleanupOverrun(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s, err := New(Config{Workers: workers, Budget: Unlimited})
		if err != nil {
			t.Fatal(err)
		}
		var ran int64
		var handle *Task
		ready := NewChan[int](s, "ready", 1)
		runWithin(t, s, func(root *Task) error {
			pool := Unlimited
			pool.Ops = 5
			small := Unlimited
			small.Ops = 20
			return root.Nursery(NurseryOptions{Label: "n", Catch: true, Budget: &pool}, func(n *Nursery) error {
				c, err := n.Spawn(root, "worker", func(w *Task) error {
					w.Defer("cleanup", func(w *Task) error {
						for range 50 {
							if err := w.ops().Compute(1); err != nil {
								return err
							}
							ran++
						}
						return nil
					})
					if err := ready.Send(w, 1); err != nil {
						return err
					}
					return spinUntilCancelled(w)
				}, SpawnOptions{Budget: &small})
				if err != nil {
					return err
				}
				if _, _, err := ready.Recv(root); err != nil {
					return err
				}
				handle = c
				n.Cancel(root)
				return nil
			})
		})
		if r := handle.Result(); ran != 50 || r.String() != "err:ResourceExhausted" {
			t.Fatalf("workers %d: the cleanup ran %d of its 50 ops, the child ended %s; want all of them, err:ResourceExhausted", workers, ran, r)
		}
	}
}
