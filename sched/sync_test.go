package sched

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
)

// underBoth runs fn as the root in real mode (Run) and under the seeded
// test driver (seeds 0..seeds-1), on 1, 2 and 4 workers, and fails t
// unless every run completes.
func underBoth(t *testing.T, seeds int, fn Func) {
	t.Helper()
	for _, workers := range []int{1, 2, 4} {
		s, err := New(Config{Workers: workers, Budget: Unlimited})
		if err != nil {
			t.Fatal(err)
		}
		if res := s.Run("main", fn); res.Kind != nursery.KindOK {
			t.Fatalf("real mode, %d workers: main = %s", workers, res)
		}
		for seed := range uint64(seeds) {
			_, res, ended := seededRun(t, Config{Workers: workers}, nil, seed, 1_000_000, fn)
			if !ended || res.Kind != nursery.KindOK {
				t.Fatalf("seeded, %d workers, seed %d: main = %s (ended %v)", workers, seed, res, ended)
			}
		}
	}
}

// check is an assertion inside a task body: it fails the task.
func check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// TestSelectChoosesAmongReady: with two cases ready, the seeded driver's
// decision takes either, by seed; real mode's draw too (fair).
func TestSelectChoosesAmongReady(t *testing.T) {
	seen := map[int]bool{}
	body := func(t *Task) error {
		a := NewChan[int](t.s, "a", 1)
		b := NewChan[int](t.s, "b", 1)
		if err := a.Send(t, 1); err != nil {
			return err
		}
		if err := b.Send(t, 2); err != nil {
			return err
		}
		var v int
		i, err := Select(t, a.RecvCase(&v, nil), b.RecvCase(&v, nil))
		if err != nil {
			return err
		}
		seen[i] = true
		return check(v == i+1, "case %d received %d", i, v)
	}
	for seed := range uint64(16) {
		if _, res, _ := seededRun(t, Config{Workers: 1}, nil, seed, 10_000, body); res.Kind != nursery.KindOK {
			t.Fatalf("seed %d: %s", seed, res)
		}
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("16 seeds chose only %v", seen)
	}
	clear(seen)
	for seed := range uint64(64) {
		s, _ := New(Config{Workers: 1, Budget: Unlimited, Seed: seed})
		if res := s.Run("main", body); res.Kind != nursery.KindOK {
			t.Fatal(res)
		}
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("real mode, 64 seeds chose only %v", seen)
	}
}

// TestSelectMeetsSelect: two Selects on the two sides of a rendezvous
// channel meet (the second completes the first), as Go's do.
func TestSelectMeetsSelect(t *testing.T) {
	underBoth(t, 32, func(t *Task) error {
		c := NewChan[int](t.s, "c", 0)
		never := NewChan[int](t.s, "never", 0)
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Go("sender", func(t *Task) error {
				i, err := Select(t, never.RecvCase(nil, nil), c.SendCase(7))
				if err != nil {
					return err
				}
				return check(i == 1, "sender took case %d", i)
			})
			var v int
			var ok bool
			i, err := Select(t, c.RecvCase(&v, &ok), NewChan[int](t.s, "never2", 0).SendCase(0))
			if err != nil {
				return err
			}
			return check(i == 0 && v == 7 && ok, "receiver: case %d, %d %v", i, v, ok)
		})
	})
}

