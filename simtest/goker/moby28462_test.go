package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_28462", Subtype: mixedLock, Body: moby28462})

// moby28462: a container's health monitor loops, taking the container's
// lock to handle each probe result, until it receives on its stop
// channel. A state change takes the container's lock and, holding it,
// stops the monitor by a blocking send on that channel, while the monitor
// waits for the lock. The fix closes the stop channel instead, which
// never blocks.
func moby28462(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		c := newMutex(t, "container")
		stop := sched.NewChan[struct{}](t.Scheduler(), "health_stop", 0)
		monitor := func(t *sched.Task) error {
			for {
				i, err := sched.Select(t, stop.RecvCase(nil, nil), sched.DefaultCase())
				if err != nil || i == 0 {
					return err
				}
				if err := c.lock(t); err != nil { // handleProbeResult
					return err
				}
				if err := c.unlock(t); err != nil {
					return err
				}
			}
		}
		stateChanged := func(t *sched.Task) error {
			if err := c.lock(t); err != nil {
				return err
			}
			defer c.unlock(t)
			if fixed { // CloseMonitorChannel
				return stop.Close(t)
			}
			return stop.Send(t, struct{}{})
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"monitor", monitor}, task{"state_changed", stateChanged})
		})
	}
}
