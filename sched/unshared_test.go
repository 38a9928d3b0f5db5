package sched

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// unsharedTree builds a binary fan-out tree of the given depth under t,
// each inner node a nursery of two children; it returns the first error.
func unsharedTree(t *Task, depth int) error {
	if depth == 0 {
		return t.Checkpoint()
	}
	return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
		for range 2 {
			if err := n.Go("node", func(c *Task) error { return unsharedTree(c, depth-1) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestUnsharedTimeout: a lone worker without a sink leaves out the
// nurseries' locks (worker.unshared) until one of its tasks arms a
// nursery's timeout; the timeout then fires, on the clock's goroutine or
// on the worker, while the worker builds fan-out trees inside the timed
// nursery, and its cancellation walks down those trees as the worker
// opens, links, awaits and ends their nurseries. Under -race a worker
// that went on without the locks after arming the timeout is a reported
// race; in every build the cancellation must reach the trees (the loop
// ends) and nothing may stay live.
func TestUnsharedTimeout(t *testing.T) {
	for round := range 8 {
		s := leanSched(t, 1)
		var before, after bool
		trees := 0
		res := s.Run("main", func(root *Task) error {
			for range 10 {
				if err := unsharedTree(root, 5); err != nil {
					return err
				}
			}
			before = root.w.unshared()
			err := root.Nursery(NurseryOptions{Timeout: int64(50 + 50*round)}, func(n *Nursery) error {
				return n.Go("trees", func(c *Task) error {
					for trees < 1_000_000 {
						if err := unsharedTree(c, 6); err != nil {
							return err
						}
						trees++
					}
					return errors.New("the timeout never cancelled the trees")
				})
			})
			after = root.w.unshared()
			return err
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("round %d: main = %s after %d trees", round, res, trees)
		}
		if !before || after {
			t.Fatalf("round %d: unshared before the timeout %v, after it %v; want true, false", round, before, after)
		}
		if live := s.drv().Live(); live != 0 {
			t.Fatalf("round %d: Live = %d after the run", round, live)
		}
	}
}

// TestBudgetCopyFrom: copyFrom, which copies a Budget component by
// component, copies every one (one added to Budget and not to copyFrom
// fails here).
func TestBudgetCopyFrom(t *testing.T) {
	var src, dst Budget
	v := reflect.ValueOf(&src).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(i + 1))
	}
	dst.copyFrom(&src)
	if dst != src {
		t.Fatalf("copyFrom(%+v) = %+v", src, dst)
	}
}

// unsharedChannelGame is TestUnsharedChannelTimeout's program: values
// handed over on ch without the channel's lock, then, inside a nursery
// timed out after timeout ticks, receivers parked on ch while two tasks
// ping-pong on another channel until the timeout cancels them all. g
// records what the test checks.
func unsharedChannelGame(s *Scheduler, root *Task, timeout int64, g *unsharedGame) error {
	ch := NewChan[int](s, "c", 0)
	g.sharedBefore = ch.c.shared(root)
	if err := pingPong(root, ch, 1000); err != nil {
		return err
	}
	g.unsharedBefore = root.w.unshared()
	return root.Nursery(NurseryOptions{Timeout: timeout}, func(n *Nursery) error {
		g.sharedAfter = ch.c.shared(root)
		for range 4 {
			if err := n.Go("receiver", func(c *Task) error {
				g.receiving++
				_, _, err := ch.Recv(c) // no one sends on ch now
				if errors.Is(err, ErrCancelled) {
					g.interrupted++
				}
				return err
			}); err != nil {
				return err
			}
		}
		ch2 := NewChan[int](s, "c2", 0)
		return n.Go("pingpong", func(c *Task) error {
			for g.receiving < 4 { // the receivers park first
				if err := c.Yield(); err != nil {
					return err
				}
			}
			for g.pongs < 100_000_000 {
				if err := pingPong(c, ch2, 100); err != nil {
					return err
				}
				g.pongs++
			}
			return errors.New("the timeout never cancelled the ping-pong")
		})
	})
}

// unsharedGame is what unsharedChannelGame records.
type unsharedGame struct {
	unsharedBefore, sharedBefore, sharedAfter bool
	pongs, receiving, interrupted             int
}

// check checks g after its run ended with res.
func (g *unsharedGame) check(t *testing.T, s *Scheduler, res Result, round int) {
	t.Helper()
	if res.Kind != nursery.KindOK {
		t.Fatalf("round %d: main = %s after %d ping-pongs", round, res, g.pongs)
	}
	if g.sharedBefore || !g.unsharedBefore || !g.sharedAfter {
		t.Fatalf("round %d: the channel shared before the timeout %v (worker unshared %v), after it %v; want false (true), true",
			round, g.sharedBefore, g.unsharedBefore, g.sharedAfter)
	}
	if g.interrupted != g.receiving {
		t.Fatalf("round %d: %d of the %d receivers that began interrupted by the timeout", round, g.interrupted, g.receiving)
	}
	if live := s.drv().Live(); live != 0 {
		t.Fatalf("round %d: Live = %d after the run", round, live)
	}
}

// TestUnsharedChannelTimeout: a lone worker's channel operations leave
// out the channel's lock (channel.shared) until a task arms a nursery's
// timeout. Here the worker first hands values over on a channel without
// the lock; then, inside a timed nursery, receivers park on that same
// channel while two tasks ping-pong on another, until the timeout's
// firing (on the clock's goroutine or on the worker) cancels them,
// interrupting the parked receivers under the channel's lock. Under
// -race a worker that went on without the lock after arming the timeout,
// or a first phase not ordered before the firing, is a reported race; in
// every build each receiver that began must end interrupted (how many
// began before the timeout fired is the clock's: TestUnsharedChannel-
// TimeoutSeeded has all four park first) and nothing may stay live.
func TestUnsharedChannelTimeout(t *testing.T) {
	for round := range 6 {
		s := leanSched(t, 1)
		var g unsharedGame
		res := s.Run("main", func(root *Task) error { return unsharedChannelGame(s, root, int64(2000+2000*round), &g) })
		g.check(t, s, res, round)
	}
}

// TestUnsharedChannelTimeoutSeeded: the same game under the seeded driver
// on one worker, where the lock elision runs too (worker.unshared) and
// the timeout fires at a virtual tick: all four receivers park before it
// and are interrupted, on every seed.
func TestUnsharedChannelTimeoutSeeded(t *testing.T) {
	for round := range 6 {
		var g unsharedGame
		var s *Scheduler
		s, res, ended := seededRun(t, Config{Workers: 1}, nil, uint64(round), 1_000_000, func(root *Task) error {
			return unsharedChannelGame(root.Scheduler(), root, int64(2000+2000*round), &g)
		})
		if !ended {
			t.Fatalf("round %d: the run did not end", round)
		}
		g.check(t, s, res, round)
		if g.receiving != 4 {
			t.Fatalf("round %d: %d receivers began before the timeout, want 4", round, g.receiving)
		}
	}
}

// pingPong hands values over on the rendezvous ch between t and a child
// rounds times each way.
func pingPong(t *Task, ch *Chan[int], rounds int) error {
	return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
		if err := n.Go("echo", func(c *Task) error {
			for range rounds {
				v, _, err := ch.Recv(c)
				if err != nil {
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
		for i := range rounds {
			if err := ch.Send(t, 2*i); err != nil {
				return err
			}
			v, _, err := ch.Recv(t)
			if err != nil {
				return err
			}
			if v != 2*i+1 {
				return fmt.Errorf("got %d back for %d", v, 2*i)
			}
		}
		return nil
	})
}
