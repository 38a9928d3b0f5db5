package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// Tests of a task run on its worker's own stack (inline.go): it has no
// fiber until it suspends, then keeps the stack it ran on, while the
// worker's loop goes on on another fiber.

// inlineSched is a real-mode scheduler with the given yield interval.
func inlineSched(t *testing.T, workers, yieldInterval int, keep bool) *Scheduler {
	t.Helper()
	s, err := newWith(Config{Workers: workers, Budget: Unlimited, YieldInterval: yieldInterval}, link.Options{Mode: realMode(keep)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInlineSuspends: a task starts on its worker's stack (the loop
// fiber) and keeps that stack as its fiber at its first suspension, whatever the
// suspension: an explicit yield, a forced yield of the budget, a channel
// block, a nursery's await, a sleep, a Blocking call; it then runs to its
// end on that fiber, on whatever worker resumes it, and the tasks that
// never suspend run on the loop fiber too. On 1 and 2 workers, lean and
// kept, and with each task a value to prove each ran to its end.
func TestInlineSuspends(t *testing.T) {
	suspensions := map[string]func(t *Task, ch *Chan[int], i int) error{
		"yield": func(t *Task, _ *Chan[int], _ int) error { return t.Yield() },
		"interval": func(t *Task, _ *Chan[int], _ int) error {
			return t.ops().Compute(10) // the yield interval is 4 ops
		},
		"channel": func(t *Task, ch *Chan[int], i int) error {
			if i%2 == 0 {
				return ch.Send(t, i)
			}
			_, _, err := ch.Recv(t)
			return err
		},
		"nursery": func(t *Task, _ *Chan[int], _ int) error {
			return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
				return n.Go("grandchild", func(g *Task) error { return g.Yield() })
			})
		},
		"sleep": func(t *Task, _ *Chan[int], _ int) error { return t.Sleep(5) },
		"blocking": func(t *Task, _ *Chan[int], _ int) error {
			return t.Blocking(func(context.Context) error { return nil })
		},
	}
	for name, suspend := range suspensions {
		for _, keep := range []bool{false, true} {
			for _, workers := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/workers=%d/keep=%v", name, workers, keep), func(tt *testing.T) {
					s := inlineSched(tt, workers, 4, keep)
					const tasks = 64
					var inlineAtStart, resumed, fiberAfter, plainInline, sum atomic.Int64
					res := runWithin(tt, s, func(root *Task) error {
						ch := NewChan[int](s, "pairs", 0)
						return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
							for i := range tasks {
								if err := n.Go("suspender", func(t *Task) error {
									f := t.fib
									if f != nil && f == t.w.c.loopFib {
										inlineAtStart.Add(1)
									}
									if err := suspend(t, ch, i); err != nil {
										return err
									}
									if t.steps > 1 {
										resumed.Add(1)
										if t.fib == f {
											fiberAfter.Add(1) // resumed on the stack it started on
										}
									}
									sum.Add(int64(i))
									return nil
								}); err != nil {
									return err
								}
								if err := n.Go("plain", func(t *Task) error {
									if t.fib != nil && t.fib == t.w.c.loopFib {
										plainInline.Add(1)
									}
									return nil
								}); err != nil {
									return err
								}
							}
							return nil
						})
					})
					if res.Kind != nursery.KindOK {
						tt.Fatalf("run: %v", res)
					}
					if got, want := sum.Load(), int64(tasks*(tasks-1)/2); got != want {
						tt.Errorf("sum of the tasks' values = %d, want %d", got, want)
					}
					// Of each channel pair the first to the rendezvous waits; a
					// grandchild on the other worker may be done before its
					// owner's await: at least half suspended in every case.
					if inlineAtStart.Load() != tasks || plainInline.Load() != tasks || resumed.Load() < tasks/2 || fiberAfter.Load() != resumed.Load() {
						tt.Errorf("inline at start %d, plain tasks inline %d (want %d each); %d resumed after suspending, %d of them on the stack they started on (want at least %d, all)",
							inlineAtStart.Load(), plainInline.Load(), tasks, resumed.Load(), fiberAfter.Load(), tasks/2)
					}
				})
			}
		}
	}
}