// TestSelectWithPlainPartners: a waiting Select is completed by a plain
// Send, a plain Recv (buffered and not) and a Close.
func TestSelectWithPlainPartners(t *testing.T) {
	underBoth(t, 32, func(t *Task) error {
		in := NewChan[string](t.s, "in", 0)
		out := NewChan[string](t.s, "out", 1)
		done := NewChan[struct{}](t.s, "done", 0)
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Go("peer", func(t *Task) error {
				if err := in.Send(t, "x"); err != nil {
					return err
				}
				if err := t.Yield(); err != nil {
					return err
				}
				v, _, err := out.Recv(t) // frees the buffer: the waiting send case refills it
				if err != nil || v != "a" {
					return fmt.Errorf("out: %q %v", v, err)
				}
				return done.Close(t)
			})
			var got string
			if i, err := Select(t, in.RecvCase(&got, nil)); err != nil || i != 0 || got != "x" {
				return fmt.Errorf("recv case: %d %q %v", i, got, err)
			}
			for _, v := range []string{"a", "b"} {
				if _, err := Select(t, out.SendCase(v)); err != nil {
					return err
				}
			}
			var ok = true
			if i, err := Select(t, done.RecvCase(nil, &ok)); err != nil || i != 0 || ok {
				return fmt.Errorf("closed case: %d %v %v", i, ok, err)
			}
			v, _, err := out.Recv(t)
			return check(err == nil && v == "b", "left in out: %q %v", v, err)
		})
	})
}

// TestSelectDefaultAndTry: a default case is taken when nothing is ready;
// TrySend and TryRecv never block; Len and Cap.
func TestSelectDefaultAndTry(t *testing.T) {
	underBoth(t, 4, func(t *Task) error {
		c := NewChan[int](t.s, "c", 2)
		if i, err := Select(t, c.RecvCase(nil, nil), DefaultCase()); err != nil || i != 1 {
			return fmt.Errorf("default: %d %v", i, err)
		}
		for i := range 3 {
			sent, err := c.TrySend(t, i)
			if err != nil || sent != (i < 2) {
				return fmt.Errorf("TrySend %d: %v %v", i, sent, err)
			}
		}
		if c.Len() != 2 || c.Cap() != 2 {
			return fmt.Errorf("Len %d Cap %d", c.Len(), c.Cap())
		}
		v, ok, ready := c.TryRecv(t)
		if v != 0 || !ok || !ready {
			return fmt.Errorf("TryRecv: %d %v %v", v, ok, ready)
		}
		_, _, _ = c.TryRecv(t)
		if _, _, ready := c.TryRecv(t); ready {
			return errors.New("TryRecv of an empty channel was ready")
		}
		if err := c.Close(t); err != nil {
			return err
		}
		if _, ok, ready := c.TryRecv(t); !ready || ok {
			return errors.New("TryRecv of a closed channel: want ready, not ok")
		}
		if _, err := c.TrySend(t, 1); !errors.Is(err, ErrChannelClosed) {
			return fmt.Errorf("TrySend on closed: %v", err)
		}
		if _, err := Select(t, c.SendCase(1)); !errors.Is(err, ErrChannelClosed) {
			return fmt.Errorf("send case on closed: %v", err)
		}
		return nil
	})
}

// TestSelectCancelled: a task waiting in Select, in Lock, in RLock, in
// Cond.Wait and in WaitGroup.Wait is interrupted by its nursery's
// cancellation and returns the *CancelError; Cond.Wait returns with its
// lock held, so the deferred unlock is right.
func TestSelectCancelled(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		never := NewChan[int](t.s, "never", 0)
		var mu, held Mutex
		var rw RWMutex
		var wg WaitGroup
		wg.Add(1)
		cond := NewCond(&mu)
		_ = held.Lock(t)
		_ = rw.Lock(t)
		waits := map[string]func(t *Task) error{
			"select": func(t *Task) error { _, err := Select(t, never.RecvCase(nil, nil)); return err },
			"lock":   func(t *Task) error { return held.Lock(t) },
			"rlock":  func(t *Task) error { return rw.RLock(t) },
			"wlock":  func(t *Task) error { return rw.Lock(t) },
			"wait":   func(t *Task) error { return wg.Wait(t) },
			"cond": func(t *Task) error {
				if err := mu.Lock(t); err != nil {
					return err
				}
				defer mu.Unlock(t) // must be right after a cancelled Wait
				return cond.Wait(t)
			},
		}
		errs := map[string]error{}
		var errsMu sync.Mutex // a Go lock: the tasks run on several workers in real mode
		err := t.Nursery(NurseryOptions{Timeout: Ticks(time.Millisecond)}, func(n *Nursery) error {
			for _, name := range []string{"select", "lock", "rlock", "wlock", "wait", "cond"} {
				n.Go(name, func(t *Task) error {
					err := waits[name](t)
					errsMu.Lock()
					errs[name] = err
					errsMu.Unlock()
					return err
				})
			}
			return nil
		})
		if !errors.Is(err, ErrCancelled) && err != nil {
			return err
		}
		for name, e := range errs {
			if !errors.Is(e, ErrCancelled) {
				return fmt.Errorf("%s: %v, want a cancellation", name, e)
			}
		}
		held.Unlock(t)
		rw.Unlock(t)
		if !mu.TryLock(t) || !held.TryLock(t) || !rw.TryRLock(t) {
			return errors.New("a lock is still held after the cancelled waiters left")
		}
		return nil
	})
}

