package sched_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// A root task opens a nursery and spawns children into it. Nursery returns
// only once every child has finished, so the handles Spawn returned can be
// read right after it, whatever order the children ran in.
func ExampleScheduler_Run() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	var squares []*sched.Task
	var values [4]int64
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Label: "squares"}, func(n *sched.Nursery) error {
			for i := int64(1); i <= 3; i++ {
				child, err := n.Spawn(t, "square", func(t *sched.Task) error {
					values[i] = i * i
					return nil
				}, sched.SpawnOptions{})
				if err != nil {
					return err
				}
				squares = append(squares, child)
			}
			return nil
		})
	})
	for i, c := range squares {
		fmt.Println(c.Name(), c.Result(), values[i+1])
	}
	fmt.Println("main:", res)
	// Output:
	// square ok 1
	// square ok 4
	// square ok 9
	// main: ok
}

// Under fail_fast (the zero Mode) the first child error cancels the
// siblings that have not finished, and the nursery returns it to its owner
// as a *ChildError.
func ExampleChildError() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	var slow *sched.Task
	res := s.Run("main", func(t *sched.Task) error {
		err := t.Nursery(sched.NurseryOptions{Label: "jobs"}, func(n *sched.Nursery) error {
			var err error
			slow, err = n.Spawn(t, "slow", func(t *sched.Task) error {
				for {
					if err := t.Yield(); err != nil {
						return err // the cancellation: the task ends cancelled
					}
				}
			}, sched.SpawnOptions{})
			if err != nil {
				return err
			}
			_, err = n.Spawn(t, "bad", func(t *sched.Task) error {
				return errors.New("disk full")
			}, sched.SpawnOptions{})
			return err
		})
		var ce *sched.ChildError
		if errors.As(err, &ce) {
			fmt.Printf("nursery %s: first error %q (%s)\n", ce.Nursery, ce.Text, ce.Child)
		}
		return err
	})
	fmt.Println("slow:", slow.Result())
	fmt.Println("main:", res)
	// Output:
	// nursery jobs: first error "disk full" (err:disk full)
	// slow: cancelled:SiblingFailed
	// main: err:disk full
}

// A *ChildError unwraps to the error value the child returned, as
// errgroup's Wait returns it, so errors.Is and errors.As see through the
// nursery; a cancelled task's error matches ErrCancelled, and a refusal
// by the scheduler matches a *SchedError carrying only its code.
func ExampleChildError_Unwrap() {
	errNotFound := errors.New("not found")
	s, _ := sched.New(sched.Config{Workers: 1, Budget: sched.Unlimited})
	res := s.Run("main", func(t *sched.Task) error {
		err := t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			return n.Go("lookup", func(*sched.Task) error { return fmt.Errorf("user 7: %w", errNotFound) })
		})
		fmt.Println("is errNotFound:", errors.Is(err, errNotFound))

		err = t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			err := n.Go("loop", func(t *sched.Task) error {
				for {
					if err := t.Yield(); err != nil {
						fmt.Println("is ErrCancelled:", errors.Is(err, sched.ErrCancelled))
						return err
					}
				}
			})
			if err != nil {
				return err
			}
			if err := t.Yield(); err != nil { // let the child start
				return err
			}
			n.Cancel(t)
			return nil
		})
		fmt.Println("owner:", err) // a cancelled child is not a failure

		err = t.Nursery(sched.NurseryOptions{Budget: &sched.Budget{Ops: 10}}, func(n *sched.Nursery) error {
			return n.Go("one too many", func(*sched.Task) error { return nil })
		})
		fmt.Println("is SpawnBudgetExhausted:", errors.Is(err, sched.ErrSpawnBudgetExhausted))
		return nil
	})
	fmt.Println("main:", res)
	// Output:
	// is errNotFound: true
	// is ErrCancelled: true
	// owner: <nil>
	// is SpawnBudgetExhausted: true
	// main: ok
}

// A panic never crosses a task boundary: it becomes the task's result,
// with its stack kept for the report. Catch keeps the child's failure from
// failing the owner.
func ExamplePanicError() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	var child *sched.Task
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Mode: nursery.CollectAll, Catch: true}, func(n *sched.Nursery) error {
			var err error
			child, err = n.Spawn(t, "fragile", func(t *sched.Task) error {
				var m map[string]int
				//lint:ignore SA5000 the panic of a nil-map write is what the example shows caught
				m["x"] = 1 // assignment to entry in nil map
				return nil
			}, sched.SpawnOptions{})
			return err
		})
	})
	fmt.Println("fragile:", child.Result())
	fmt.Println("stack kept:", strings.Contains(string(child.PanicStack()), "ExamplePanicError"))
	fmt.Println("main:", res)
	// Output:
	// fragile: panic:assignment to entry in nil map
	// stack kept: true
	// main: ok
}

