package goker

import (
	"errors"
	"math/rand/v2"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_33293", Subtype: commChan, Body: moby33293})

// moby33293: containerWait makes an unbuffered error channel, and when
// the wait fails it sends the error on it before returning it: nobody
// receives yet, so the send blocks forever. Whether the wait fails is
// random (the run's own randomness, taken from the run's seed). The fix
// gives the channel room for the one error.
func moby33293(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		rng := rand.New(rand.NewPCG(t.Scheduler().Config().Seed, 33293))
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("container_wait", func(t *sched.Task) error {
				capacity := 0
				if fixed {
					capacity = 1
				}
				errC := sched.NewChan[error](t.Scheduler(), "err_c", capacity)
				if rng.IntN(2) == 1 { // the wait failed
					return errC.Send(t, errors.New("container wait failed"))
				}
				return nil
			})
		})
	}
}
