package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_33781", Subtype: commChanCtx, Body: moby33781})

// moby33781: a container's health monitor probes at every interval: the
// probe runs on a task of its own and reports on an unbuffered results
// channel, and the monitor waits for the result, the probe's timeout or
// the stop signal. When stop wins, the monitor returns without taking the
// result, and the probe blocks on its send forever. The fix drains the
// result before returning.
func moby33781(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		stop := sched.NewChan[bool](s, "stop", 0)
		const probeInterval, probeTimeout = 50 * time.Nanosecond, 50 * time.Nanosecond
		monitor := func(t *sched.Task) error {
			return scope(t, func(n *sched.Nursery) error {
				for {
					i, err := sched.Select(t, stop.RecvCase(nil, nil), sched.After(t, probeInterval).RecvCase(nil, nil))
					if err != nil || i == 0 {
						return err
					}
					results := sched.NewChan[bool](s, "results", 0)
					if err := n.Go("probe", func(t *sched.Task) error {
						if err := results.Send(t, true); err != nil {
							return err
						}
						return results.Close(t)
					}); err != nil {
						return err
					}
					probeCtx := sched.NewTimer(t, probeTimeout) // context.WithTimeout
					i, err = sched.Select(t, stop.RecvCase(nil, nil), results.RecvCase(nil, nil), probeCtx.C.RecvCase(nil, nil))
					probeCtx.Stop() // cancelProbe
					switch {
					case err != nil:
						return err
					case i == 0:
						if fixed {
							_, _, err = results.Recv(t)
						}
						return err
					case i == 2:
						if _, _, err := results.Recv(t); err != nil {
							return err
						}
					}
				}
			})
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"monitor", monitor}, task{"stopper", func(t *sched.Task) error {
				if err := t.SleepFor(50 * time.Nanosecond); err != nil {
					return err
				}
				return stop.Send(t, true)
			}})
		})
	}
}