// TestMutexExcludes: increments under the lock from many tasks, each
// with a step boundary inside, are never lost.
func TestMutexExcludes(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		var mu Mutex
		count := 0
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range 8 {
				n.Go("inc", func(t *Task) error {
					for range 4 {
						if err := mu.Lock(t); err != nil {
							return err
						}
						c := count
						if err := t.Yield(); err != nil {
							mu.Unlock(t)
							return err
						}
						count = c + 1
						mu.Unlock(t)
					}
					return nil
				})
			}
			return nil
		})
		if err != nil {
			return err
		}
		return check(count == 32, "count %d, want 32", count)
	})
}

// TestRWMutexWriterPreference: while a writer waits, a new reader waits
// too; the readers waiting when the writer unlocks come in before the
// next writer.
func TestRWMutexWriterPreference(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		var rw RWMutex
		if err := rw.RLock(t); err != nil {
			return err
		}
		var order []string
		writerIn := NewChan[struct{}](t.s, "writer-in", 0)
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Go("writer", func(t *Task) error {
				if err := rw.Lock(t); err != nil {
					return err
				}
				order = append(order, "writer")
				rw.Unlock(t)
				return nil
			})
			for rw.TryLock(t) || rw.pendingWriters() == 0 { // until the writer waits
				if err := t.Yield(); err != nil {
					return err
				}
			}
			if rw.TryRLock(t) {
				return errors.New("TryRLock succeeded while a writer waits")
			}
			n.Go("reader", func(t *Task) error {
				if err := rw.RLock(t); err != nil {
					return err
				}
				order = append(order, "reader")
				rw.RUnlock(t)
				return nil
			})
			_ = writerIn
			rw.RUnlock(t)
			return nil
		})
		if err != nil {
			return err
		}
		return check(len(order) == 2 && order[0] == "writer", "order %v, want the writer first", order)
	})
}

// pendingWriters is the number of writers in Lock (tests).
func (rw *RWMutex) pendingWriters() int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.pendingW
}

// TestCondSignalBroadcast: a producer signals consumers one item at a
// time, then broadcasts the end; every item is consumed once.
func TestCondSignalBroadcast(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		var mu Mutex
		cond := NewCond(&mu)
		var queue []int
		closed := false
		consumed := 0
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range 3 {
				n.Go("consumer", func(t *Task) error {
					if err := mu.Lock(t); err != nil {
						return err
					}
					defer mu.Unlock(t)
					for {
						for len(queue) == 0 && !closed {
							if err := cond.Wait(t); err != nil {
								return err
							}
						}
						if len(queue) == 0 {
							return nil
						}
						queue = queue[1:]
						consumed++
					}
				})
			}
			for i := range 10 {
				if err := mu.Lock(t); err != nil {
					return err
				}
				queue = append(queue, i)
				cond.Signal(t)
				mu.Unlock(t)
			}
			if err := mu.Lock(t); err != nil {
				return err
			}
			closed = true
			cond.Broadcast(t)
			mu.Unlock(t)
			return nil
		})
		if err != nil {
			return err
		}
		return check(consumed == 10, "consumed %d, want 10", consumed)
	})
}

