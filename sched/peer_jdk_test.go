package sched_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Ports of the JDK's test/jdk/java/util/concurrent/StructuredTaskScope/
// StructuredTaskScopeTest.java. A StructuredTaskScope maps onto a nursery
// (fork = Go or Spawn, join = the end of Task.Nursery, shutdown = Cancel,
// joinUntil = Timeout with TimeoutFails, ShutdownOnFailure = fail_fast).

// Ports testForkConfined: a task in the inner scope may fork into the
// outer one (it runs inside it); a task of the outer scope may not fork
// into the inner one, nor may a task of an unrelated scope
// (WrongThreadException in the JDK, ErrNurseryNotActive here).
func TestPeerJDKForkConfined(t *testing.T) {
	noop := func(*sched.Task) error { return nil }
	for _, workers := range peerWorkers {
		var forkedIntoOuter atomic.Int64
		var outerIntoInner, stranger error
		res := peerRun(t, workers, func(root *sched.Task) error {
			err := root.Nursery(sched.NurseryOptions{Label: "scope1"}, func(scope1 *sched.Nursery) error {
				return root.Nursery(sched.NurseryOptions{Label: "scope2"}, func(scope2 *sched.Nursery) error {
					// A task in scope1 cannot fork into scope2. scope2 stays
					// open until it has tried: a *Nursery is valid only while
					// its body runs (the package doc on lifetimes).
					tried := sched.NewChan[int](root.Scheduler(), "tried", 1)
					if err := scope1.Go("subtask1", func(t *sched.Task) error {
						outerIntoInner = scope2.GoFrom(t, "x", noop)
						return tried.Send(t, 1)
					}); err != nil {
						return err
					}
					// A task in scope2 can fork into scope1.
					if err := scope2.Go("subtask2", func(t *sched.Task) error {
						return scope1.GoFrom(t, "forked", func(*sched.Task) error {
							forkedIntoOuter.Add(1)
							return nil
						})
					}); err != nil {
						return err
					}
					_, _, err := tried.Recv(root)
					return err
				})
			})
			if err != nil {
				return err
			}
			// A task of one scope cannot fork into a scope another task
			// has open at the same time.
			return root.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				opened := make(chan *sched.Nursery, 1)
				tried := make(chan struct{})
				if err := n.Go("holder", func(t *sched.Task) error {
					return t.Nursery(sched.NurseryOptions{}, func(held *sched.Nursery) error {
						opened <- held
						return t.Blocking(func(context.Context) error { <-tried; return nil })
					})
				}); err != nil {
					return err
				}
				return n.Go("stranger", func(t *sched.Task) error {
					var held *sched.Nursery
					if err := t.Blocking(func(context.Context) error { held = <-opened; return nil }); err != nil {
						return err
					}
					stranger = held.GoFrom(t, "x", noop)
					close(tried)
					return nil
				})
			})
		})
		if res.Kind != nursery.KindOK || forkedIntoOuter.Load() != 1 {
			t.Fatalf("workers %d: main = %s, %d forks into the outer scope", workers, res, forkedIntoOuter.Load())
		}
		if !errors.Is(outerIntoInner, sched.ErrNurseryNotActive) || !errors.Is(stranger, sched.ErrNurseryNotActive) {
			t.Fatalf("workers %d: a fork from outside a scope returned %v and %v; want ErrNurseryNotActive", workers, outerIntoInner, stranger)
		}
	}
}

// Ports testForkAfterShutdown: a fork into a scope already shut down
// creates a subtask that never runs; join then returns normally.
func TestPeerJDKForkAfterShutdown(t *testing.T) {
	var executed atomic.Bool
	peerNursery(t, sched.NurseryOptions{}, func(root *sched.Task, n *sched.Nursery) error {
		n.Cancel(root)
		return n.Go("subtask", func(*sched.Task) error { executed.Store(true); return nil })
	}, func(workers int, err error) {
		if err != nil || executed.Load() {
			t.Fatalf("workers %d: Nursery = %v, executed %v", workers, err, executed.Load())
		}
	})
}

// Ports testJoinWithNoSubtasks and testJoinWithSubtasks: join returns
// once every subtask has finished, and their results are then there.
func TestPeerJDKJoinWithSubtasks(t *testing.T) {
	for _, forks := range []int{0, 1} {
		var got string
		peerNursery(t, sched.NurseryOptions{}, func(_ *sched.Task, n *sched.Nursery) error {
			if forks == 0 {
				return nil
			}
			return n.Go("subtask", func(t *sched.Task) error {
				return t.Blocking(func(context.Context) error {
					time.Sleep(50 * time.Millisecond)
					got = "foo"
					return nil
				})
			})
		}, func(workers int, err error) {
			if err != nil || (forks == 1 && got != "foo") {
				t.Fatalf("workers %d: Nursery = %v, result %q", workers, err, got)
			}
			got = ""
		})
	}
}

