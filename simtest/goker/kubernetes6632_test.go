package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_6632", Subtype: mixedLock, Body: kubernetes6632})

// kubernetes6632: an idle-aware framer's WriteFrame takes the write lock
// and, holding it, sends on the reset channel to the idle monitor. The
// monitor only waits for the connection to close, and then takes the
// write lock to close the reset channel: WriteFrame waits for a receiver
// that waits for WriteFrame's lock. The fix has the monitor receive the
// resets, and WriteFrame offer its reset without blocking: a monitor that
// is closing takes no reset, and is not waited for.
func kubernetes6632(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		writeLock := newMutex(t, "write_lock")
		resetChan := sched.NewChan[bool](s, "reset_chan", 0)
		closeChan := sched.NewChan[bool](s, "close_chan", 0)
		resetOpen := true
		monitor := func(t *sched.Task) error {
			for {
				cases := []sched.SelectCase{closeChan.RecvCase(nil, nil)}
				if fixed {
					cases = append(cases, resetChan.RecvCase(nil, nil))
				}
				i, err := sched.Select(t, cases...)
				if err != nil {
					return err
				}
				if i == 1 {
					continue // the idle timer is reset
				}
				if err := writeLock.lock(t); err != nil {
					return err
				}
				resetOpen = false
				if err := resetChan.Close(t); err != nil {
					return err
				}
				return writeLock.unlock(t)
			}
		}
		writeFrame := func(t *sched.Task) error {
			if err := writeLock.lock(t); err != nil {
				return err
			}
			defer writeLock.unlock(t)
			if !resetOpen {
				return nil
			}
			if fixed {
				_, err := resetChan.TrySend(t, true)
				return err
			}
			return resetChan.Send(t, true)
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"closer", func(t *sched.Task) error { return closeChan.Send(t, true) }},
				task{"monitor", monitor}, task{"write_frame", writeFrame})
		})
	}
}
