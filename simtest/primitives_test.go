package simtest

import (
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

// primitivesBody uses every primitive of issue 27 in one correct program:
// Check must pass it on every seed and worker count.
func primitivesBody(t *sched.Task) error {
	var mu sched.Mutex
	var rw sched.RWMutex
	var wg sched.WaitGroup
	cond := sched.NewCond(&mu)
	count, shared, ready := 0, 0, false
	a := sched.NewChan[int](t.Scheduler(), "a", 0)
	b := sched.NewChan[int](t.Scheduler(), "b", 1)
	return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
		for i := 0; i < 4; i++ {
			wg.Add(1)
			n.Go("w", func(t *sched.Task) error {
				defer wg.Done(t)
				if err := mu.Lock(t); err != nil {
					return err
				}
				defer mu.Unlock(t)
				count++
				return nil
			})
			n.Go("r", func(t *sched.Task) error {
				if err := rw.RLock(t); err != nil {
					return err
				}
				_ = shared
				rw.RUnlock(t)
				return nil
			})
		}
		n.Go("writer", func(t *sched.Task) error {
			if err := rw.Lock(t); err != nil {
				return err
			}
			shared++
			rw.Unlock(t)
			return nil
		})
		n.Go("waiter", func(t *sched.Task) error {
			if err := mu.Lock(t); err != nil {
				return err
			}
			defer mu.Unlock(t)
			for !ready {
				if err := cond.Wait(t); err != nil {
					return err
				}
			}
			return nil
		})
		n.Go("sa", func(t *sched.Task) error { return a.Send(t, 1) })
		n.Go("sb", func(t *sched.Task) error {
			_, err := sched.Select(t, b.SendCase(2), a.SendCase(2))
			return err
		})
		got := 0
		for range 2 {
			var v int
			if _, err := sched.Select(t, a.RecvCase(&v, nil), b.RecvCase(&v, nil)); err != nil {
				return err
			}
			got += v
		}
		if got != 3 {
			panic(got)
		}
		if err := wg.Wait(t); err != nil {
			return err
		}
		if err := mu.Lock(t); err != nil {
			return err
		}
		ready = true
		cond.Broadcast(t)
		mu.Unlock(t)
		if _, err := sched.Select(t, sched.After(t, time.Millisecond).RecvCase(nil, nil)); err != nil {
			return err
		}
		if count != 4 {
			panic(count)
		}
		return nil
	})
}

func TestPrimitivesUnderDriver(t *testing.T) {
	Check(t, primitivesBody, Seeds(50))
}

// TestPrimitivesAreStepBoundaries: bugs that exist only between two
// calls of the new primitives are found, so each call is a point the
// chooser interleaves at: a lost update across two lock sections, a
// Cond's lost wake-up (Signal before Wait, no predicate), a WaitGroup
// waited for before Add, and a Select whose default drops a message.
func TestPrimitivesAreStepBoundaries(t *testing.T) {
	bugs := map[string]sched.Func{
		"lost-update": func(t *sched.Task) error {
			var mu sched.Mutex
			x := 0
			err := t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				for range 2 {
					n.Go("inc", func(t *sched.Task) error {
						if err := mu.Lock(t); err != nil {
							return err
						}
						v := x
						mu.Unlock(t)
						if err := mu.Lock(t); err != nil {
							return err
						}
						x = v + 1
						mu.Unlock(t)
						return nil
					})
				}
				return nil
			})
			if err == nil && x != 2 {
				panic("lost update")
			}
			return err
		},
		"cond-lost-wakeup": func(t *sched.Task) error {
			var mu sched.Mutex
			cond := sched.NewCond(&mu)
			return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				n.Go("waiter", func(t *sched.Task) error {
					if err := mu.Lock(t); err != nil {
						return err
					}
					defer mu.Unlock(t)
					return cond.Wait(t) // no predicate: a Signal before it is lost
				})
				n.Go("signaller", func(t *sched.Task) error {
					cond.Signal(t)
					return nil
				})
				return nil
			})
		},
		"select-default-drops": func(t *sched.Task) error {
			c := sched.NewChan[int](t.Scheduler(), "c", 0)
			got := 0
			err := t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				n.Go("sender", func(t *sched.Task) error {
					_, err := sched.Select(t, c.SendCase(1), sched.DefaultCase()) // dropped if no one waits yet
					return err
				})
				n.Go("receiver", func(t *sched.Task) error {
					i, err := sched.Select(t, c.RecvCase(&got, nil), sched.DefaultCase())
					if err == nil && i == 1 {
						_, err = sched.Select(t, c.RecvCase(&got, nil), sched.After(t, time.Second).RecvCase(nil, nil))
					}
					return err
				})
				return nil
			})
			if err == nil && got != 1 {
				panic("message dropped")
			}
			return err
		},
	}
	for name, body := range bugs {
		t.Run(name, func(t *testing.T) {
			for _, st := range []string{"random", "explore"} {
				tl := Count(t, body, Strategy(st), Workers(1, 2), Seeds(100), Repeat(1))
				t.Logf("%s: %d of %d runs fail, the first at run %d: %s", st, tl.Failed, tl.Runs, tl.First, tl.FirstWhat)
				if tl.Failed == 0 {
					t.Errorf("%s: the bug was not found in %d runs", st, tl.Runs)
				}
			}
		})
	}
}

// TestTickerDeadlock: a run whose tasks are all blocked while a Ticker
// nobody receives from keeps ticking is a deadlock, found at once; it was
// a livelock that jumped the virtual clock until the event limit (146 MB
// of trace, 8 s a run). A Ticker someone waits on keeps the run going.
func TestTickerDeadlock(t *testing.T) {
	tl := Count(t, func(t *sched.Task) error {
		tk := sched.NewTicker(t, time.Millisecond)
		defer tk.Stop()
		never := sched.NewChan[int](t.Scheduler(), "never", 0)
		_, _, err := never.Recv(t)
		return err
	}, Seeds(5), Workers(1, 2), Repeat(1))
	if tl.Failed != tl.Runs || tl.FirstWhat != "deadlock: every task is blocked and none can wake another" {
		t.Fatalf("tally %+v: want every run a deadlock", tl)
	}
	Check(t, func(t *sched.Task) error {
		tk := sched.NewTicker(t, time.Millisecond)
		defer tk.Stop()
		for range 5 {
			if _, _, err := tk.C.Recv(t); err != nil {
				return err
			}
		}
		return nil
	}, Seeds(5))
}
