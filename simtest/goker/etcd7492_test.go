package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "etcd_7492", Subtype: mixedLock, Body: etcd7492})

// etcd7492: assigning a simple token takes the token provider's lock and,
// holding it, hands the token to the TTL keeper over a capacity-1
// channel. The keeper's loop, on each tick of its ticker, deletes expired
// tokens through a callback that takes the provider's lock. With the
// channel full and the keeper in its deletion, the assigner waits for the
// keeper and the keeper for the assigner's lock. The fix hands the token
// over after releasing the lock. (The keeper's Ticker is still running
// when the two are stuck; since no task waits on it any more, simtest
// reports the run as a deadlock, not as a clock ticking until the step
// bound.)
func etcd7492(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		tokensMu := newRWMutex(t, "simple_tokens_mu")
		addCh := sched.NewChan[struct{}](s, "add_simple_token_ch", 1)
		stopCh := sched.NewChan[*sched.Chan[struct{}]](s, "stop_ch", 0)
		tokens := 0
		keeper := func(t *sched.Task) error {
			ticker := sched.NewTicker(t, time.Nanosecond)
			defer ticker.Stop()
			for {
				var waitCh *sched.Chan[struct{}]
				i, err := sched.Select(t, addCh.RecvCase(nil, nil), ticker.C.RecvCase(nil, nil), stopCh.RecvCase(&waitCh, nil))
				if err != nil {
					return err
				}
				switch i {
				case 0:
					tokens = 1
				case 1:
					for ; tokens > 0; tokens-- { // deleteTokenFunc
						if err := tokensMu.lock(t); err != nil {
							return err
						}
						if err := tokensMu.unlock(t); err != nil {
							return err
						}
					}
				case 2:
					return waitCh.Send(t, struct{}{})
				}
			}
		}
		assign := func(t *sched.Task) error {
			if err := tokensMu.lock(t); err != nil {
				return err
			}
			if fixed {
				if err := tokensMu.unlock(t); err != nil {
					return err
				}
				return addCh.Send(t, struct{}{})
			}
			if err := addCh.Send(t, struct{}{}); err != nil {
				return err
			}
			return tokensMu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("ttl_keeper", keeper); err != nil {
				return err
			}
			wg := newWaitGroup(t, "authenticate")
			if err := wg.add(t, 3); err != nil {
				return err
			}
			for i := 0; i < 3; i++ {
				if err := n.Go("authenticate", func(t *sched.Task) error {
					if err := assign(t); err != nil {
						return err
					}
					return wg.done(t)
				}); err != nil {
					return err
				}
			}
			if err := wg.wait(t); err != nil {
				return err
			}
			waitCh := sched.NewChan[struct{}](s, "wait_ch", 0) // tearDown: keeper.stop
			if err := stopCh.Send(t, waitCh); err != nil {
				return err
			}
			if _, _, err := waitCh.Recv(t); err != nil {
				return err
			}
			return stopCh.Close(t)
		})
	}
}
