package goker

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_5316", Subtype: commChan, Body: kubernetes5316})

// kubernetes5316: finishing an API request runs the handler on a task of
// its own, which reports success or its error on one of two unbuffered
// channels, and waits for either report or a timeout. When the timeout
// comes first (the handler takes 2 ms, the timeout is 1 ms), nobody is
// left to receive and the handler's task blocks on its send forever. The
// fix gives both channels room for the report.
func kubernetes5316(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rng := rand.New(rand.NewPCG(t.Scheduler().Config().Seed, 5316))
		capacity := 0
		if fixed {
			capacity = 1
		}
		ch := sched.NewChan[bool](t.Scheduler(), "ch", capacity)
		errCh := sched.NewChan[error](t.Scheduler(), "err_ch", capacity)
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("handler", func(t *sched.Task) error {
				if err := t.SleepFor(2 * time.Millisecond); err != nil {
					return err
				}
				if rng.IntN(10) > 5 {
					return errCh.Send(t, errors.New("handler failed"))
				}
				return ch.Send(t, true)
			}); err != nil {
				return err
			}
			_, err := sched.Select(t, ch.RecvCase(nil, nil), errCh.RecvCase(nil, nil),
				sched.After(t, time.Millisecond).RecvCase(nil, nil))
			return err
		})
	}
}
