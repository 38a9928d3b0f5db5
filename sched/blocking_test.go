package sched

import (
	"context"
	"errors"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestBlockingFreesTheWorker: 64 tasks on 2 workers each wait 50 ms in
// Blocking. Were each wait to hold its worker the run would take 64*50/2 =
// 1.6 s; handed off, the waits overlap and it takes about one wait.
func TestBlockingFreesTheWorker(t *testing.T) {
	const tasks, wait = 64, 50 * time.Millisecond
	s, err := New(Config{Workers: 2, Budget: Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := runWithin(t, s, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range tasks {
				if err := n.Go("io", func(t *Task) error {
					return t.Blocking(func(ctx context.Context) error {
						select {
						case <-time.After(wait):
							return nil
						case <-ctx.Done():
							return ctx.Err()
						}
					})
				}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	took := time.Since(start)
	t.Logf("%d tasks of one %v Blocking wait on 2 workers: %v", tasks, wait, took)
	if res.Kind != nursery.KindOK {
		t.Fatalf("main = %s", res)
	}
	if took > 800*time.Millisecond {
		t.Fatalf("took %v: the waits did not overlap (held workers would take 1.6 s)", took)
	}
}

// TestBlockingCancelled: cancelling the nursery cancels every pending
// Blocking call's context at once; each call returns promptly and its
// task ends cancelled, not with the context's error.
func TestBlockingCancelled(t *testing.T) {
	const tasks = 64
	for _, workers := range []int{1, 2, 4} {
		s, err := New(Config{Workers: workers, Budget: Unlimited})
		if err != nil {
			t.Fatal(err)
		}
		var entered, cancelledSeen atomic.Int64
		var took time.Duration
		var cancelAt time.Time
		res := runWithin(t, s, func(root *Task) error {
			err := root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
				for range tasks {
					if err := n.Go("io", func(t *Task) error {
						err := t.Blocking(func(ctx context.Context) error {
							entered.Add(1)
							select {
							case <-time.After(time.Minute):
								return errors.New("never cancelled")
							case <-ctx.Done():
								var ce *CancelError
								if errors.As(context.Cause(ctx), &ce) && ce.Reason == nursery.ExplicitCancel {
									cancelledSeen.Add(1)
								}
								return ctx.Err()
							}
						})
						if !errors.Is(err, ErrCancelled) {
							return errors.New("Blocking returned " + err.Error() + ", want the cancellation")
						}
						return err
					}); err != nil {
						return err
					}
				}
				for entered.Load() < tasks {
					if err := root.Blocking(func(context.Context) error { time.Sleep(time.Millisecond); return nil }); err != nil {
						return err
					}
				}
				cancelAt = time.Now()
				n.Cancel(root)
				return nil
			})
			took = time.Since(cancelAt)
			return err
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		if cancelledSeen.Load() != tasks {
			t.Fatalf("workers %d: %d of %d contexts were cancelled with the task's CancelError", workers, cancelledSeen.Load(), tasks)
		}
		t.Logf("workers %d: %d pending Blocking calls cancelled, the nursery ended %v after Cancel", workers, tasks, took)
	}
}

// TestBlockingIsNotDeadlock: a task inside Blocking while every worker is
// idle and no timer is pending is not deadlocked: the call will wake it.
func TestBlockingIsNotDeadlock(t *testing.T) {
	s, err := New(Config{Workers: 2, Budget: Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	res := runWithin(t, s, func(root *Task) error {
		return root.Blocking(func(context.Context) error {
			time.Sleep(50 * time.Millisecond) // long past the workers' backoff
			return nil
		})
	})
	if res.Kind != nursery.KindOK || s.drv().Deadlocked() {
		t.Fatalf("main = %s, deadlocked %v", res, s.drv().Deadlocked())
	}
}

// TestBlockingPanicAndGoexit: a panic in fn is the task's panic; a Goexit
// in fn ends the task as a Goexit in its body does.
func TestBlockingPanicAndGoexit(t *testing.T) {
	s, err := New(Config{Workers: 2, Budget: Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	var panicked, exited error
	res := runWithin(t, s, func(root *Task) error {
		panicked = root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("panics", func(t *Task) error {
				return t.Blocking(func(context.Context) error { panic("in fn") })
			})
		})
		exited = root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("exits", func(t *Task) error {
				return t.Blocking(func(context.Context) error { runtime.Goexit(); return nil })
			})
		})
		return nil
	})
	var pe *PanicError
	if res.Kind != nursery.KindOK || !errors.As(panicked, &pe) || pe.Value != "in fn" || !strings.Contains(string(pe.Stack), "blocking_test.go") {
		t.Fatalf("main = %s; a panic in fn came back as %v", res, panicked)
	}
	if !errors.Is(exited, ErrGoexit) {
		t.Fatalf("a Goexit in fn came back as %v, want ErrGoexit", exited)
	}
}

// TestBlockingSeeded: under a driver that steps the scheduler itself, fn
// runs inline within the step, so two runs with one seed interleave the
// same way; a task already cancelled gets a cancelled context and
// observes the cancellation when fn returns.
func TestBlockingSeeded(t *testing.T) {
	run := func() []string {
		s, err := newWith(Config{Workers: 2, Seed: 7, Budget: Unlimited}, link.Options{Mode: link.SeededKeep})
		if err != nil {
			t.Fatal(err)
		}
		s.drv().Start("main", func(root *Task) error {
			return root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
				for i := range 4 {
					if err := n.Go("io", func(t *Task) error {
						return t.Blocking(func(ctx context.Context) error {
							t.ops().Log("blocking " + string(rune('a'+i)))
							if i == 1 {
								return errors.New("fails") // fail_fast: its siblings are cancelled
							}
							return nil
						})
					}); err != nil {
						return err
					}
				}
				return nil
			})
		})
		var rng xoshiro
		rng.Seed(11)
		for step := 0; !s.Done(); step++ {
			if step > 10_000 {
				t.Fatal("the seeded run did not end")
			}
			s.drv().Workers()[rng.Intn(2)].Step()
		}
		out := s.drv().Log()
		for _, tk := range s.drv().Tasks() {
			out = append(out, tk.Name()+" "+tk.Result().String())
		}
		return out
	}
	a, b := run(), run()
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("two seeded runs differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if len(a) < 5 {
		t.Fatalf("too little ran: %q", a)
	}
}
