package sched_test

import (
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

func TestSmokeNewPrimitives(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s, _ := sched.New(sched.Config{Workers: workers, Budget: sched.Unlimited})
		res := s.Run("main", func(t *sched.Task) error {
			var mu sched.Mutex
			var wg sched.WaitGroup
			count := 0
			a := sched.NewChan[int](t.Scheduler(), "a", 0)
			b := sched.NewChan[int](t.Scheduler(), "b", 0)
			return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				for i := 0; i < 10; i++ {
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
				}
				n.Go("sa", func(t *sched.Task) error { return a.Send(t, 1) })
				n.Go("sb", func(t *sched.Task) error { return b.Send(t, 2) })
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
				tm := sched.After(t, time.Millisecond)
				if _, err := sched.Select(t, tm.RecvCase(nil, nil)); err != nil {
					return err
				}
				if count != 10 {
					panic(count)
				}
				return nil
			})
		})
		if res.String() != "ok" {
			t.Fatalf("workers %d: %s", workers, res)
		}
	}
}