// Cancelling a nursery marks its unfinished children; each observes it at
// its next checkpoint (Checkpoint, Yield, a channel operation, Sleep) as a
// *CancelError carrying the reason, and ends cancelled by returning it. A
// cancelled nursery lets its owner go on.
func ExampleTask_Checkpoint() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	spin := func(t *sched.Task) error {
		for {
			err := t.Checkpoint()
			if err == nil {
				err = t.Yield()
			}
			var ce *sched.CancelError
			if errors.As(err, &ce) {
				fmt.Println("spinner observed", ce.Reason, "- cancelled:", t.IsCancelled())
				return err
			}
		}
	}
	var spinner *sched.Task
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Label: "work"}, func(n *sched.Nursery) error {
			var err error
			if spinner, err = n.Spawn(t, "spinner", spin, sched.SpawnOptions{}); err != nil {
				return err
			}
			if err := t.Yield(); err != nil { // let the spinner start
				return err
			}
			n.Cancel(t)
			return nil
		})
	})
	fmt.Println("spinner:", spinner.Result())
	fmt.Println("main:", res)
	// Output:
	// spinner observed ExplicitCancel - cancelled: true
	// spinner: cancelled:ExplicitCancel
	// main: ok
}

// Defer and Using push cleanups that run in reverse order on every way
// out, including a failure.
func ExampleTask_Using() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	res := s.Run("main", func(t *sched.Task) error {
		t.Defer("close log", func(t *sched.Task) error { fmt.Println("close log"); return nil })
		return t.Using("db", func() error {
			t.Defer("rollback", func(t *sched.Task) error { fmt.Println("rollback"); return nil })
			fmt.Println("query")
			return errors.New("constraint violated")
		})
	})
	fmt.Println("main:", res)
	// Output:
	// query
	// rollback
	// close log
	// main: err:constraint violated
}

// A Chan carries values between tasks. A sender blocks while the
// channel is full, a receiver while it is empty; after Close a receiver
// drains what is left and then gets ok == false.
func ExampleChan_Close() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	jobs := sched.NewChan[int64](s, "jobs", 2)
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			if _, err := n.Spawn(t, "producer", func(t *sched.Task) error {
				for v := int64(1); v <= 5; v++ {
					if err := jobs.Send(t, v); err != nil {
						return err
					}
				}
				return jobs.Close(t)
			}, sched.SpawnOptions{}); err != nil {
				return err
			}
			_, err := n.Spawn(t, "consumer", func(t *sched.Task) error {
				for {
					v, ok, err := jobs.Recv(t)
					if err != nil || !ok {
						return err
					}
					fmt.Println("got", v)
				}
			}, sched.SpawnOptions{})
			return err
		})
	})
	fmt.Println("main:", res)
	// Output:
	// got 1
	// got 2
	// got 3
	// got 4
	// got 5
	// main: ok
}

// Chan carries values of any type between tasks, with a channel's
// blocking, closing and cancellation; Ticks turns a time.Duration into the
// ticks Sleep and NurseryOptions.Timeout take.
func ExampleChan() {
	type job struct {
		id   int
		path string
	}
	s, _ := sched.New(sched.Config{Workers: 2, Budget: sched.Unlimited})
	jobs := sched.NewChan[job](s, "jobs", 0)
	var done atomic.Int64
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Timeout: sched.Ticks(10 * time.Second)}, func(n *sched.Nursery) error {
			for range 3 {
				err := n.Go("worker", func(t *sched.Task) error {
					for {
						j, ok, err := jobs.Recv(t)
						if err != nil || !ok {
							return err
						}
						if j.path == "" {
							return fmt.Errorf("job %d: no path", j.id)
						}
						done.Add(1)
					}
				})
				if err != nil {
					return err
				}
			}
			for i, p := range []string{"a", "b", "c", "d"} {
				if err := jobs.Send(t, job{i, p}); err != nil {
					return err
				}
			}
			return jobs.Close(t)
		})
	})
	fmt.Println(res, done.Load())
	// Output: ok 4
}

// Sleep blocks a task for a number of ticks (RealTickNanos each in real
// mode) without holding its worker; a nursery's Timeout, also in ticks,
// cancels what is still running when it fires.
func ExampleTask_Sleep() {
	s, err := sched.New(sched.Config{Workers: 1})
	if err != nil {
		panic(err)
	}
	nap := func(ticks int64) sched.Func {
		return func(t *sched.Task) error {
			if err := t.Sleep(ticks); err != nil {
				return err
			}
			fmt.Println("woke after", ticks, "ticks")
			return nil
		}
	}
	var long *sched.Task
	res := s.Run("main", func(t *sched.Task) error {
		err := t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			if _, err := n.Spawn(t, "a", nap(4000), sched.SpawnOptions{}); err != nil {
				return err
			}
			_, err := n.Spawn(t, "b", nap(1000), sched.SpawnOptions{})
			return err
		})
		if err != nil {
			return err
		}
		// A minute-long sleep under a 2 ms timeout.
		return t.Nursery(sched.NurseryOptions{Timeout: 2000}, func(n *sched.Nursery) error {
			var err error
			long, err = n.Spawn(t, "long", nap(60_000_000), sched.SpawnOptions{})
			return err
		})
	})
	fmt.Println("long:", long.Result())
	fmt.Println("main:", res)
	// Output:
	// woke after 1000 ticks
	// woke after 4000 ticks
	// long: cancelled:Timeout
	// main: ok
}

