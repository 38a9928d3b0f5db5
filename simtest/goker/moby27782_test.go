package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "moby_27782", Subtype: commChanCV, Body: moby27782})

// moby27782: following a container's logs waits for a file event or for
// the log watcher to close; closed, it removes the file watch, which
// waits on the watcher's condition variable until the watch is gone. The
// watch is gone only when the event reader sees the kernel's "ignored"
// event for it, and the reader never produces one: Remove waits forever,
// and the reader, sending events nobody reads, waits for a close that
// would come after Remove. The fix has Remove ask for the removal, which
// the reader turns into the ignored event that clears the watch and wakes
// Remove.
func moby27782(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		events := sched.NewChan[string](s, "events", 0)
		done := sched.NewChan[struct{}](s, "watcher_done", 0)
		closeNotifier := sched.NewChan[struct{}](s, "close_notifier", 0)
		mu := newMutex(t, "watcher_mu")
		cv := newCond(mu)
		removeReq := sched.NewChan[struct{}](s, "inotify_rm_watch", 1)
		exists, readerRegistered := true, false
		readEvents := func(t *sched.Task) error {
			defer events.Close(t)
			for {
				if _, _, ready := done.TryRecv(t); ready {
					return nil
				}
				if err := t.SleepFor(300 * time.Nanosecond); err != nil {
					return err
				}
				i, err := sched.Select(t, events.SendCase("write"), done.RecvCase(nil, nil), removeReq.RecvCase(nil, nil))
				if err != nil || i == 1 {
					return err
				}
				if i == 2 { // the ignored event of a removed watch: ignoreLinux
					if err := mu.lock(t); err != nil {
						return err
					}
					exists = false
					if err := cv.broadcast(t); err != nil {
						return err
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
				}
			}
		}
		remove := func(t *sched.Task) error {
			if err := mu.lock(t); err != nil {
				return err
			}
			if fixed {
				if _, err := removeReq.TrySend(t, struct{}{}); err != nil {
					return err
				}
			}
			for exists {
				if err := cv.wait(t); err != nil {
					return err
				}
			}
			return mu.unlock(t)
		}
		followLogs := func(t *sched.Task) error {
			readerRegistered = true
			defer done.Close(t) // fileWatcher.Close
			if err := t.SleepFor(300 * time.Nanosecond); err != nil {
				return err
			}
			i, err := sched.Select(t, events.RecvCase(nil, nil), closeNotifier.RecvCase(nil, nil))
			if err != nil || i == 0 {
				return err
			}
			return remove(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := goAll(n, task{"read_events", readEvents}, task{"read_logs", followLogs}); err != nil {
				return err
			}
			// startLogging failed: Reset closes the log driver's readers, read
			// without a lock while readLogs registers itself: the Yield is
			// the preemption Go has between the two.
			if err := t.Yield(); err != nil {
				return err
			}
			if readerRegistered {
				return closeNotifier.Close(t)
			}
			return nil
		})
	}
}
