package goker

import (
	"math/rand/v2"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "grpc_660", Subtype: commChan, Body: grpc660})

// grpc660: the benchmark client's loop starts a call on a task of its own
// that reports on an unbuffered done channel, and waits for either the
// done channel or the stop channel. When stop wins, the loop returns and
// the call's task blocks on its send forever. The fix gives the done
// channel room for the one report.
func grpc660(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rng := rand.New(rand.NewPCG(t.Scheduler().Config().Seed, 660))
		stop := sched.NewChan[bool](t.Scheduler(), "stop", 0)
		loop := func(t *sched.Task) error {
			return scope(t, func(n *sched.Nursery) error {
				for {
					capacity := 0
					if fixed {
						capacity = 1
					}
					done := sched.NewChan[bool](t.Scheduler(), "done", capacity)
					if err := n.Go("unary_call", func(t *sched.Task) error {
						return done.Send(t, rng.IntN(10) <= 7)
					}); err != nil {
						return err
					}
					i, err := sched.Select(t, stop.RecvCase(nil, nil), done.RecvCase(nil, nil))
					if err != nil || i == 0 {
						return err
					}
				}
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"close_loop_unary", loop},
				task{"stopper", func(t *sched.Task) error { return stop.Send(t, true) }})
		})
	}
}
