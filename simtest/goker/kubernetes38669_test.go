package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_38669", Subtype: commChan, Body: kubernetes38669})

// kubernetes38669: a cache watcher's loop first sends its initial events
// on the unbuffered result channel, then reads its input until Stop
// closes it. A client that stops the watcher without reading the results
// leaves the loop blocked on its first send forever. The fix has the
// sends give up once the watcher is stopped.
func kubernetes38669(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		mu := newMutex(t, "cache_watcher")
		input := sched.NewChan[int](s, "input", 0)
		result := sched.NewChan[int](s, "result", 0)
		done := sched.NewChan[struct{}](s, "done", 0)
		stopped := false
		stop := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			defer mu.unlock(t)
			if stopped {
				return nil
			}
			stopped = true
			if err := done.Close(t); err != nil {
				return err
			}
			return input.Close(t)
		}
		process := func(t *sched.Task) error {
			for _, event := range []int{1, 2} { // the initial events
				cases := []sched.SelectCase{result.SendCase(event)}
				if fixed {
					cases = append(cases, done.RecvCase(nil, nil))
				}
				if _, err := sched.Select(t, cases...); err != nil {
					return err
				}
			}
			for {
				_, ok, err := input.Recv(t)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
			}
			if err := stop(t); err != nil {
				return err
			}
			return result.Close(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("watcher_process", process); err != nil {
				return err
			}
			return stop(t)
		})
	}
}
