package sched_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// Ports of Trio's src/trio/_core/_tests/test_run.py and
// src/trio/_tests/test_timeouts.py. A Trio nursery maps onto a sched
// nursery; Trio's ExceptionGroup onto collect_all's joined error;
// move_on_after and fail_after onto Timeout and Timeout with TimeoutFails.

// Ports test_nursery_main_block_error_basic: an error raised by the body
// itself comes back as it is.
func TestPeerTrioMainBlockErrorBasic(t *testing.T) {
	whoops := errors.New("whoops")
	peerNursery(t, sched.NurseryOptions{}, func(*sched.Task, *sched.Nursery) error {
		return whoops
	}, func(workers int, err error) {
		if err != whoops {
			t.Fatalf("workers %d: Nursery = %v; want the body's own error value", workers, err)
		}
	})
}

// Ports test_child_crash_basic: the nursery hands the child's error back
// to its owner.
func TestPeerTrioChildCrashBasic(t *testing.T) {
	uhOh := errors.New("uh oh")
	peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
		return n.Go("erroring", func(*sched.Task) error { return uhOh })
	}, func(workers int, err error) {
		if !errors.Is(err, uhOh) {
			t.Fatalf("workers %d: Nursery = %v; want %v", workers, err, uhOh)
		}
	})
}

// Ports test_two_child_crashes: both errors come back. Trio always
// groups them; sched does under collect_all (fail_fast returns the first
// one, on purpose: it is errgroup's default and cancels the rest).
func TestPeerTrioTwoChildCrashes(t *testing.T) {
	errKey, errValue := errors.New("KeyError"), errors.New("ValueError")
	peerNursery(t, sched.NurseryOptions{Mode: nursery.CollectAll}, func(_ *sched.Task, n *sched.Nursery) error {
		if err := n.Go("crasher", func(*sched.Task) error { return errKey }); err != nil {
			return err
		}
		return n.Go("crasher", func(*sched.Task) error { return errValue })
	}, func(workers int, err error) {
		if !errors.Is(err, errKey) || !errors.Is(err, errValue) {
			t.Fatalf("workers %d: Nursery = %v; want both errors", workers, err)
		}
	})
}

// Ports test_child_crash_wakes_parent. Trio cancels the nursery's body
// when a child crashes; sched cancels the siblings only and lets the body
// run on (on purpose: the body is the owner's own code, and it observes
// the failure when it reaches the end of its body). A body blocked for
// ever on a channel is then a deadlock, which real mode detects and
// cancels; either way the child's error is what comes back, not the
// cancellation (an error outranks a cancellation across the owner).
func TestPeerTrioChildCrashWakesParent(t *testing.T) {
	crash := errors.New("this is a crash")
	for _, workers := range peerWorkers {
		var got error
		peerRun(t, workers, func(root *sched.Task) error {
			got = root.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				if err := n.Go("crasher", func(*sched.Task) error { return crash }); err != nil {
					return err
				}
				never := sched.NewChan[int](root.Scheduler(), "never", 0)
				_, _, err := never.Recv(root) // sleep_forever
				return err
			})
			return nil
		})
		if !errors.Is(got, crash) {
			t.Fatalf("workers %d: Nursery = %v; want the crash", workers, got)
		}
	}
}

// Ports test_move_on_after: a timeout that passes cancels what runs under
// it and the nursery ends without an error, whether the sleep is in a
// child or, as in Trio's test, in the body itself: sched's Timeout cancels
// the nursery's whole scope, as Trio's does (docs/semantics.md#scoped-cancellation).
func TestPeerTrioMoveOnAfter(t *testing.T) {
	peerNursery(t, sched.NurseryOptions{Timeout: 20_000}, func(_ *sched.Task, n *sched.Nursery) error {
		return n.Go("sleeper", func(t *sched.Task) error { return t.Sleep(100_000_000) })
	}, func(workers int, err error) {
		if err != nil {
			t.Fatalf("workers %d: Nursery = %v; want nil (move_on_after)", workers, err)
		}
	})
	peerNursery(t, sched.NurseryOptions{Timeout: 20_000}, func(root *sched.Task, _ *sched.Nursery) error {
		return root.Sleep(100_000_000)
	}, func(workers int, err error) {
		if err != nil {
			t.Fatalf("workers %d: Nursery around a sleeping body = %v; want nil (move_on_after)", workers, err)
		}
	})
}

// Ports test_fail: fail_after raises TooSlowError when the time passes,
// and nothing when the work is done in time.
func TestPeerTrioFail(t *testing.T) {
	for _, sleep := range []int64{100_000_000, 0} {
		peerNursery(t, sched.NurseryOptions{Label: "slow", Timeout: 20_000, TimeoutFails: true}, func(_ *sched.Task, n *sched.Nursery) error {
			return n.Go("sleeper", func(t *sched.Task) error { return t.Sleep(sleep) })
		}, func(workers int, err error) {
			if sleep > 0 && !errors.Is(err, sched.ErrNurseryTimeout) {
				t.Fatalf("workers %d: Nursery = %v; want ErrNurseryTimeout (fail_after)", workers, err)
			}
			if sleep == 0 && err != nil {
				t.Fatalf("workers %d: Nursery = %v; want nil, the work was done in time", workers, err)
			}
		})
	}
}

// Trio lets a child spawn into the nursery it was handed (the nursery
// object is passed to the child, which calls start_soon on it), and the
// nursery waits for those tasks too. GoFrom is that call; the chain
// below spawns three generations into one nursery, and the owner leaves
// it only after all of them.
func TestPeerTrioChildSpawnsIntoHandedNursery(t *testing.T) {
	var ran atomic.Int64
	peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
		var child func(depth int) sched.Func
		child = func(depth int) sched.Func {
			return func(t *sched.Task) error {
				if err := t.Blocking(func(context.Context) error { time.Sleep(time.Millisecond); return nil }); err != nil {
					return err
				}
				ran.Add(1)
				if depth == 3 {
					return nil
				}
				return n.GoFrom(t, "child", child(depth+1))
			}
		}
		return n.Go("child", child(1))
	}, func(workers int, err error) {
		if err != nil || ran.Load() != 3 {
			t.Fatalf("workers %d: Nursery = %v after %d of 3 generations", workers, err, ran.Load())
		}
		ran.Store(0)
	})
}