// TestInlineGoexitAndPanic: a runtime.Goexit or a panic in a task running
// on its worker's own stack, before it suspended or after, ends that task
// as it ends a task on a fiber (panic:ErrGoexit, a PanicError with the
// panic's value and stack) and leaves the worker running: on one worker,
// every one of many such tasks ends so and the tasks after them run.
func TestInlineGoexitAndPanic(t *testing.T) {
	for _, suspendFirst := range []bool{false, true} {
		for _, goexit := range []bool{false, true} {
			t.Run(fmt.Sprintf("suspendFirst=%v/goexit=%v", suspendFirst, goexit), func(tt *testing.T) {
				s := inlineSched(tt, 1, 0, false)
				const tasks = 50
				var after, cleanups atomic.Int64
				var childErr error
				res := runWithin(tt, s, func(root *Task) error {
					childErr = root.Nursery(NurseryOptions{Mode: nursery.CollectAll}, func(n *Nursery) error {
						for range tasks {
							if err := n.Go("dies", func(t *Task) error {
								t.Defer("count", func(*Task) error { cleanups.Add(1); return nil })
								if suspendFirst {
									if err := t.Yield(); err != nil {
										return err
									}
								}
								if goexit {
									runtime.Goexit()
								}
								panic("inline panic")
							}); err != nil {
								return err
							}
							if err := n.Go("after", func(*Task) error { after.Add(1); return nil }); err != nil {
								return err
							}
						}
						return nil
					})
					return nil
				})
				if res.Kind != nursery.KindOK {
					tt.Fatalf("run: %v", res)
				}
				var ce *ChildError
				if !errors.As(childErr, &ce) {
					tt.Fatalf("the nursery returned %v, want a ChildError", childErr)
				}
				var pe *PanicError
				if !errors.As(childErr, &pe) {
					tt.Fatalf("the nursery's error %v holds no PanicError", childErr)
				}
				switch {
				case goexit && !errors.Is(childErr, ErrGoexit):
					tt.Errorf("a Goexit ended a task with %v, want ErrGoexit", childErr)
				case !goexit && fmt.Sprint(pe.Value) != "inline panic":
					tt.Errorf("a panic ended a task with %v, want the value inline panic", pe.Value)
				}
				if !goexit && len(pe.Stack) == 0 {
					tt.Error("the PanicError has no stack")
				}
				if after.Load() != tasks || cleanups.Load() != tasks {
					tt.Errorf("tasks after the dying ones ran %d times and cleanups %d, want %d each", after.Load(), cleanups.Load(), tasks)
				}
			})
		}
	}
}

// TestInlineManySuspendedAtOnce: ten thousand tasks, each started on a
// worker's stack, all suspended at once (blocked on one channel), then
// released: every one ends, every fiber they took is one they keep while
// suspended, and once the run is over the scheduler holds no more idle
// fibers than its pool's bound and the workers' caches, and no goroutine
// is left behind. Cancellation reaches them too: a second round is
// cancelled while all are blocked.
func TestInlineManySuspendedAtOnce(t *testing.T) {
	const tasks = 10_000
	for _, cancel := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancel=%v", cancel), func(tt *testing.T) {
			goroutines := runtime.NumGoroutine()
			s := inlineSched(tt, 2, 0, false)
			var blocked, ended, cancelled atomic.Int64
			var afterTasks int
			res := runWithin(tt, s, func(root *Task) error {
				gate := NewChan[int](s, "gate", 0)
				err := root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
					for range tasks {
						if err := n.Go("waiter", func(t *Task) error {
							blocked.Add(1)
							_, _, err := gate.Recv(t)
							if errors.Is(err, ErrCancelled) {
								cancelled.Add(1)
							}
							ended.Add(1)
							return err
						}); err != nil {
							return err
						}
					}
					for blocked.Load() < tasks {
						if err := root.Yield(); err != nil {
							return err
						}
					}
					if cancel {
						n.Cancel(root)
						return nil
					}
					return gate.Close(root)
				})
				afterTasks = runtime.NumGoroutine()
				return err
			})
			if res.Kind != nursery.KindOK {
				tt.Fatalf("run: %v", res)
			}
			if ended.Load() != tasks {
				tt.Fatalf("%d of %d tasks ended", ended.Load(), tasks)
			}
			if cancel && cancelled.Load() != tasks {
				tt.Errorf("%d of %d tasks observed the cancellation", cancelled.Load(), tasks)
			}
			// Ten thousand fibers were taken; once their tasks ended the pool
			// and the workers' caches kept at most their bounds, and each
			// worker at most relayMax loop fibers waiting for a relay.
			if kept, bound := afterTasks-goroutines, fiber.DefaultPoolMax+2*(workerFiberCache+relayMax)+8; kept > bound {
				tt.Errorf("%d goroutines more than before the run once its tasks ended, want at most %d (the pool's bound, the caches' and the relays')", kept, bound)
			}
			noFibersLeft(tt, goroutines)
		})
	}
}

