package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_7559", Subtype: doubleLock, Body: moby7559})

// moby7559: the UDP proxy's loop takes the connection-tracking lock at
// the top of each pass and, when dialing fails, goes on to the next pass
// without releasing it; the next pass blocks on the lock its own task
// holds. The fix releases the lock before going on.
func moby7559(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		mu := newMutex(t, "conn_track_lock")
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("udp_proxy", func(t *sched.Task) error {
				for i := 0; i < 2; i++ {
					if err := mu.lock(t); err != nil {
						return err
					}
					dialFailed := true // net.DialUDP with no address fails
					if dialFailed {
						if fixed {
							if err := mu.unlock(t); err != nil {
								return err
							}
						}
						continue
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