// TestWaitGroupCounts: Wait returns once every Done came, in another task
// than the spawner's.
func TestWaitGroupCounts(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		var wg WaitGroup
		var done atomic.Int32 // the workers run at once in real mode
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			wg.Add(5)
			for range 5 {
				n.Go("worker", func(t *Task) error {
					done.Add(1)
					wg.Done(t)
					return nil
				})
			}
			n.Go("waiter", func(t *Task) error {
				if err := wg.Wait(t); err != nil {
					return err
				}
				return check(done.Load() == 5, "Wait returned at %d of 5", done.Load())
			})
			return nil
		})
	})
}

// TestTimersVirtual: timers fire in time order on the virtual clock; a
// stopped timer never fires; a ticker ticks until stopped; SleepFor.
func TestTimersVirtual(t *testing.T) {
	for seed := range uint64(8) {
		_, res, ended := seededRun(t, Config{Workers: 2}, nil, seed, 1_000_000, func(t *Task) error {
			long := NewTimer(t, time.Second)
			short := After(t, time.Millisecond)
			stopped := NewTimer(t, 10*time.Millisecond)
			if !stopped.Stop() {
				return errors.New("Stop of a pending timer reported false")
			}
			var at time.Duration
			i, err := Select(t, long.C.RecvCase(&at, nil), short.RecvCase(&at, nil), stopped.C.RecvCase(nil, nil))
			if err != nil || i != 1 || at < time.Millisecond {
				return fmt.Errorf("first timer: case %d at %v, %v", i, at, err)
			}
			if long.Reset(2*time.Millisecond) != true {
				return errors.New("Reset of a pending timer reported false")
			}
			if _, _, err := long.C.Recv(t); err != nil {
				return err
			}
			tk := NewTicker(t, time.Millisecond)
			for range 3 {
				if _, _, err := tk.C.Recv(t); err != nil {
					return err
				}
			}
			tk.Stop()
			before := t.Elapsed()
			if err := t.SleepFor(5 * time.Millisecond); err != nil {
				return err
			}
			return check(t.Elapsed()-before >= 5*time.Millisecond, "slept %v", t.Elapsed()-before)
		})
		if !ended || res.Kind != nursery.KindOK {
			t.Fatalf("seed %d: %s", seed, res)
		}
	}
}

