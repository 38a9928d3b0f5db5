package sched_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

// run is the examples' real-mode run on one worker.
func run(fn sched.Func) error {
	s, err := sched.New(sched.Config{Workers: 1, Budget: sched.Unlimited})
	if err != nil {
		return err
	}
	return s.RunContext(context.Background(), "main", fn)
}

// Select waits on several channel operations and makes one proceed: here
// a result or a timeout, the most common Go select.
func ExampleSelect() {
	err := run(func(t *sched.Task) error {
		results := sched.NewChan[string](t.Scheduler(), "results", 0)
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			n.Go("worker", func(t *sched.Task) error {
				if err := t.SleepFor(10 * time.Millisecond); err != nil {
					return err
				}
				_, err := sched.Select(t, results.SendCase("done"), sched.DoneCase(t.Context()))
				return err
			})
			var got string
			i, err := sched.Select(t, results.RecvCase(&got, nil), sched.After(t, time.Minute).RecvCase(nil, nil))
			if err != nil {
				return err
			}
			fmt.Println("case", i, got)
			return nil
		})
	})
	fmt.Println("err:", err)
	// Output:
	// case 0 done
	// err: <nil>
}

// DefaultCase makes Select non-blocking.
func ExampleDefaultCase() {
	_ = run(func(t *sched.Task) error {
		c := sched.NewChan[int](t.Scheduler(), "c", 0)
		i, err := sched.Select(t, c.RecvCase(nil, nil), sched.DefaultCase())
		fmt.Println(i, err)
		return nil
	})
	// Output: 1 <nil>
}

// A Mutex guards shared state between tasks; Unlock never fails, so a
// deferred Unlock is right on every path.
func ExampleMutex() {
	var mu sched.Mutex
	total := 0
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			for i := 1; i <= 4; i++ {
				n.Go("add", func(t *sched.Task) error {
					if err := mu.Lock(t); err != nil {
						return err
					}
					defer mu.Unlock(t)
					total += i
					return nil
				})
			}
			return nil
		})
	})
	fmt.Println(total, err)
	// Output: 10 <nil>
}

// TryLock takes a Mutex only if it is free.
func ExampleMutex_TryLock() {
	_ = run(func(t *sched.Task) error {
		var mu sched.Mutex
		fmt.Println(mu.TryLock(t), mu.TryLock(t))
		mu.Unlock(t)
		return nil
	})
	// Output: true false
}

// An RWMutex lets readers share; a waiting writer keeps new readers out.
func ExampleRWMutex() {
	var rw sched.RWMutex
	config := map[string]string{"mode": "a"}
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			n.Go("writer", func(t *sched.Task) error {
				if err := rw.Lock(t); err != nil {
					return err
				}
				defer rw.Unlock(t)
				config["mode"] = "b"
				return nil
			})
			if err := rw.RLock(t); err != nil {
				return err
			}
			defer rw.RUnlock(t)
			fmt.Println("can read while no writer holds it:", rw.TryRLock(t))
			rw.RUnlock(t)
			return nil
		})
	})
	fmt.Println(config["mode"], err)
	// Output:
	// can read while no writer holds it: true
	// b <nil>
}

// A Cond lets tasks wait for a condition under a Mutex.
func ExampleCond() {
	var mu sched.Mutex
	cond := sched.NewCond(&mu)
	ready := false
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			n.Go("waiter", func(t *sched.Task) error {
				if err := mu.Lock(t); err != nil {
					return err
				}
				defer mu.Unlock(t) // Wait returns with the lock held, even cancelled
				for !ready {
					if err := cond.Wait(t); err != nil {
						return err
					}
				}
				fmt.Println("ready")
				return nil
			})
			if err := mu.Lock(t); err != nil {
				return err
			}
			ready = true
			cond.Broadcast(t)
			mu.Unlock(t)
			return nil
		})
	})
	fmt.Println(err)
	// Output:
	// ready
	// <nil>
}

// A WaitGroup counts tasks that a task other than their spawner waits for.
func ExampleWaitGroup() {
	var wg sched.WaitGroup
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			wg.Add(3)
			for range 3 {
				n.Go("job", func(t *sched.Task) error {
					defer wg.Done(t)
					return nil
				})
			}
			n.Go("reporter", func(t *sched.Task) error {
				if err := wg.Wait(t); err != nil {
					return err
				}
				fmt.Println("all three done")
				return nil
			})
			return nil
		})
	})
	fmt.Println(err)
	// Output:
	// all three done
	// <nil>
}

