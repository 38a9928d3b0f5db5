package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// Tests of hosting (inline.go): a task of a lone worker that yields runs
// the worker's loop on its own stack and resumes the next task itself.

// hostRun runs fn as the root of a real-mode run on workers workers and
// returns its result and how many times a task hosted a worker's loop.
// hosting false turns hosting off, for runs to compare against.
func hostRun(t interface {
	Helper()
	Fatal(...any)
}, workers, interval int, sink link.Sink, hosting bool, fn Func) (Result, int64) {
	t.Helper()
	s, err := newWith(Config{Workers: workers, Budget: Unlimited, YieldInterval: interval}, link.Options{Mode: link.Real, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() {
		done <- s.drv().RunWith("main", fn, func(*Task) {
			if !hosting {
				for _, w := range s.workers {
					notAlone(w)
				}
			}
		})
	}()
	select {
	case res := <-done:
		var hosted int64
		for _, w := range s.workers {
			hosted += w.hosted
		}
		return res, hosted
	case <-time.After(time.Minute):
		t.Fatal("the run has not ended after a minute")
		return Result{}, 0
	}
}

// eventLog is a Sink that keeps every event as a line.
type eventLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *eventLog) Emit(worker int, kind trace.Kind, fields []trace.Field) {
	line := fmt.Sprintf("%d %v", worker, kind)
	for _, f := range fields {
		if f.IsInt {
			line += fmt.Sprintf(" %s=%d", f.Key, f.Int)
		} else {
			line += fmt.Sprintf(" %s=%s", f.Key, f.Str)
		}
	}
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

// sameWithHosting plays a game with hosting and without, and fails t
// unless hosting happened in the first only and both gave the same turns
// and the same events, event for event. It returns the turns.
func sameWithHosting[T comparable](t *testing.T, play func(hosting bool) (turns []T, events []string, hosted int64)) []T {
	t.Helper()
	order, events, hosted := play(true)
	plainOrder, plainEvents, plainHosted := play(false)
	if hosted == 0 || plainHosted != 0 {
		t.Errorf("hosted %d times with hosting, %d without: want some, none", hosted, plainHosted)
	}
	if !slices.Equal(order, plainOrder) {
		t.Errorf("the turns differ with hosting:\n%v\nwithout:\n%v", order, plainOrder)
	}
	if !slices.Equal(events, plainEvents) {
		for i := range min(len(events), len(plainEvents)) {
			if events[i] != plainEvents[i] {
				t.Fatalf("event %d differs with hosting: %q, without: %q (of %d and %d events)\n%s\n---\n%s", i, events[i], plainEvents[i], len(events), len(plainEvents), strings.Join(events[:i+1], "\n"), strings.Join(plainEvents[:i+1], "\n"))
			}
		}
		t.Fatalf("%d events with hosting, %d without", len(events), len(plainEvents))
	}
	return order
}

// TestHostedYieldRoundRobin: on one worker, tasks that yield in turn
// (explicitly, or forced by the budget every 3 ops) run round robin, every
// other ready task between two runs of each, with hosting as without it:
// the same order, the same results and the same events, event for event;
// and hosting did happen. Some players stop early, so that tasks end
// while hosted, and the hosting task itself ends too.
func TestHostedYieldRoundRobin(t *testing.T) {
	for _, forced := range []bool{false, true} {
		t.Run(fmt.Sprintf("forced=%v", forced), func(t *testing.T) {
			const players, rounds = 4, 50
			play := func(hosting bool) ([]int, []string, int64) {
				var mu sync.Mutex
				var order []int
				events := &eventLog{}
				res, hosted := hostRun(t, 1, 3, events, hosting, func(root *Task) error {
					return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
						for p := range players {
							if err := n.Go("player", func(t *Task) error {
								for r := range rounds - 5*p {
									mu.Lock()
									order = append(order, p)
									mu.Unlock()
									var err error
									if forced {
										err = t.ops().Compute(3)
									} else {
										err = t.Yield()
									}
									if err != nil {
										return fmt.Errorf("round %d: %w", r, err)
									}
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
					t.Fatalf("hosting=%v: run: %v", hosting, res)
				}
				return order, events.lines, hosted
			}
			order := sameWithHosting(t, play)
			// Round robin: while all four play, each turn's player is the one
			// of four turns before, and the first four are distinct.
			for i := players; i < players*(rounds-5*(players-1)); i++ {
				if order[i] != order[i-players] {
					t.Fatalf("turn %d is player %d, turn %d player %d: not round robin: %v", i, order[i], i-players, order[i-players], order)
				}
			}
		})
	}
}

// TestHostedChannelRing: on one worker, tasks in a ring pass a token over
// rendezvous channels (each blocking in turn, a wait often over before it
// parks), with a yield now and then, and one stops early with an error
// that cancels the others, parked in their receives: the same order of
// turns, the same results and the same events with hosting as without
// it, and hosting did happen. (A timeout, fired by the clock's goroutine
// at a time of its own, would make the events differ between two runs
// whatever the hosting; TestHostedStress has timeouts.)
func TestHostedChannelRing(t *testing.T) {
	play := func(hosting bool) ([]string, []string, int64) {
		var mu sync.Mutex
		var order []string
		note := func(format string, args ...any) {
			mu.Lock()
			order = append(order, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		events := &eventLog{}
		res, hosted := hostRun(t, 1, 0, events, hosting, func(root *Task) error { return hostedRing(root, note) })
		if res.Kind != nursery.KindOK {
			t.Fatalf("hosting=%v: run: %v", hosting, res)
		}
		return order, events.lines, hosted
	}
	order := sameWithHosting(t, play)
	// Rounds 0 to 30 of p1 and p2 and 0 to 29 of p0 (whose token p2
	// keeps), then p0's and p1's cancelled receives.
	if want, last := ringPlayers*(ringRounds/2+1)-1+2, order[len(order)-1]; len(order) != want || !strings.Contains(last, "cancelled") {
		t.Errorf("%d turns, the last %q: want %d, the last a cancellation", len(order), last, want)
	}
}

// hostOp is one step of a task's program in TestHostedStress.
type hostOp int

const (
	opYield    hostOp = iota // an explicit yield
	opCompute                // ops enough for a forced yield
	opSleep                  // a timer, fired by the clock or by a worker, maybe on a host's stack
	opBlocking               // a Blocking call
	opSpawn                  // a nursery of two children that start without a fiber
	opChannel                // a rendezvous with a child, each blocking in turn
	opCount
)

// hostEnd is how a task's program ends.
type hostEnd int

const (
	endOK hostEnd = iota
	endError
	endPanic
	endGoexit
	endCount
)

// TestHostedStress: random programs of yields, forced yields, sleeps,
// Blocking calls, spawns and channel rendezvous, ending in a return, an
// error, a panic or a runtime.Goexit, beside tasks that yield until a
// timeout cancels them, on one worker (where tasks host) and on two or
// three (where none may: a task of a worker with company never hosts):
// every task ends as its program says, every cleanup runs, the run ends,
// and under -race no access races. A hosted task that ends, panics or
// Goexits returns to its host's stack without unwinding it, and a host
// is never resumed by anyone while it hosts (a second resume of a
// coroutine that has not yielded panics in iter.Pull).
func TestHostedStress(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		workers := rapid.SampledFrom([]int{1, 1, 2, 3}).Draw(rt, "workers")
		tasks := rapid.IntRange(2, 8).Draw(rt, "tasks")
		progs := make([][]hostOp, tasks)
		ends := make([]hostEnd, tasks)
		want := make([]int64, endCount)
		for i := range progs {
			progs[i] = rapid.SliceOfN(rapid.SampledFrom([]hostOp{opYield, opYield, opCompute, opSleep, opBlocking, opSpawn, opChannel}), 1, 8).Draw(rt, fmt.Sprintf("prog%d", i))
			ends[i] = hostEnd(rapid.IntRange(0, int(endCount)-1).Draw(rt, fmt.Sprintf("end%d", i)))
			want[ends[i]]++
		}
		spinners := rapid.IntRange(0, 2).Draw(rt, "spinners")
		var reached [endCount]atomic.Int64
		var cleaned, began, spun atomic.Int64
		var nurseryErr error
		res, _ := hostRun(rt, workers, 3, nil, true, func(root *Task) error {
			nurseryErr = root.Nursery(NurseryOptions{Mode: nursery.CollectAll}, func(n *Nursery) error {
				if spinners > 0 {
					if err := n.Go("timed", func(t *Task) error {
						return t.Nursery(NurseryOptions{Timeout: 300}, func(tn *Nursery) error {
							for range spinners {
								if err := tn.Go("spinner", func(t *Task) error {
									began.Add(1)
									for {
										if err := t.Yield(); err != nil {
											spun.Add(1)
											return err
										}
									}
								}); err != nil {
									return err
								}
							}
							return nil
						})
					}); err != nil {
						return err
					}
				}
				for i := range tasks {
					if err := n.Go("program", func(t *Task) error {
						t.Defer("count", func(*Task) error { cleaned.Add(1); return nil })
						for _, op := range progs[i] {
							if err := runHostOp(t, op); err != nil {
								return err
							}
						}
						reached[ends[i]].Add(1)
						switch ends[i] {
						case endError:
							return errors.New("program error")
						case endPanic:
							panic("program panic")
						case endGoexit:
							runtime.Goexit()
						}
						return nil
					}); err != nil {
						return err
					}
				}
				return nil
			})
			return nil
		})
		if res.Kind != nursery.KindOK {
			rt.Fatalf("run: %v", res)
		}
		for e := range endCount {
			if got := reached[e].Load(); got != want[e] {
				rt.Fatalf("%d programs reached end %d, want %d", got, e, want[e])
			}
		}
		if got := cleaned.Load(); got != int64(tasks) {
			rt.Fatalf("%d cleanups ran, want %d", got, tasks)
		}
		// A spinner the timeout cancelled before it ran never runs.
		if got := spun.Load(); got != began.Load() || got > int64(spinners) {
			rt.Fatalf("%d spinners saw the timeout's cancellation, %d of %d began", got, began.Load(), spinners)
		}
		failed := want[endError]+want[endPanic]+want[endGoexit] > 0
		if failed != (nurseryErr != nil) {
			rt.Fatalf("the nursery returned %v; programs failing: %v", nurseryErr, failed)
		}
		if want[endGoexit] > 0 && !errors.Is(nurseryErr, ErrGoexit) && want[endPanic]+want[endError] == 0 {
			rt.Fatalf("the nursery returned %v, want ErrGoexit", nurseryErr)
		}
	})
}

// runHostOp runs one op of a program.
func runHostOp(t *Task, op hostOp) error {
	switch op {
	case opYield:
		return t.Yield()
	case opCompute:
		return t.ops().Compute(4)
	case opSleep:
		return t.Sleep(2)
	case opBlocking:
		return t.Blocking(func(context.Context) error { return nil })
	case opSpawn:
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range 2 {
				if err := n.Go("child", func(c *Task) error { return c.Yield() }); err != nil {
					return err
				}
			}
			return nil
		})
	case opChannel:
		ch := NewChan[int](t.Scheduler(), "rendezvous", 0)
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			if err := n.Go("echo", func(c *Task) error {
				for range 3 {
					v, _, err := ch.Recv(c)
					if err != nil {
						return err
					}
					if err := c.Yield(); err != nil {
						return err
					}
					if err := ch.Send(c, v+1); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
			for i := range 3 {
				if err := ch.Send(t, i); err != nil {
					return err
				}
				if v, _, err := ch.Recv(t); err != nil || v != i+1 {
					return fmt.Errorf("echo: %d, %v", v, err)
				}
			}
			return nil
		})
	}
	return fmt.Errorf("op %d", op)
}

// TestHostedLivelockBound: two tasks yielding to each other for ever on
// one worker, hosting, are still stopped by the run's step bound
// (MaxSteps, real mode's livelock bound): the steps a host takes count,
// the limit cancels the root, and both observe it at their next yield.
func TestHostedLivelockBound(t *testing.T) {
	s, err := newWith(Config{Workers: 1, Budget: Unlimited, MaxSteps: 5_000}, link.Options{Mode: link.Real})
	if err != nil {
		t.Fatal(err)
	}
	var cancelled atomic.Int64
	runWithin(t, s, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range 2 {
				if err := n.Go("spinner", func(t *Task) error {
					for {
						if err := t.Yield(); err != nil {
							cancelled.Add(1)
							return err
						}
					}
				}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if !s.drv().LimitHit() || cancelled.Load() != 2 || s.workers[0].hosted == 0 {
		t.Errorf("limit hit %v, %d of 2 spinners cancelled, %d hosted: want true, 2, some", s.drv().LimitHit(), cancelled.Load(), s.workers[0].hosted)
	}
	if steps := s.steps.Load(); steps < 5_000 || steps > 5_100 {
		t.Errorf("%d steps counted, want the bound of 5,000 and the few the cancellation takes", steps)
	}
}

// TestHeldQueueBounded: three tasks yielding round robin on one worker
// keep the global queue holding two of them (no held head), and the
// queue's slice stays bounded however many yields: the lone worker's
// popOrHold compacts the consumed front as pushPop does (without it the
// slice grew by a slot a yield: 15,000 here).
func TestHeldQueueBounded(t *testing.T) {
	const players, rounds = 3, 5_000
	s, err := newWith(Config{Workers: 1, Budget: Unlimited}, link.Options{Mode: link.Real})
	if err != nil {
		t.Fatal(err)
	}
	var longest atomic.Int64
	res := runWithin(t, s, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range players {
				if err := n.Go("player", func(t *Task) error {
					for range rounds {
						if err := t.Yield(); err != nil {
							return err
						}
						q := &t.s.global
						q.mu.Lock()
						longest.Store(max(longest.Load(), int64(len(q.items))))
						q.mu.Unlock()
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
		t.Fatalf("run: %v", res)
	}
	if l := longest.Load(); l > 2*1024+players {
		t.Errorf("the global queue's slice reached %d slots for %d tasks", l, players)
	}
}

// notAlone makes w, its run's only worker, run as one of several would,
// but without the next slot, which only a second worker could take: no
// hosting, no stack, no park under a held lock, every lock taken; the
// same tasks in the same order with the same events, which the tests
// above compare.
func notAlone(w *worker) { w.mode = w.mode&^modeAlone | modeLegacy2 }

// TestHostedSameUnderBothDrivers: real mode's host loop (worker.host) writes
// out the steps a driver's host takes one at a time (stepHosted); on one
// worker, with no timer, the two must run the same program the same way.
// TestHostedChannelRing's ring (hostedRing: yields, blocks, an error that
// cancels parked receivers), in real mode and under the seeded driver
// answering every policy as real mode does: the same events, in the same
// order (the driver's decide lines and the worker's parks aside), and
// both hosted.
func TestHostedSameUnderBothDrivers(t *testing.T) {
	program := func(root *Task) error { return hostedRing(root, func(string, ...any) {}) }

	// A driver's step ends at every checkpoint, with a run line each; real
	// mode runs a task to its next suspension under one. So a task's run
	// lines count once a resumption: until it yields, blocks or ends.
	keep := func(lines []string) []string {
		var out []string
		running := ""
		for _, l := range lines {
			f := strings.Fields(l)
			switch {
			case strings.HasSuffix(l, " park") || f[1] == "decide":
				continue
			case f[1] == "run":
				if f[2] == running {
					continue
				}
				running = f[2]
			case f[1] == "yield" || f[1] == "block" || f[1] == "result":
				if f[2] == running {
					running = ""
				}
			}
			out = append(out, l)
		}
		return out
	}
	realLog := &eventLog{}
	res, realHosted := hostRun(t, 1, 0, realLog, true, program)
	if res.Kind != nursery.KindOK {
		t.Fatalf("real mode: %v", res)
	}
	seededLog := &eventLog{}
	s, res, ended := seededRunWith(t, Config{Workers: 1}, link.Options{Sink: seededLog, Decisions: realAnswers{}}, 1, 100_000, program)
	if !ended || res.Kind != nursery.KindOK {
		t.Fatalf("seeded: ended %v: %v", ended, res)
	}
	got, want := keep(seededLog.lines), keep(realLog.lines)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("event %d: seeded %q, real %q (of %d and %d)", i, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("%d events seeded, %d real", len(got), len(want))
	}
	if realHosted == 0 || s.workers[0].hosted == 0 {
		t.Errorf("hosted %d times in real mode, %d seeded: want some in both", realHosted, s.workers[0].hosted)
	}
}

// hostedRing is TestHostedChannelRing's program: players in a ring pass a
// token over rendezvous channels, yielding now and then, until one stops
// with an error that cancels the others; note records the turns.
func hostedRing(root *Task, note func(format string, args ...any)) error {
	const players, rounds = ringPlayers, ringRounds
	chans := make([]*Chan[int], players)
	for i := range chans {
		chans[i] = NewChan[int](root.Scheduler(), fmt.Sprintf("c%d", i), 0)
	}
	return root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
		for p := range players {
			if err := n.Go("player", func(t *Task) error {
				in, out := chans[p], chans[(p+1)%players]
				if p == 0 {
					if err := out.Send(t, 0); err != nil {
						return err
					}
				}
				for r := range rounds {
					v, _, err := in.Recv(t)
					if err != nil {
						note("p%d cancelled in round %d: %v", p, r, errors.Is(err, ErrCancelled))
						return err
					}
					note("p%d got %d", p, v)
					if r%7 == p {
						if err := t.Yield(); err != nil {
							return err
						}
					}
					if p == 2 && r == rounds/2 {
						return errors.New("stop") // the ring stops, and the others are cancelled
					}
					if err := out.Send(t, v+1); err != nil {
						note("p%d cancelled sending in round %d: %v", p, r, errors.Is(err, ErrCancelled))
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// The ring's size and length (hostedRing).
const ringPlayers, ringRounds = 3, 60
