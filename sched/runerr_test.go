package sched

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestRunContextErrors: RunContext returns the body's own error value
// (errors.Is sees through a nursery's ChildError), the *CancelError with
// the context's cause when ctx cancels the root, and ErrSchedulerUsed
// for a second run, as Run returns err:SchedulerUsed.
func TestRunContextErrors(t *testing.T) {
	s, _ := New(Config{Workers: 2, Budget: Unlimited})
	err := s.RunContext(context.Background(), "main", func(t *Task) error {
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			n.Go("child", func(*Task) error { return &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist} })
			return nil
		})
	})
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Fatalf("RunContext = %v, want an error that is fs.ErrNotExist", err)
	}
	if err := s.RunContext(context.Background(), "again", func(*Task) error { return nil }); !errors.Is(err, ErrSchedulerUsed) {
		t.Fatalf("second RunContext = %v, want ErrSchedulerUsed", err)
	}
	if res := s.Run("again", func(*Task) error { return nil }); res.String() != "err:SchedulerUsed" {
		t.Fatalf("second Run = %s, want err:SchedulerUsed", res)
	}

	s, _ = New(Config{Workers: 2, Budget: Unlimited})
	ctx, cancel := context.WithCancel(context.Background())
	err = s.RunContext(ctx, "main", func(t *Task) error {
		started := NewChan[int](t.s, "never", 0)
		cancel()
		_, _, err := started.Recv(t) // waits until the context cancels the root
		return err
	})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext after cancel = %v, want ErrCancelled and context.Canceled", err)
	}

	s, _ = New(Config{Workers: 1, Budget: Unlimited})
	if err := s.RunContext(context.Background(), "main", func(*Task) error { panic("boom") }); !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a panic: %v", err)
	} else if _, ok := err.(*PanicError); !ok {
		t.Fatalf("a panic: %T, want *PanicError", err)
	}
}

// TestForeignChan: an operation on a Chan of another Scheduler is an
// error, not a silent success.
func TestForeignChan(t *testing.T) {
	other, _ := New(Config{Workers: 1, Budget: Unlimited})
	c := NewChan[int](other, "theirs", 1)
	s, _ := New(Config{Workers: 1, Budget: Unlimited})
	err := s.RunContext(context.Background(), "main", func(t *Task) error {
		for name, op := range map[string]func() error{
			"Send":   func() error { return c.Send(t, 1) },
			"Recv":   func() error { _, _, err := c.Recv(t); return err },
			"Close":  func() error { return c.Close(t) },
			"Select": func() error { _, err := Select(t, c.SendCase(1)); return err },
			"TrySend": func() error {
				_, err := c.TrySend(t, 1)
				return err
			},
		} {
			if err := op(); !errors.Is(err, ErrForeignChan) {
				return errors.New(name + ": " + errString(err))
			}
		}
		if _, _, ready := c.TryRecv(t); ready {
			return errors.New("TryRecv of a foreign Chan was ready")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil, want ErrForeignChan"
	}
	return err.Error()
}

// TestYieldOnFinishedTask: Yield on a task that has finished panics
// with a sentence, not a nil dereference.
func TestYieldOnFinishedTask(t *testing.T) {
	var finished *Task
	s, _ := New(Config{Workers: 1, Budget: Unlimited})
	s.Run("main", func(t *Task) error {
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			c, err := n.Spawn(t, "child", func(*Task) error { return nil }, SpawnOptions{})
			finished = c
			return err
		})
	})
	defer func() {
		r := recover()
		if msg, ok := r.(string); !ok || !strings.Contains(msg, "is not running") {
			t.Fatalf("panic %v, want a sentence saying the task is not running", r)
		}
	}()
	finished.Yield()
}

// TestYieldFromForeignGoroutine: Yield called from a goroutine of the
// body's while the task is blocked panics with a sentence, not an
// iter.Pull race.
func TestYieldFromForeignGoroutine(t *testing.T) {
	s, _ := New(Config{Workers: 1, Budget: Unlimited})
	got := make(chan any, 1)
	err := s.RunContext(context.Background(), "main", func(t *Task) error {
		return t.Blocking(func(context.Context) error {
			// t is blocked in Blocking: this goroutine is not its body.
			func() {
				defer func() { got <- recover() }()
				t.Yield()
			}()
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg, ok := (<-got).(string); !ok || !strings.Contains(msg, "is not running") {
		t.Fatalf("panic %v, want a sentence saying the task is not running", msg)
	}
}