// TrySend sends only if the channel can take the value now.
func ExampleChan_TrySend() {
	_ = run(func(t *sched.Task) error {
		c := sched.NewChan[int](t.Scheduler(), "c", 1)
		for i := range 2 {
			sent, err := c.TrySend(t, i)
			fmt.Println(sent, err, c.Len(), c.Cap())
		}
		return nil
	})
	// Output:
	// true <nil> 1 1
	// false <nil> 1 1
}

// TryRecv receives only if a value is there now.
func ExampleChan_TryRecv() {
	_ = run(func(t *sched.Task) error {
		c := sched.NewChan[string](t.Scheduler(), "c", 1)
		_, _, ready := c.TryRecv(t)
		fmt.Println(ready)
		_ = c.Send(t, "x")
		v, ok, ready := c.TryRecv(t)
		fmt.Println(v, ok, ready)
		return nil
	})
	// Output:
	// false
	// x true true
}

// A Timer fires once; Stop keeps it from firing.
func ExampleNewTimer() {
	_ = run(func(t *sched.Task) error {
		tm := sched.NewTimer(t, time.Hour)
		fmt.Println(tm.Stop())
		tm.Reset(time.Millisecond)
		_, _, err := tm.C.Recv(t)
		fmt.Println(err)
		return nil
	})
	// Output:
	// true
	// <nil>
}

// A Ticker ticks until stopped.
func ExampleNewTicker() {
	_ = run(func(t *sched.Task) error {
		tk := sched.NewTicker(t, time.Millisecond)
		defer tk.Stop()
		for range 3 {
			if _, _, err := tk.C.Recv(t); err != nil {
				return err
			}
		}
		fmt.Println("three ticks")
		return nil
	})
	// Output: three ticks
}

// DoneCase waits on a task's context as `case <-ctx.Done()` does: here
// the nursery's timeout cancels the child, which closes its context.
func ExampleDoneCase() {
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Timeout: sched.Ticks(time.Millisecond)}, func(n *sched.Nursery) error {
			n.Go("waits", func(t *sched.Task) error {
				never := sched.NewChan[int](t.Scheduler(), "never", 0)
				i, err := sched.Select(t, never.RecvCase(nil, nil), sched.DoneCase(t.Context()))
				fmt.Println("case", i, err, errors.Is(context.Cause(t.Context()), sched.ErrCancelled))
				return nil
			})
			return nil
		})
	})
	fmt.Println(err)
	// Output:
	// case 1 <nil> true
	// <nil>
}

// RunContext returns the root's error for errors.Is and errors.As, and a
// scheduler runs once.
func ExampleScheduler_RunContext() {
	errNotFound := errors.New("not found")
	s, _ := sched.New(sched.Config{Workers: 1, Budget: sched.Unlimited})
	err := s.RunContext(context.Background(), "main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			n.Go("lookup", func(*sched.Task) error { return fmt.Errorf("lookup: %w", errNotFound) })
			return nil
		})
	})
	fmt.Println(errors.Is(err, errNotFound))
	err = s.RunContext(context.Background(), "again", func(*sched.Task) error { return nil })
	fmt.Println(errors.Is(err, sched.ErrSchedulerUsed))
	// Output:
	// true
	// true
}

// SleepFor sleeps for a time.Duration: virtual time under the seeded
// driver, wall time in real mode.
func ExampleTask_SleepFor() {
	_ = run(func(t *sched.Task) error {
		err := t.SleepFor(time.Millisecond)
		fmt.Println(err, t.Elapsed() >= time.Millisecond)
		return nil
	})
	// Output: <nil> true
}

// AfterFunc runs a function in a task of its own once the time has
// passed; the nursery waits for it.
func ExampleAfterFunc() {
	err := run(func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			_, err := sched.AfterFunc(t, n, time.Millisecond, func(t *sched.Task) error {
				fmt.Println("fired")
				return nil
			})
			return err
		})
	})
	fmt.Println(err)
	// Output:
	// fired
	// <nil>
}