// Budgets bound what a task may do. spawn_count is a quota on a task's
// whole subtree: past it, Spawn fails the spawner with
// SpawnBudgetExhausted.
func ExampleBudget() {
	b := sched.DefaultBudget
	b.SpawnCount = 2
	s, err := sched.New(sched.Config{Workers: 1, Budget: b})
	if err != nil {
		panic(err)
	}
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Label: "kids"}, func(n *sched.Nursery) error {
			for i := 1; ; i++ {
				_, err := n.Spawn(t, "child", func(*sched.Task) error { return nil }, sched.SpawnOptions{})
				var se *sched.SchedError
				if errors.As(err, &se) {
					fmt.Printf("spawn %d: %s (%s)\n", i, se.Code, se.Detail)
					return err
				}
			}
		})
	})
	fmt.Println("main:", res)
	// Output:
	// spawn 3: SpawnBudgetExhausted (nursery kids)
	// main: err:SpawnBudgetExhausted
}

// Under the sovereign profile a task holds only the capabilities it was
// given: the root those set before it starts, a child at most its
// spawner's. Asking for more, or spawning without CapSpawn, fails with
// CapabilityDenied.
func ExampleCaps() {
	s, err := sched.New(sched.Config{Workers: 1, Profile: sched.ProfileSovereign,
		RootCaps: sched.CapSpawn | sched.CapChannel})
	if err != nil {
		panic(err)
	}
	res := s.Run("main", func(t *sched.Task) error {
		fmt.Println("main holds:", t.Caps())
		return t.Nursery(sched.NurseryOptions{Mode: nursery.CollectAll, Catch: true}, func(n *sched.Nursery) error {
			_, err := n.Spawn(t, "io", func(*sched.Task) error { return nil },
				sched.SpawnOptions{Caps: sched.CapIO, HasCaps: true})
			fmt.Println("spawn with io:", err)
			// A child holding only channel may not spawn in turn.
			_, err = n.Spawn(t, "leaf", func(t *sched.Task) error {
				return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
					_, err := n.Spawn(t, "grandchild", func(*sched.Task) error { return nil }, sched.SpawnOptions{})
					var se *sched.SchedError
					if errors.As(err, &se) {
						fmt.Println("leaf spawning:", se.Code+":", se.Detail)
					}
					return err
				})
			}, sched.SpawnOptions{Caps: sched.CapChannel, HasCaps: true})
			return err
		})
	})
	fmt.Println("main:", res)
	// Output:
	// main holds: spawn,channel
	// spawn with io: CapabilityDenied: spawn asks for io which the spawner lacks
	// leaf spawning: CapabilityDenied: spawn without the spawn capability
	// main: ok
}

// ExampleNursery_Go: the shortest form, for a Go program that wants
// structured concurrency without quotas: an Unlimited budget, Nursery.Go,
// and the modes re-exported by this package.
func ExampleNursery_Go() {
	s, _ := sched.New(sched.Config{Workers: 2, Budget: sched.Unlimited})
	var sum atomic.Int64
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Mode: sched.CollectAll}, func(n *sched.Nursery) error {
			for i := int64(1); i <= 1000; i++ {
				if err := n.Go("add", func(*sched.Task) error { sum.Add(i); return nil }); err != nil {
					return err
				}
			}
			return nil
		})
	})
	fmt.Println(res, sum.Load())
	// Output: ok 500500
}

// MaxConcurrent bounds how many children of a nursery run at once: the
// others wait, and are admitted in spawn order as running ones end. (Such a
// nursery keeps a record per child, since it tells waiting children from
// running ones.)
func ExampleNurseryOptions() {
	s, _ := sched.New(sched.Config{Workers: 4, Budget: sched.Unlimited})
	var running, peak atomic.Int64
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Label: "downloads", MaxConcurrent: 2}, func(n *sched.Nursery) error {
			for range 10 {
				err := n.Go("download", func(t *sched.Task) error {
					now := running.Add(1)
					defer running.Add(-1)
					for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
					}
					return t.Yield()
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
	fmt.Println(res, "at most 2 at once:", peak.Load() <= 2)
	// Output: ok at most 2 at once: true
}