// noFibersLeft fails t unless, within 10 s, the goroutines are back to
// at most two more than the goroutines counted before the run: every
// fiber the run took has ended or been released.
func noFibersLeft(t *testing.T, goroutines int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines+2 {
		t.Errorf("%d goroutines after the run, %d before: fibers left behind", n, goroutines)
	}
}

// TestInlineSeededHasNoLoopFiber: a driver that steps the workers itself
// gives them no loop fiber, so every task runs on a fiber of its own there
// (the simulator's path is unchanged).
func TestInlineSeededHasNoLoopFiber(t *testing.T) {
	s, err := newWith(Config{Workers: 2, Budget: Unlimited}, link.Options{Mode: link.Seeded})
	if err != nil {
		t.Fatal(err)
	}
	var fiberless atomic.Int64
	s.drv().Start("main", func(root *Task) error {
		if root.fib == nil || root.w.c.loopFib != nil {
			fiberless.Add(1)
		}
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("child", func(c *Task) error {
				if c.fib == nil || c.w.c.loopFib != nil {
					fiberless.Add(1)
				}
				return nil
			})
		})
	})
	for i := 0; !s.Done() && i < 10_000; i++ {
		s.workers[i%2].Step()
	}
	if !s.Done() {
		t.Fatal("the seeded run did not end in 10,000 steps")
	}
	if fiberless.Load() != 0 {
		t.Errorf("%d tasks ran without a fiber under the seeded driver", fiberless.Load())
	}
}

