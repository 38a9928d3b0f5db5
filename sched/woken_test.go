package sched

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// TestWokenSlot: a lone worker without a sink puts the task it wakes into
// its empty private stack (worker.stack), as its bottom, and what it
// pushes after it (a spawn, a second wake) runs first, as through the
// deque: the same order of turns with the stack (one worker, solo) as
// without it (solo off: the deque, no hosting), and the stack held the
// woken receiver.
func TestWokenSlot(t *testing.T) {
	play := func(solo bool) (order []string, slotted int) {
		note := func(format string, args ...any) { order = append(order, fmt.Sprintf(format, args...)) }
		res, _ := hostRun(t, 1, 0, nil, solo, func(root *Task) error {
			a := NewChan[int](root.Scheduler(), "a", 0)
			b := NewChan[int](root.Scheduler(), "b", 0)
			return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				for _, name := range []string{"ra", "rb"} {
					c := a
					if name == "rb" {
						c = b
					}
					if err := n.Go(name, func(t *Task) error {
						for r := range 3 {
							v, _, err := c.Recv(t)
							if err != nil {
								return err
							}
							note("%s got %d in round %d", name, v, r)
						}
						return nil
					}); err != nil {
						return err
					}
				}
				if err := root.Yield(); err != nil { // both receivers park
					return err
				}
				for r := range 3 {
					if err := a.Send(root, r); err != nil { // ra woken: the slot
						return err
					}
					if st := root.w.stack; len(st) > 0 && st[0].name == "ra" {
						slotted++
					}
					switch r {
					case 1: // a spawn behind the woken ra
						if err := n.Go("spawned", func(*Task) error {
							note("spawned runs")
							return nil
						}); err != nil {
							return err
						}
					case 2: // a second wake behind it
						if err := b.Send(root, 10); err != nil {
							return err
						}
					}
					if err := root.Yield(); err != nil {
						return err
					}
					note("root after round %d", r)
				}
				for r := 1; r < 3; r++ {
					if err := b.Send(root, 10+r); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("solo=%v: run: %v", solo, res)
		}
		return order, slotted
	}
	order, slotted := play(true)
	plain, plainSlotted := play(false)
	if !slices.Equal(order, plain) {
		t.Errorf("turns with the slot:\n%q\nwithout:\n%q", order, plain)
	}
	if slotted != 3 || plainSlotted != 0 {
		t.Errorf("the slot held the woken receiver %d times with it, %d without: want 3, 0", slotted, plainSlotted)
	}
}

// parkHeldGame is TestParkHeld's program: a ping-pong whose player ends
// with an error (cancelling echo, parked in its receive), then a timed
// nursery in which a receive that only the timeout ends parks beside a
// cleanup's receive (not interruptible) that a feeder completes. The
// feeder is outside the timed nursery, so that however early the timeout
// fires, the cleanup's receive gets its value. note records the turns.
func parkHeldGame(root *Task, note func(format string, args ...any)) error {
	ping := NewChan[int](root.Scheduler(), "ping", 0)
	pong := NewChan[int](root.Scheduler(), "pong", 0)
	stuck := NewChan[int](root.Scheduler(), "stuck", 0)
	err := root.Nursery(NurseryOptions{Catch: true}, func(n *Nursery) error {
		if err := n.Go("echo", func(t *Task) error {
			for {
				v, _, err := ping.Recv(t)
				if err != nil {
					note("echo: %v", errors.Is(err, ErrCancelled))
					return err
				}
				if err := pong.Send(t, v+1); err != nil {
					return err
				}
			}
		}); err != nil {
			return err
		}
		return n.Go("player", func(t *Task) error {
			for i := range 20 {
				if err := ping.Send(t, i); err != nil {
					return err
				}
				v, _, err := pong.Recv(t)
				if err != nil {
					return err
				}
				note("player got %d", v)
			}
			return errors.New("done") // cancels echo, parked in its receive
		})
	})
	note("first nursery: %v", err)
	// A receive that only the timeout ends, and a cleanup's that the
	// feeder completes.
	// The feed has room for the one value: however early the timeout
	// fires (before the cleanup even starts, under load), the feeder
	// never waits for it.
	feed := NewChan[int](root.Scheduler(), "feed", 1)
	return root.Nursery(NurseryOptions{}, func(outer *Nursery) error {
		if err := outer.Go("feeder", func(t *Task) error { return feed.Send(t, 7) }); err != nil {
			return err
		}
		err := root.Nursery(NurseryOptions{Timeout: 2000}, func(n *Nursery) error {
			if err := n.Go("cleanup", func(t *Task) error {
				t.Defer("recv", func(t *Task) error {
					v, _, err := feed.Recv(t)
					note("cleanup got %d, %v", v, err)
					return err
				})
				return nil
			}); err != nil {
				return err
			}
			return n.Go("stuck", func(t *Task) error {
				_, _, err := stuck.Recv(t)
				note("stuck: %v", errors.Is(err, ErrCancelled))
				return err
			})
		})
		note("second nursery: %v", err) // a timeout without Catch: nil
		return err
	})
}

// checkParkHeldTurns checks parkHeldGame's turns: echo cancelled, the
// timed nursery last, and the cleanup's receive done and the stuck receive
// cancelled. In real mode (all false) the timeout may fire before either
// task starts, under load: then it has no turn, and only the turns it
// has are checked.
func checkParkHeldTurns(t *testing.T, order []string, all bool) {
	t.Helper()
	ok := len(order) > 0 && order[len(order)-1] == "second nursery: <nil>" && slices.Contains(order, "echo: true")
	for _, turn := range order {
		if strings.HasPrefix(turn, "cleanup got") && turn != "cleanup got 7, <nil>" || turn == "stuck: false" {
			ok = false
		}
	}
	if all && (!slices.Contains(order, "cleanup got 7, <nil>") || !slices.Contains(order, "stuck: true")) {
		ok = false
	}
	if !ok {
		t.Errorf("turns %q: want echo and the stuck receive cancelled, the cleanup's receive done, and the timed nursery last", order)
	}
}

// TestParkHeld: on a lone worker, a task blocking on a channel parks under
// the lock its Send or Recv found no partner under (waitOnChannel), both
// the task that hosts and the tasks it resumes, and the run is the same
// as without (solo off): the same turns and events (but the worker's
// parks, which the clock decides), a sibling's error and a nursery's
// timeout (fired by the clock's goroutine) each interrupting receivers
// parked that way, and a cleanup's receive (not interruptible)
// completing. Real mode, for the clock's goroutine; TestParkHeldSeeded is
// the same game under the seeded driver.
func TestParkHeld(t *testing.T) {
	play := func(solo bool) (order, events []string, held int64) {
		var mu sync.Mutex
		note := func(format string, args ...any) {
			mu.Lock()
			order = append(order, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		log := &eventLog{}
		s, err := newWith(Config{Workers: 1, Budget: Unlimited}, link.Options{Mode: link.Real, Sink: log})
		if err != nil {
			t.Fatal(err)
		}
		res := s.drv().RunWith("main", func(root *Task) error { return parkHeldGame(root, note) }, func(*Task) {
			if !solo {
				notAlone(s.workers[0])
			}
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("solo=%v: run: %v", solo, res)
		}
		// The worker's parks while the timeout is pending are as many as
		// the clock's goroutine makes them, and so are the tasks the
		// timeout finds still to run.
		events = slices.DeleteFunc(log.lines, func(line string) bool { return strings.HasSuffix(line, " park") })
		return order, events, s.workers[0].parkedHeld
	}
	order, _, held := play(true)
	plainOrder, _, plainHeld := play(false)
	checkParkHeldTurns(t, order, false)
	checkParkHeldTurns(t, plainOrder, false)
	// The rounds park echo and the player about 40 times in all, but for
	// each task's first block, which enlists it in its lean nursery first
	// and parks the usual way.
	if held < 30 || plainHeld != 0 {
		t.Errorf("parked under the held lock %d times with a lone worker, %d without: want at least 30, none", held, plainHeld)
	}
}

// TestParkHeldSeeded: parkHeldGame under the seeded driver on one worker,
// where the park under the held lock, hosting and the timeout's firing
// are the driver's steps: over seeds, the turns are right, the parks
// happen under the held lock, tasks host the loop, and the same seed
// gives the same events.
func TestParkHeldSeeded(t *testing.T) {
	for seed := range uint64(8) {
		play := func() ([]string, []string, *Scheduler) {
			var order []string
			note := func(format string, args ...any) { order = append(order, fmt.Sprintf(format, args...)) }
			log := &eventLog{}
			s, res, ended := seededRun(t, Config{Workers: 1}, log, seed, 100_000, func(root *Task) error { return parkHeldGame(root, note) })
			if !ended || res.Kind != nursery.KindOK {
				t.Fatalf("seed %d: run ended %v: %v", seed, ended, res)
			}
			return order, log.lines, s
		}
		order, events, s := play()
		checkParkHeldTurns(t, order, true)
		if w := s.workers[0]; w.parkedHeld < 30 || w.hosted == 0 {
			t.Errorf("seed %d: parked under the held lock %d times, hosted %d: want at least 30, some", seed, w.parkedHeld, w.hosted)
		}
		order2, events2, _ := play()
		if !slices.Equal(order, order2) || !slices.Equal(events, events2) {
			t.Errorf("seed %d: two runs differ", seed)
		}
	}
}

// TestNextSlot: with several workers and no sink, a task woken by the
// running task goes to its worker's next slot (worker.next) and runs
// there as soon as the waker suspends; and when the waker runs on
// without suspending, an idle worker takes the woken task once it has
// sat there nextGrace (stealNext), so that it is not held up for as long
// as the waker runs. Each waker here spins without a checkpoint until
// its woken receiver has run: without the grace steal nothing could run
// the receiver, and the bounded spin fails the run. With two wakers on
// three workers, two slots may be held at once, each for longer than
// the grace, and the idle worker must take both (a grace timed for one
// slot at a time would start over at every look). Each round spins its
// wakers' workers while they wait: 20 rounds under `make test`
// (testkit.Full), 5 in plain `go test`.
func TestNextSlot(t *testing.T) {
	rounds := 5
	if testkit.Full() {
		rounds = 20
	}
	for _, wakers := range []int{1, 2} {
		for round := range rounds {
			var slotted atomic.Int32
			res, _ := hostRun(t, wakers+1, 0, nil, true, func(root *Task) error {
				return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
					for range wakers {
						if err := n.Go("waker", func(w *Task) error { return wakeAndSpin(w, n, &slotted) }); err != nil {
							return err
						}
					}
					return nil
				})
			})
			if res.Kind != nursery.KindOK {
				t.Fatalf("%d wakers, round %d: %v", wakers, round, res)
			}
			if int(slotted.Load()) != wakers {
				t.Fatalf("%d wakers, round %d: %d woken receivers in their waker's next slot (or run)", wakers, round, slotted.Load())
			}
		}
	}
}

// wakeAndSpin spawns a receiver into n, waits until it is parked in a
// rendezvous Recv, wakes it with a Send, and then spins without a
// checkpoint until it has run (TestNextSlot).
func wakeAndSpin(t *Task, n *Nursery, slotted *atomic.Int32) error {
	ch := NewChan[int](t.Scheduler(), "c", 0)
	var ran atomic.Bool
	recv, err := n.Spawn(t, "receiver", func(r *Task) error {
		if _, _, err := ch.Recv(r); err != nil {
			return err
		}
		ran.Store(true)
		return nil
	}, SpawnOptions{})
	if err != nil {
		return err
	}
	for recv.ops().State() != stateBlocked { // parked in Recv
		if err := t.Yield(); err != nil {
			return err
		}
	}
	if err := ch.Send(t, 1); err != nil {
		return err
	}
	if t.w.next.Load() == recv || ran.Load() {
		slotted.Add(1)
	}
	start := time.Now()
	for !ran.Load() { // no checkpoint: t keeps its worker
		if time.Since(start) > 10*time.Second {
			return errors.New("the woken receiver did not run in 10 s while its waker ran on")
		}
	}
	return nil
}