// TestTimersReal: the same in real mode, on the wall clock.
func TestTimersReal(t *testing.T) {
	s, _ := New(Config{Workers: 2, Budget: Unlimited})
	err := s.RunContext(context.Background(), "main", func(t *Task) error {
		tk := NewTicker(t, time.Millisecond)
		defer tk.Stop()
		deadline := After(t, time.Hour)
		for range 3 {
			i, err := Select(t, tk.C.RecvCase(nil, nil), deadline.RecvCase(nil, nil))
			if err != nil || i != 0 {
				return fmt.Errorf("case %d %v", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// doneCaseKey is TestDoneCase's context key.
type doneCaseKey struct{}

// TestDoneCase: a Select on another task's context wakes when that task
// is cancelled; a foreign context it would have to wait for is an error;
// context.Background's case is never ready.
func TestDoneCase(t *testing.T) {
	underBoth(t, 16, func(t *Task) error {
		// The watched task's nursery is cancelled by its owner, holder,
		// not by main: cancelling a nursery cancels its whole scope, the
		// canceller's own code in it too (docs/semantics.md), and main
		// must stay out of that scope to wait on the context.
		ctxs := NewChan[context.Context](t.s, "ctx", 1)
		own := NewChan[context.Context](t.s, "own", 1)
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Go("holder", func(t *Task) error {
				return t.Nursery(NurseryOptions{}, func(m *Nursery) error {
					m.Go("watched", func(t *Task) error {
						if err := own.Send(t, context.WithValue(t.Context(), doneCaseKey{}, 1)); err != nil {
							return err
						}
						_, err := Select(t, NewChan[int](t.s, "never", 0).RecvCase(nil, nil))
						return err
					})
					ctx, _, err := own.Recv(t)
					if err != nil {
						return err
					}
					if err := ctxs.Send(t, ctx); err != nil {
						return err
					}
					m.Cancel(t)
					return nil
				})
			})
			ctx, _, err := ctxs.Recv(t)
			if err != nil {
				return err
			}
			if i, err := Select(t, DoneCase(ctx), DoneCase(context.Background())); err != nil || i != 0 {
				return fmt.Errorf("DoneCase: %d %v", i, err)
			}
			return nil
		})
		if err != nil && !errors.Is(err, ErrCancelled) {
			return err
		}
		foreign, cancel := context.WithCancel(context.Background())
		defer cancel()
		if _, err := Select(t, DoneCase(foreign)); !errors.Is(err, ErrForeignContext) {
			return fmt.Errorf("foreign context: %v", err)
		}
		cancel()
		i, err := Select(t, DoneCase(foreign))
		return check(i == 0 && err == nil, "foreign context done: %d %v", i, err)
	})
}

// TestSelectStress: producers send through Selects of two send cases,
// consumers receive through Selects of two receive cases and a done
// case, on rendezvous and buffered channels, with a mutex-guarded total:
// every value arrives once, under both drivers on several workers.
func TestSelectStress(t *testing.T) {
	underBoth(t, 8, func(t *Task) error {
		a := NewChan[int](t.s, "a", 0)
		b := NewChan[int](t.s, "b", 2)
		done := NewChan[struct{}](t.s, "done", 0)
		var mu Mutex
		var wg WaitGroup
		sum, count := 0, 0
		const producers, each = 4, 25
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			wg.Add(producers)
			for p := range producers {
				n.Go("producer", func(t *Task) error {
					defer wg.Done(t)
					for i := range each {
						v := p*each + i + 1
						if _, err := Select(t, a.SendCase(v), b.SendCase(v)); err != nil {
							return err
						}
					}
					return nil
				})
			}
			for range 3 {
				n.Go("consumer", func(t *Task) error {
					for {
						var v int
						i, err := Select(t, a.RecvCase(&v, nil), b.RecvCase(&v, nil), done.RecvCase(nil, nil))
						if err != nil || i == 2 {
							return err
						}
						if err := mu.Lock(t); err != nil {
							return err
						}
						sum += v
						count++
						mu.Unlock(t)
					}
				})
			}
			n.Go("closer", func(t *Task) error {
				if err := wg.Wait(t); err != nil {
					return err
				}
				// Drain what the buffer still holds before telling the
				// consumers to stop: a Select may take done first.
				for b.Len() > 0 {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				return done.Close(t)
			})
			return nil
		})
		if err != nil {
			return err
		}
		total := producers * each
		return check(count == total && sum == total*(total+1)/2, "received %d values summing %d", count, sum)
	})
}

// TestAfterFunc: f runs in its own task once the time has passed; a
// stopped AfterFunc never runs f and its task ends, so the nursery ends.
func TestAfterFunc(t *testing.T) {
	underBoth(t, 8, func(t *Task) error {
		ran := NewChan[string](t.s, "ran", 2)
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			if _, err := AfterFunc(t, n, time.Millisecond, func(c *Task) error { return ran.Send(c, "fired") }); err != nil {
				return err
			}
			stopped, err := AfterFunc(t, n, time.Hour, func(c *Task) error { return ran.Send(c, "stopped one ran") })
			if err != nil {
				return err
			}
			if !stopped.Stop() {
				return errors.New("Stop of a pending AfterFunc reported false")
			}
			return nil
		})
		if err != nil {
			return err
		}
		v, _, ready := ran.TryRecv(t)
		_, _, more := ran.TryRecv(t)
		return check(ready && v == "fired" && !more, "ran %q %v, more %v", v, ready, more)
	})
}
