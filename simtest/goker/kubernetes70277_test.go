package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_70277", Subtype: commChan, Body: kubernetes70277})

// kubernetes70277: WaitFor hands the wait function (a poller ticking
// every millisecond) the caller's done channel, and returns once the
// condition holds, leaving the poller running until that channel is
// closed. The test checks that the channel the poller got is closed when
// WaitFor returns; it is the test's own stop channel, closed only after
// the check, so the check waits forever. The fix has WaitFor give the
// poller a channel of its own and close it on return. (GoKer's poller
// times out after 20 s; here after 50 ms of virtual time, which changes
// nothing but the length of a run.)
func kubernetes70277(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		stopCh := sched.NewChan[struct{}](s, "stop_ch", 0)
		poller := func(n *sched.Nursery, done *sched.Chan[struct{}]) (*sched.Chan[struct{}], error) {
			ch := sched.NewChan[struct{}](s, "poll_ch", 0)
			return ch, n.Go("poller", func(t *sched.Task) error {
				tick := sched.NewTicker(t, time.Millisecond)
				defer tick.Stop()
				timer := sched.NewTimer(t, 50*time.Millisecond)
				defer timer.Stop()
				for {
					i, err := sched.Select(t, tick.C.RecvCase(nil, nil), timer.C.RecvCase(nil, nil), done.RecvCase(nil, nil))
					if err != nil {
						return err
					}
					if i != 0 {
						return ch.Close(t)
					}
					if _, err := ch.TrySend(t, struct{}{}); err != nil {
						return err
					}
				}
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			var doneCh *sched.Chan[struct{}]
			waitFor := func(t *sched.Task, done *sched.Chan[struct{}]) error {
				if fixed {
					done = sched.NewChan[struct{}](s, "wait_for_done", 0)
					defer done.Close(t)
				}
				doneCh = done
				c, err := poller(n, done)
				if err != nil {
					return err
				}
				_, _, err = c.Recv(t) // the condition holds at once
				return err
			}
			if err := waitFor(t, stopCh); err != nil {
				return err
			}
			if _, _, err := doneCh.Recv(t); err != nil {
				return err
			}
			return stopCh.Close(t)
		})
	}
}
