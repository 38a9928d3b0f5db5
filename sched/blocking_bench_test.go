package sched_test

import (
	"context"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
)

// BenchmarkBlocking: b.N tasks spawned into one nursery on GOMAXPROCS
// workers, each making one Blocking call of a function that returns at
// once (blocking), or none (spawn, the SpawnJoin workload without the
// bench harness); the difference is the cost of a Blocking call: a
// context, a goroutine, a park and a wake-up. sequential is one task
// making b.N calls in a row: the latency of one round trip.
func BenchmarkBlocking(b *testing.B) {
	noop := func(context.Context) error { return nil }
	for _, c := range []struct {
		name string
		fn   sched.Func
	}{
		{"spawn", func(*sched.Task) error { return nil }},
		{"blocking", func(t *sched.Task) error { return t.Blocking(noop) }},
		{"sequential", nil}, // one task, b.N calls one after the other: the round trip
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := sched.New(sched.Config{Budget: sched.Unlimited})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			res := s.Run("main", func(t *sched.Task) error {
				if c.name == "sequential" {
					for range b.N {
						if err := t.Blocking(noop); err != nil {
							return err
						}
					}
					return nil
				}
				return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
					for range b.N {
						if err := n.Go("task", c.fn); err != nil {
							return err
						}
					}
					return nil
				})
			})
			if res.Kind != sched.KindOK {
				b.Fatal(res)
			}
		})
	}
}
