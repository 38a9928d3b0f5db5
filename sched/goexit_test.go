package sched

import (
	"errors"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestGoexitEndsTheTask: runtime.Goexit in a task body, in a cleanup and in
// a nursery body whose children still run ends that task as a panic with
// ErrGoexit; its cleanups run, its nursery's children are cancelled and
// awaited, no worker dies and the run ends, on 1 and 4 workers, lean and
// kept.
func TestGoexitEndsTheTask(t *testing.T) {
	for _, keep := range []bool{false, true} {
		for _, workers := range []int{1, 4} {
			s, err := newWith(Config{Workers: workers, Budget: Unlimited}, link.Options{Mode: realMode(keep)})
			if err != nil {
				t.Fatal(err)
			}
			var cleanups, childrenStarted, childrenCancelled atomic.Int64
			const exiters = 200
			var nested error
			childrenStarted.Store(0)
			res := runWithin(t, s, func(root *Task) error {
				err := root.Nursery(NurseryOptions{Label: "exiters", Mode: nursery.CollectAll, Catch: true}, func(n *Nursery) error {
					for i := range exiters {
						if err := n.Go("exit", func(t *Task) error {
							t.Defer("count", func(*Task) error { cleanups.Add(1); return nil })
							if i%2 == 0 {
								if err := t.Yield(); err != nil {
									return err
								}
							}
							if i%3 == 0 {
								t.Defer("exit in a cleanup", func(*Task) error { runtime.Goexit(); return nil })
								return nil
							}
							runtime.Goexit()
							return errors.New("unreachable")
						}); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
				nested = root.Nursery(NurseryOptions{Label: "outer"}, func(n *Nursery) error {
					return n.Go("owner", func(o *Task) error {
						return o.Nursery(NurseryOptions{Label: "inner"}, func(in *Nursery) error {
							for range 8 {
								if err := in.Go("spin", func(t *Task) error {
									childrenStarted.Add(1)
									err := spinUntilCancelled(t)
									if errors.Is(err, ErrCancelled) {
										childrenCancelled.Add(1)
									}
									return err
								}); err != nil {
									return err
								}
							}
							for childrenStarted.Load() < 8 {
								if err := o.Yield(); err != nil {
									return err
								}
							}
							runtime.Goexit() // with 8 children running
							return nil
						})
					})
				})
				return nil
			})
			if res.Kind != nursery.KindOK {
				t.Fatalf("keep %v, workers %d: main = %s", keep, workers, res)
			}
			if got := cleanups.Load(); got != exiters {
				t.Fatalf("keep %v, workers %d: %d cleanups ran, want %d", keep, workers, got, exiters)
			}
			if !errors.Is(nested, ErrGoexit) || !strings.Contains(nested.Error(), ErrGoexit.Error()) {
				t.Fatalf("keep %v, workers %d: a Goexit in a nursery body came back as %v, want ErrGoexit", keep, workers, nested)
			}
			if got := childrenCancelled.Load(); got != 8 {
				t.Fatalf("keep %v, workers %d: %d of the nursery's 8 children were cancelled", keep, workers, got)
			}
			if s.drv().Live() != 0 {
				t.Fatalf("keep %v, workers %d: %d tasks still live", keep, workers, s.drv().Live())
			}
		}
	}
}

// TestFailNowInATask: t.FailNow (a Goexit) called in a task of a test fails
// that test and ends the run; it neither hangs nor kills a worker. The test
// runs itself in a child process, whose failure is the expected outcome.
func TestFailNowInATask(t *testing.T) {
	if os.Getenv("SCHED_FAILNOW_CHILD") == "1" {
		for _, workers := range []int{1, 4} {
			s, err := New(Config{Workers: workers, Budget: Unlimited})
			if err != nil {
				t.Fatal(err)
			}
			res := s.Run("main", func(root *Task) error {
				return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
					return n.Go("fails", func(*Task) error {
						t.FailNow()
						return nil
					})
				})
			})
			t.Logf("workers %d: main = %s", workers, res)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailNowInATask$", "-test.v")
	cmd.Env = append(os.Environ(), "SCHED_FAILNOW_CHILD=1")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("a t.FailNow inside a task hangs the test")
	}
	text := string(out)
	for _, want := range []string{"workers 1: main = err:panic:runtime.Goexit in a task", "workers 4: main = err:panic:runtime.Goexit in a task", "--- FAIL: TestFailNowInATask"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the child test's output lacks %q (exit %v):\n%s", want, err, text)
		}
	}
}

// TestGoexitInRoot: a Goexit in the root task ends the run with the root's
// result, after its cleanups, on 1 and 2 workers.
func TestGoexitInRoot(t *testing.T) {
	for _, workers := range []int{1, 2} {
		s, err := New(Config{Workers: workers, Budget: Unlimited})
		if err != nil {
			t.Fatal(err)
		}
		res := runWithin(t, s, func(root *Task) error {
			root.Defer("log", func(*Task) error { root.ops().Log("cleanup ran"); return nil })
			runtime.Goexit()
			return nil
		})
		if res.String() != "panic:runtime.Goexit in a task" || len(s.drv().Log()) != 1 {
			t.Fatalf("workers %d: main = %s, log %q", workers, res, s.drv().Log())
		}
	}
}
