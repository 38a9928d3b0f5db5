package simtest

import (
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

// primitivesBody uses every primitive of issue 27 in one correct program:
// Check must pass it on every seed and worker count.
func primitivesBody(t *sched.Task) error {
	var mu sched.Mutex
	var rw sched.RWMutex
	var wg sched.WaitGroup
	cond := sched.NewCond(&mu)
	count, shared, ready := 0, 0, false
	a := sched.NewChan[int](t.Scheduler(), "a", 0)
	b := sched.NewChan[int](t.Scheduler(), "b", 1)
	return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
		for i := 0; i < 4; i++ {
			wg.Add(1)
			n.Go("w", func(t *sched.Task) error {
				defer wg.Done(t)
				if err := mu.Lock(t); err != nil {
					return err
				}
				defer mu.Unlock(t)
				count++
				return nil
			})
			n.Go("r", func(t *sched.Task) error {
				if err := rw.RLock(t); err != nil {
					return err
				}
				_ = shared
				rw.RUnlock(t)
				return nil
			})
		}
		n.Go("writer", func(t *sched.Task) error {
			if err := rw.Lock(t); err != nil {
				return err
			}
			shared++
			rw.Unlock(t)
			return nil
		})
		n.Go("waiter", func(t *sched.Task) error {
			if err := mu.Lock(t); err != nil {
				return err
			}
			defer mu.Unlock(t)
			for !ready {
				if err := cond.Wait(t); err != nil {
					return err
				}
			}
			return nil
		})
		n.Go("sa", func(t *sched.Task) error { return a.Send(t, 1) })
		n.Go("sb", func(t *sched.Task) error {
			_, err := sched.Select(t, b.SendCase(2), a.SendCase(2))
			return err
		})
		got := 0
		for range 2 {
			var v int
			if _, err := sched.Select(t, a.RecvCase(&v, nil), b.RecvCase(&v, nil)); err != nil {
				return err
			}
			got += v
		}
		if got != 3 {
			panic(got)
		}
		if err := wg.Wait(t); err != nil {
			return err
		}
		if err := mu.Lock(t); err != nil {
			return err
		}
		ready = true
		cond.Broadcast(t)
		mu.Unlock(t)
		if _, err := sched.Select(t, sched.After(t, time.Millisecond).RecvCase(nil, nil)); err != nil {
			return err
		}
		if count != 4 {
			panic(count)
		}
		return nil
	})
}

func TestPrimitivesUnderDriver(t *testing.T) {
	Check(t, primitivesBody, Seeds(50))
}
