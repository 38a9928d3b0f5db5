package goker

import (
	"math/rand/v2"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_21233", Subtype: commChan, Body: moby21233})

// moby21233: each transfer has a watcher task that writes progress to an
// unbuffered progress channel until the transfer is released; releasing
// waits for the watcher to stop. The progress consumer may stop reading
// early (at random), and a watcher writing progress then blocks forever,
// and with it the release that waits for it. The fix keeps the consumer
// draining the channel until it is closed.
func moby21233(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		rng := rand.New(rand.NewPCG(s.Config().Seed, 21233))
		progressChan := sched.NewChan[int](s, "progress_chan", 0)
		progressDone := sched.NewChan[struct{}](s, "progress_done", 0)
		type watcher struct {
			transferMu       *mutex
			release, running *sched.Chan[struct{}]
		}
		watch := func(n *sched.Nursery) (*watcher, error) {
			w := &watcher{newMutex(t, "transfer_mu"),
				sched.NewChan[struct{}](s, "release_chan", 0), sched.NewChan[struct{}](s, "running", 0)}
			return w, n.Go("watcher", func(t *sched.Task) error {
				for done := false; ; {
					if err := w.transferMu.lock(t); err != nil {
						return err
					}
					if err := w.transferMu.unlock(t); err != nil {
						return err
					}
					if rng.IntN(2) == 1 {
						if err := progressChan.Send(t, 0); err != nil {
							return err
						}
					}
					if done {
						return w.running.Close(t)
					}
					if _, _, err := w.release.Recv(t); err != nil {
						return err
					}
					done = true
				}
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("progress_consumer", func(t *sched.Task) error {
				for {
					_, ok, err := progressChan.Recv(t)
					if err != nil {
						return err
					}
					if !ok {
						return progressDone.Close(t)
					}
					if rng.IntN(2) == 1 && !fixed {
						return nil // stops reading
					}
				}
			}); err != nil {
				return err
			}
			var watchers []*watcher
			for i := 0; i < 3; i++ {
				w, err := watch(n)
				if err != nil {
					return err
				}
				watchers = append(watchers, w)
			}
			for _, w := range watchers { // Release
				if err := w.release.Close(t); err != nil {
					return err
				}
				if _, _, err := w.running.Recv(t); err != nil {
					return err
				}
			}
			if err := progressChan.Close(t); err != nil {
				return err
			}
			_, _, err := progressDone.Recv(t)
			return err
		})
	}
}
