package sched

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/cbcsim/cbcsim/nursery"
)

// The lean nursery's lock-free paths (lean.go), under -race on 1, 2 and 4
// workers: every test below has children that can only end by being
// cancelled, so a cancellation that misses one hangs the test (the loops
// are bounded and fail loudly instead).

// spinUntilCancelled checkpoints until the task is cancelled; it fails
// after too many rounds instead of hanging.
func spinUntilCancelled(t *Task) error {
	for range 200_000 {
		if err := t.Yield(); err != nil {
			return err
		}
	}
	return errors.New("never cancelled")
}

// runWithin runs fn as s's root and fails the test if it has not ended
// within a minute: a cancellation that misses a blocked child hangs.
func runWithin(t *testing.T, s *Scheduler, fn Func) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- s.Run("main", fn) }()
	select {
	case res := <-done:
		return res
	case <-time.After(time.Minute):
		t.Fatal("the run has not ended after a minute: a cancellation missed a child")
		return Result{}
	}
}

// leanSched is a real-mode scheduler as a Go program makes one: no
// KeepTasks, so its nurseries are lean and its tasks reused.
func leanSched(t *testing.T, workers int) *Scheduler {
	t.Helper()
	s, err := New(Config{Workers: workers, Budget: Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLeanJoinWaitsForAll: the owner leaves its nursery only after every
// child ended, whichever path each took, over many nurseries in a row.
func TestLeanJoinWaitsForAll(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		var bad atomic.Int64
		res := runWithin(t, s, func(root *Task) error {
			for round := range 300 {
				var ended atomic.Int64
				kids := 1 + round%17
				err := root.Nursery(NurseryOptions{Mode: CollectAll, Catch: true}, func(n *Nursery) error {
					for i := range kids {
						err := n.Go("kid", func(t *Task) error {
							defer ended.Add(1)
							switch i % 4 {
							case 1:
								return t.Yield()
							case 2:
								return errors.New("kid failed") // the locked path
							case 3:
								return t.Sleep(1) // enlists
							}
							return nil
						})
						if err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
				if ended.Load() != int64(kids) {
					bad.Add(1)
				}
			}
			return nil
		})
		if res.Kind != nursery.KindOK || bad.Load() != 0 {
			t.Fatalf("workers %d: main = %s, %d nurseries left before their children ended", workers, res, bad.Load())
		}
	}
}

// TestLeanCancelReachesEveryChild: a failing child cancels siblings that
// never enlisted (spinning), siblings blocked on a channel or asleep
// (enlisted), and the grandchildren of a sibling that opened a nursery.
func TestLeanCancelReachesEveryChild(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		never := s.drv().NewChannel("never", 0)
		// observe sees how each child that ran ended: it can only end by
		// being cancelled (a spinner that is not ends "never cancelled").
		var ended, cancelled atomic.Int64
		observe := func(err error) error {
			ended.Add(1)
			var ce *CancelError
			if errors.As(err, &ce) {
				cancelled.Add(1)
			}
			return err
		}
		const rounds = 30
		res := runWithin(t, s, func(root *Task) error {
			for range rounds {
				err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
					spawn := func(name string, fn Func) error { return n.Go(name, fn) }
					if err := spawn("spinner", func(t *Task) error { return observe(spinUntilCancelled(t)) }); err != nil {
						return err
					}
					if err := spawn("receiver", func(t *Task) error {
						_, _, err := t.ops().Recv(never)
						return observe(err)
					}); err != nil {
						return err
					}
					if err := spawn("sleeper", func(t *Task) error { return observe(t.Sleep(1 << 40)) }); err != nil {
						return err
					}
					if err := spawn("parent", func(t *Task) error {
						return t.Nursery(NurseryOptions{}, func(inner *Nursery) error {
							for range 3 {
								if err := inner.Go("grandchild", func(t *Task) error { return observe(spinUntilCancelled(t)) }); err != nil {
									return err
								}
							}
							return nil
						})
					}); err != nil {
						return err
					}
					return spawn("failer", func(t *Task) error {
						if err := t.Yield(); err != nil {
							return err
						}
						return errors.New("boom")
					})
				})
				var ce *ChildError
				if !errors.As(err, &ce) || ce.Text != "boom" {
					return fmt.Errorf("nursery returned %v, want the child error boom", err)
				}
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		// Spinner, receiver, sleeper and three grandchildren a round: those
		// that ran at all (the failure may come before some start) must
		// all have ended cancelled.
		if e, c := ended.Load(), cancelled.Load(); e != c || e > 6*rounds {
			t.Fatalf("workers %d: %d children ended, %d of them cancelled", workers, e, c)
		}
	}
}

// TestLeanExternalCancelAndTimeout: an explicit cancel from the owner and a
// nursery timeout both reach children that never enlisted.
func TestLeanExternalCancelAndTimeout(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		res := runWithin(t, s, func(root *Task) error {
			for range 20 {
				err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
					for range 4 {
						if err := n.Go("spinner", spinUntilCancelled); err != nil {
							return err
						}
					}
					if err := root.Yield(); err != nil {
						return err
					}
					n.Cancel(root)
					return nil
				})
				if err != nil {
					return fmt.Errorf("explicit cancel: %v", err)
				}
				err = root.Nursery(NurseryOptions{Timeout: 50}, func(n *Nursery) error {
					for range 4 {
						if err := n.Go("spinner", spinUntilCancelled); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return fmt.Errorf("timeout: %v", err)
				}
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
	}
}

// TestLeanSpawnAfterCancel: a child spawned after its nursery started
// cancelling never runs, and one spawned just before it observes the
// cancellation at its start or first checkpoint.
func TestLeanSpawnAfterCancel(t *testing.T) {
	s := leanSched(t, 2)
	var ran atomic.Int64
	res := runWithin(t, s, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Cancel(root)
			for range 100 {
				if err := n.Go("late", func(*Task) error { ran.Add(1); return nil }); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if res.Kind != nursery.KindOK || ran.Load() != 0 {
		t.Fatalf("main = %s, %d children spawned into a cancelled nursery ran", res, ran.Load())
	}
}

// TestGoFromAnotherTaskPanics: Nursery.Go (and TryGo) called by a child
// while the owner awaits is refused with a panic (the child's result), not
// run as a spawn on the owner's behalf, and the panic says exactly what to
// call instead: GoFrom with the child's own task.
func TestGoFromAnotherTaskPanics(t *testing.T) {
	const want = "sched: Nursery.Go: called by a task other than the nursery's owner (the owner is not running): " +
		"only the owner may call Go, from its body; a child or any task inside the nursery calls " +
		"n.GoFrom(t, name, fn) with its own *Task t instead"
	const wantTry = "sched: Nursery.TryGo: called by a task other than the nursery's owner (the owner is not running): " +
		"only the owner may call TryGo, from its body; a child or any task inside the nursery calls " +
		"n.GoFrom(t, name, fn) with its own *Task t instead (GoFrom queues past MaxConcurrent: there is no TryGo for a child)"
	calls := []struct {
		msg  string
		call func(n *Nursery) error
	}{
		{want, func(n *Nursery) error { return n.Go("grandchild", func(*Task) error { return nil }) }},
		{wantTry, func(n *Nursery) error {
			_, err := n.TryGo("grandchild", func(*Task) error { return nil })
			return err
		}},
	}
	for _, c := range calls {
		msg, call := c.msg, c.call
		s := leanSched(t, 1) // one worker: the child runs once the owner awaits
		res := runWithin(t, s, func(root *Task) error {
			err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				return n.Go("child", func(*Task) error { return call(n) })
			})
			var pe *PanicError
			if !errors.As(err, &pe) || fmt.Sprint(pe.Value) != msg {
				return fmt.Errorf("nursery returned %v, want the child's panic %q", err, msg)
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("main = %s", res)
		}
	}
}

// TestGoFromChildSpawns: the call the panic above names works: a child
// spawns into its nursery with GoFrom and the nursery waits for it.
func TestGoFromChildSpawns(t *testing.T) {
	s := leanSched(t, 1)
	var ran atomic.Int32
	res := runWithin(t, s, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("child", func(c *Task) error {
				return n.GoFrom(c, "grandchild", func(*Task) error { ran.Add(1); return nil })
			})
		})
	})
	if res.Kind != nursery.KindOK || ran.Load() != 1 {
		t.Fatalf("main = %s, grandchild ran %d times, want once", res, ran.Load())
	}
}

// TestNurseryLayout: a lean nursery's pending count and the flags its
// children's start and end read fill the nursery's first cache line, and
// the fields the spawner writes or reads at every spawn (the lock, the
// state machine's counts, the scope's cancellation) start on the next
// one, so that a worker ending children and a worker spawning them do not
// bounce one line between them at every task. A nursery is allocated in the 576-byte size class,
// whose objects start on a cache line.
func TestNurseryLayout(t *testing.T) {
	var n Nursery
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is laid out for 64-bit words")
	}
	if off := unsafe.Offsetof(n.fast); off != 0 {
		t.Errorf("fast at offset %d, want 0", off)
	}
	if off := unsafe.Offsetof(n.id); off != cacheLine {
		t.Errorf("the first field after the children's line (id) at offset %d, want %d", off, cacheLine)
	}
	// scope is read at each of the owner's checkpoints, a spawn's too.
	for name, off := range map[string]uintptr{"mu": unsafe.Offsetof(n.mu), "m": unsafe.Offsetof(n.m), "credit": unsafe.Offsetof(n.credit), "scope": unsafe.Offsetof(n.scope)} {
		if off < cacheLine {
			t.Errorf("%s at offset %d, on the children's line", name, off)
		}
	}
	if size := unsafe.Sizeof(n); size > 576 || 576%cacheLine != 0 {
		t.Errorf("Nursery is %d bytes, over the 576-byte size class", size)
	}
}

// TestLeanSpawnAhead: an owner's spawns admitted ahead without the lock
// (lean.go) still obey the nursery: a child spawned after the nursery
// started cancelling never runs, whether the owner cancelled it itself or
// a failing child did, while the owner held credits of a batch; every
// child spawned before it ran or was cancelled, and the owner leaves only
// after all of them; a spawn after the owner left fails. Over 1, 2 and 4
// workers, and under -race.
func TestLeanSpawnAhead(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := leanSched(t, workers)
		var late, ran, ended atomic.Int64
		res := runWithin(t, s, func(root *Task) error {
			for round := range 40 {
				before := 50 + round*7 // past a few batches, and mid-batch
				var leaked *Nursery
				err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
					leaked = n
					for i := range before {
						fail := round%2 == 1 && i == before/2
						if err := n.Go("kid", func(t *Task) error {
							defer ended.Add(1)
							ran.Add(1)
							if fail {
								return errors.New("kid failed") // cancels its siblings (fail_fast)
							}
							return nil
						}); err != nil {
							return err
						}
					}
					if round%2 == 0 {
						n.Cancel(root)
					} else {
						for i := 0; n.owner.marked() == 0 && i < 1_000_000; i++ {
							if err := root.Yield(); err != nil {
								return err
							}
							if n.cancelling.Load() != 0 {
								break
							}
						}
					}
					for range 100 {
						_ = n.Go("late", func(*Task) error { late.Add(1); return nil })
					}
					return nil
				})
				if got := ended.Load(); got != ran.Load() {
					return fmt.Errorf("round %d: the owner left with %d children ended of %d that ran", round, got, ran.Load())
				}
				var ce *ChildError
				if (round%2 == 1) != errors.As(err, &ce) {
					return fmt.Errorf("round %d: Nursery returned %v", round, err)
				}
				if err := leaked.Go("after", func(*Task) error { return nil }); err == nil {
					return fmt.Errorf("round %d: a spawn into a nursery its owner left succeeded", round)
				}
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers=%d: %v", workers, res)
		}
		if n := late.Load(); n != 0 {
			t.Errorf("workers=%d: %d children spawned after the cancellation ran", workers, n)
		}
	}
}

// TestAdmitOpen: the owner of a lean nursery in a run without a sink has
// openCredit spawns admitted ahead as it opens it (admitOpen): the state
// machine counts them running and pending counts them before any spawn,
// and the first openCredit spawns spend them. Whatever the owner then
// does with them (spawns none, fewer, as many or more; cancels before
// its first spawn or after), every child that ran ended before the owner
// left, none spawned after the cancellation ran, and once the run is
// over Live is 0: the unspent credits were given back.
func TestAdmitOpen(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, spawns := range []int{0, 1, 2, 3, 5} {
			for _, cancelAt := range []int{-1, 0, 1, 2} { // -1: no cancel; else before that spawn
				name := fmt.Sprintf("workers=%d/spawns=%d/cancelAt=%d", workers, spawns, cancelAt)
				s := leanSched(t, workers)
				var ran, ended, late atomic.Int64
				res := runWithin(t, s, func(root *Task) error {
					for range 20 {
						err := root.Nursery(NurseryOptions{}, func(n *Nursery) error {
							n.mu.Lock()
							running, pending := n.m.Running(), n.fast.pending.Load()
							n.mu.Unlock()
							open := int64(openCredit)
							if n.credit != open || int64(running) != open || pending != open {
								return fmt.Errorf("opened with %d credits, %d running, pending %d; want %d each", n.credit, running, pending, open)
							}
							cancelled := false
							for i := range spawns {
								if i == cancelAt {
									n.Cancel(root)
									cancelled = true
								}
								spawnedLate := cancelled // a copy: the owner writes cancelled as the kids run
								if err := n.Go("kid", func(*Task) error {
									if spawnedLate {
										late.Add(1)
									}
									ran.Add(1)
									ended.Add(1)
									return nil
								}); err != nil {
									return err
								}
								if want := max(open-int64(i)-1, 0); !cancelled && i < openCredit && n.credit != want {
									return fmt.Errorf("%d credits after spawn %d, want %d", n.credit, i, want)
								}
							}
							return nil
						})
						if err != nil {
							return err
						}
						if ended.Load() != ran.Load() {
							return fmt.Errorf("the owner left with %d children ended of %d that ran", ended.Load(), ran.Load())
						}
					}
					return nil
				})
				if res.Kind != nursery.KindOK {
					t.Fatalf("%s: %v", name, res)
				}
				if late.Load() != 0 {
					t.Errorf("%s: %d children spawned after the cancellation ran", name, late.Load())
				}
				if cancelAt < 0 && ran.Load() != int64(20*spawns) {
					t.Errorf("%s: %d children ran, want %d", name, ran.Load(), 20*spawns)
				}
				if live := s.drv().Live(); live != 0 {
					t.Errorf("%s: Live %d after the run, want 0", name, live)
				}
			}
		}
	}
}
