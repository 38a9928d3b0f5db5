package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// TestParkedChannelOpHasNoDriverFrame parks a task in driver.Recv and one
// in driver.Send (real mode, one worker) and reads their goroutines'
// stacks: each function must be inlined into the task's function, the
// task parked in sched's receive or send itself. The collector walks
// every frame of every parked stack at each cycle, so a layer put back
// between the task and the channel costs every parked task
// (docs/performance.md).
func TestParkedChannelOpHasNoDriverFrame(t *testing.T) {
	d, err := driver.New(driver.Config{Config: sched.Config{Workers: 1, Seed: 1, Budget: sched.Unlimited}})
	if err != nil {
		t.Fatal(err)
	}
	in, out := driver.NewChannel(d, "in", 0), driver.NewChannel(d, "out", 0)
	var started atomic.Int32
	var dump []byte
	res := d.Sched().Run("main", func(root *sched.Task) error {
		return root.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			if err := n.Go("recv", func(t *sched.Task) error {
				started.Add(1)
				_, _, err := driver.Recv(t, in)
				return err
			}); err != nil {
				return err
			}
			if err := n.Go("send", func(t *sched.Task) error {
				started.Add(1)
				err := driver.Send(t, out, 1)
				if errors.Is(err, sched.ErrChannelClosed) {
					return nil // the root closes it to end the run
				}
				return err
			}); err != nil {
				return err
			}
			// One worker: both children run, and park, before the root
			// runs again.
			for i := 0; started.Load() < 2; i++ {
				if i == 3 {
					return fmt.Errorf("%d of 2 tasks started after three yields", started.Load())
				}
				if err := root.Yield(); err != nil {
					return err
				}
			}
			buf := make([]byte, 1<<20)
			dump = buf[:runtime.Stack(buf, true)]
			if err := driver.Close(root, in); err != nil {
				return err
			}
			return driver.Close(root, out)
		})
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("run ended %v", res)
	}
	for _, c := range []struct{ op, parkedIn string }{
		{"Recv", "sched.recvOn("},
		{"Send", "sched.sendOn("},
	} {
		g := goroutineWith(dump, c.parkedIn)
		if g == nil {
			t.Fatalf("no goroutine parked in %s:\n%s", c.parkedIn, dump)
		}
		if !bytes.Contains(g, []byte("sched/driver."+c.op+"(...)")) {
			t.Errorf("driver.%s is a frame of its own on the stack of a task parked in it, not inlined:\n%s", c.op, g)
		}
	}
}

// goroutineWith returns the block of a runtime.Stack dump (all
// goroutines) that contains s, or nil.
func goroutineWith(dump []byte, s string) []byte {
	for _, g := range bytes.Split(dump, []byte("\n\n")) {
		if bytes.Contains(g, []byte(s)) {
			return g
		}
	}
	return nil
}
