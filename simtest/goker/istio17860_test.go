package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "istio_17860", Subtype: commChan, Body: istio17860})

// istio17860: the proxy agent's Restart starts a task per epoch that
// reports the epoch's exit on an unbuffered status channel, and the
// agent's Run returns once no epoch is active (or its context is
// cancelled). When Run has already returned, the second epoch's task
// blocks on its report forever. The fix has the epoch's task give up the
// report when the agent's context is cancelled.
func istio17860(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		ctx := newCtx(t, "agent_ctx")
		mu := newMutex(t, "agent_mu")
		statusCh := sched.NewChan[int](s, "status_ch", 0)
		currentEpoch := 0
		activeEpochs := map[int]bool{}
		run := func(t *sched.Task) error {
			for {
				var status int
				i, err := sched.Select(t, statusCh.RecvCase(&status, nil), ctx.done.RecvCase(nil, nil))
				if err != nil || i == 1 {
					return err
				}
				if err := mu.lock(t); err != nil {
					return err
				}
				delete(activeEpochs, status)
				active := len(activeEpochs)
				if err := mu.unlock(t); err != nil {
					return err
				}
				if active == 0 {
					return nil
				}
			}
		}
		runWait := func(epoch int) sched.Func {
			return func(t *sched.Task) error {
				if !fixed {
					return statusCh.Send(t, epoch)
				}
				_, err := sched.Select(t, statusCh.SendCase(epoch), ctx.done.RecvCase(nil, nil))
				return err
			}
		}
		// waitUntilLive: the proxy is never live, so an agent with an active
		// epoch waits for the timer.
		waitUntilLive := func(t *sched.Task) error {
			if len(activeEpochs) == 0 {
				return nil
			}
			interval := sched.NewTicker(t, 30*time.Nanosecond)
			defer interval.Stop()
			timer := sched.NewTimer(t, 100*time.Nanosecond)
			defer timer.Stop()
			for {
				i, err := sched.Select(t, timer.C.RecvCase(nil, nil), interval.C.RecvCase(nil, nil))
				if err != nil || i == 0 {
					return err
				}
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			restart := func(t *sched.Task) error {
				if err := mu.lock(t); err != nil {
					return err
				}
				if err := waitUntilLive(t); err != nil {
					return err
				}
				currentEpoch++
				activeEpochs[currentEpoch] = true
				if err := n.GoFrom(t, "run_wait", runWait(currentEpoch)); err != nil {
					return err
				}
				return mu.unlock(t)
			}
			if err := n.Go("agent_run", run); err != nil {
				return err
			}
			if err := restart(t); err != nil {
				return err
			}
			if err := n.Go("restart", restart); err != nil {
				return err
			}
			if err := t.SleepFor(200 * time.Nanosecond); err != nil {
				return err
			}
			return ctx.cancel(t)
		})
	}
}