// Ports testJoinUntil1 and testJoinUntil2: a deadline that the subtasks
// meet changes nothing; one they miss fails the join (TimeoutException,
// here ErrNurseryTimeout) and the subtask has no result (it ends
// cancelled). The JDK's joinUntil leaves the subtasks running until
// shutdown; the nursery's timeout cancels them, so that the owner never
// waits past it (on purpose: structured, and no separate shutdown call).
func TestPeerJDKJoinUntil(t *testing.T) {
	for _, miss := range []bool{false, true} {
		var finished atomic.Int64
		peerNursery(t, sched.NurseryOptions{Timeout: 200_000, TimeoutFails: true}, func(_ *sched.Task, n *sched.Nursery) error {
			return n.Go("subtask", func(t *sched.Task) error {
				wait := 20 * time.Millisecond
				if miss {
					wait = 24 * time.Hour
				}
				err := t.Blocking(func(ctx context.Context) error {
					select {
					case <-time.After(wait):
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				})
				if err == nil {
					finished.Add(1)
				}
				return err
			})
		}, func(workers int, err error) {
			if miss != errors.Is(err, sched.ErrNurseryTimeout) || (!miss && err != nil) {
				t.Fatalf("workers %d: miss %v: Nursery = %v", workers, miss, err)
			}
		})
		if want := map[bool]int64{false: int64(len(peerWorkers)), true: 0}[miss]; finished.Load() != want {
			t.Fatalf("miss %v: %d subtasks finished, want %d", miss, finished.Load(), want)
		}
	}
}

// Ports testShutdownInterruptsThreads1: shutdown interrupts a subtask
// sleeping for a day; here Cancel interrupts both a Sleep and a Blocking
// call, and the subtasks end cancelled.
func TestPeerJDKShutdownInterrupts(t *testing.T) {
	var interrupted atomic.Int64
	peerNursery(t, sched.NurseryOptions{}, func(root *sched.Task, n *sched.Nursery) error {
		started := make(chan struct{}, 2)
		if err := n.Go("sleeps", func(t *sched.Task) error {
			started <- struct{}{}
			err := t.Sleep(int64(24 * time.Hour / sched.RealTickNanos))
			if errors.Is(err, sched.ErrCancelled) {
				interrupted.Add(1)
			}
			return err
		}); err != nil {
			return err
		}
		if err := n.Go("blocks", func(t *sched.Task) error {
			started <- struct{}{}
			err := t.Blocking(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
			if errors.Is(err, sched.ErrCancelled) {
				interrupted.Add(1)
			}
			return err
		}); err != nil {
			return err
		}
		for len(started) < 2 {
			if err := root.Yield(); err != nil {
				return err
			}
		}
		n.Cancel(root)
		return nil
	}, func(workers int, err error) {
		if err != nil {
			t.Fatalf("workers %d: Nursery = %v", workers, err)
		}
	})
	if interrupted.Load() != 2*int64(len(peerWorkers)) {
		t.Fatalf("%d of %d subtasks were interrupted", interrupted.Load(), 2*len(peerWorkers))
	}
}

// Ports testForkAfterClose: a fork into a scope that has ended is refused
// (IllegalStateException in the JDK, ErrNurseryNotActive here), whether
// the scheduler keeps its nurseries or reuses them. (A handle kept until
// the scheduler has reused its nursery for another one cannot be told
// apart: see the package doc on lifetimes.)
func TestPeerJDKForkAfterClose(t *testing.T) {
	for _, keep := range []bool{false, true} {
		for _, workers := range peerWorkers {
			s, err := driver.New(driver.Config{Config: sched.Config{Workers: workers, Budget: sched.Unlimited}, Mode: map[bool]driver.Mode{false: driver.Real, true: driver.RealKeep}[keep]})
			if err != nil {
				t.Fatal(err)
			}
			var goErr, tryErr error
			res := s.Sched().Run("main", func(root *sched.Task) error {
				var ended *sched.Nursery
				if err := root.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
					ended = n
					return n.Go("child", func(*sched.Task) error { return nil })
				}); err != nil {
					return err
				}
				goErr = ended.Go("late", func(*sched.Task) error { return nil })
				_, tryErr = ended.TryGo("late", func(*sched.Task) error { return nil })
				return nil
			})
			if res.Kind != nursery.KindOK || !errors.Is(goErr, sched.ErrNurseryNotActive) || !errors.Is(tryErr, sched.ErrNurseryNotActive) {
				t.Fatalf("keep %v, workers %d: main = %s; Go after the end = %v, TryGo = %v", keep, workers, res, goErr, tryErr)
			}
		}
	}
}