// relayTree is a fan-out tree of the given depth under t: every inner
// node opens a nursery (CollectAll, Catch: a failing child is an error
// recorded, not a cancellation) and spawns into it first an extra child
// running extra, then two nodes one level down. On one worker the extra
// child runs last of the three, after a node one level down that
// suspended in its await and ended resumed: on the loop fiber that node's
// end took over, when that node is an inner one. onNode sees every node
// as it starts.
func relayTree(t *Task, depth int, extra Func, onNode func(*Task)) error {
	onNode(t)
	if depth == 0 {
		return nil
	}
	return t.Nursery(NurseryOptions{Mode: nursery.CollectAll, Catch: true}, func(n *Nursery) error {
		if err := n.Go("extra", extra); err != nil {
			return err
		}
		for range 2 {
			if err := n.Go("node", func(c *Task) error { return relayTree(c, depth-1, extra, onNode) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestRelay: a task that suspended and ends on the fiber it started on
// takes the loop of the worker that resumed it over (relay, inline.go).
// On one worker a fan-out tree's inner nodes all suspend in their await
// and end resumed, and all but a few of them relay; the relays nest no
// deeper than relayMax and are all given back by the run's end; and
// every task ran to its end, on 1, 2 and 4 workers. A Goexit or a panic of a
// task running inline on a relayed loop fiber ends that task as it ends
// any other and the worker goes on (the relayed fiber is lost, as carry
// loses a loop fiber, and its resumer takes the loop back).
func TestRelay(t *testing.T) {
	const depth = 8
	const inner, leaves = 1<<depth - 1, 1 << depth
	for _, extraKind := range []string{"plain", "goexit", "panic"} {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", extraKind, workers), func(tt *testing.T) {
				goroutines := runtime.NumGoroutine()
				s := inlineSched(tt, workers, 0, false)
				var nodes, extras, onRelayed, cleanups atomic.Int64
				var deepest atomic.Int64
				onNode := func(t *Task) {
					nodes.Add(1)
					if d := int64(t.w.c.relays); d > deepest.Load() {
						deepest.Store(d) // the worker's own field, read on its goroutine
					}
				}
				extra := func(t *Task) error {
					extras.Add(1)
					if t.w.c.relays > 0 && t.fib == t.w.c.loopFib {
						onRelayed.Add(1) // inline on a loop fiber that took the loop over
					}
					t.Defer("count", func(*Task) error { cleanups.Add(1); return nil })
					switch extraKind {
					case "goexit":
						runtime.Goexit()
					case "panic":
						panic("extra panic")
					}
					return nil
				}
				var treeErr error
				res := runWithin(tt, s, func(root *Task) error {
					treeErr = relayTree(root, depth, extra, onNode)
					return nil
				})
				if res.Kind != nursery.KindOK {
					tt.Fatalf("run: %v", res)
				}
				if treeErr != nil {
					tt.Fatalf("the tree returned %v (its nurseries catch their children's errors)", treeErr)
				}
				if nodes.Load() != inner+leaves || extras.Load() != inner || cleanups.Load() != inner {
					tt.Errorf("%d nodes ran, %d extra children, %d cleanups; want %d, %d, %d", nodes.Load(), extras.Load(), cleanups.Load(), inner+leaves, inner, inner)
				}
				var relayed int64
				for _, w := range s.workers {
					relayed += w.relayed
					if w.c.relays != 0 {
						tt.Errorf("worker %d ends the run with %d relays not given back", w.id, w.c.relays)
					}
				}
				tt.Logf("%d relays, nested %d deep at most; %d extra children ran on a relayed loop", relayed, deepest.Load(), onRelayed.Load())
				if deepest.Load() > relayMax {
					tt.Errorf("relays nested %d deep, want at most relayMax (%d)", deepest.Load(), relayMax)
				}
				if workers == 1 {
					// Every inner node suspends in its await and is resumed;
					// the ends past relayMax return. Of the extra children,
					// those of the nodes two levels above the leaves and up
					// run after an inner node relayed.
					if relayed < inner*9/10 || onRelayed.Load() < inner/4 {
						tt.Errorf("%d relays of %d inner nodes, %d extra children ran on a relayed loop: want at least %d and %d", relayed, inner, onRelayed.Load(), inner*9/10, inner/4)
					}
				}
				noFibersLeft(tt, goroutines)
			})
		}
	}
}

// TestWakeOwner: in real mode the owner of a nursery that its worker's
// end of the last child makes terminal becomes that worker's current task
// (wakeOwner) instead of going through the deque: on one worker, every
// task the worker pops is a spawned child, none a woken owner, and every
// owner still runs to its end; on two and four workers the tree still
// ends whole.
func TestWakeOwner(t *testing.T) {
	const depth = 6
	const inner = 1<<depth - 1
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(tt *testing.T) {
			s := inlineSched(tt, workers, 0, false)
			var nodes atomic.Int64
			onNode := func(*Task) { nodes.Add(1) }
			var treeErr error
			res := runWithin(tt, s, func(root *Task) error {
				treeErr = relayTree(root, depth, func(*Task) error { return nil }, onNode)
				return nil
			})
			if res.Kind != nursery.KindOK || treeErr != nil {
				tt.Fatalf("run: %v, tree: %v", res, treeErr)
			}
			if want := int64(2*inner + 1); nodes.Load() != want {
				tt.Errorf("%d nodes ran, want %d", nodes.Load(), want)
			}
			var pops, runs, completed int64
			for _, w := range s.workers {
				st := w.Stats()
				pops += st.Pops
				runs += st.Runs
				completed += st.Completed
			}
			spawned := int64(3 * inner) // an extra child and two nodes an inner node
			if completed != spawned+1 {
				tt.Errorf("%d tasks completed, want %d", completed, spawned+1)
			}
			if workers == 1 {
				// Each inner node runs twice (its start, its resumption after
				// its await), each other task once.
				if pops != spawned || runs != spawned+1+inner {
					tt.Errorf("%d pops and %d runs, want %d pops (the spawned children, no woken owner) and %d runs", pops, runs, spawned, spawned+1+inner)
				}
			}
		})
	}
}
