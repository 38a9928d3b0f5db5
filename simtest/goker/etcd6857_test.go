package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "etcd_6857", Subtype: commChan, Body: etcd6857})

// etcd6857: a raft node's loop serves status requests (a reply channel
// sent on the status channel) until it is stopped, then closes its done
// channel and returns. A Status call that comes after Stop sends its
// request to a loop that no longer receives, and waits forever. The fix
// has Status give up when the node is done.
func etcd6857(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		status := sched.NewChan[*sched.Chan[struct{}]](s, "status", 0)
		stop := sched.NewChan[struct{}](s, "stop", 0)
		done := sched.NewChan[struct{}](s, "done", 0)
		run := func(t *sched.Task) error {
			for {
				var c *sched.Chan[struct{}]
				i, err := sched.Select(t, status.RecvCase(&c, nil), stop.RecvCase(nil, nil))
				if err != nil {
					return err
				}
				if i == 1 {
					return done.Close(t)
				}
				if err := c.Send(t, struct{}{}); err != nil {
					return err
				}
			}
		}
		getStatus := func(t *sched.Task) error {
			c := sched.NewChan[struct{}](t.Scheduler(), "status_reply", 0)
			if fixed {
				i, err := sched.Select(t, status.SendCase(c), done.RecvCase(nil, nil))
				if err != nil || i == 1 {
					return err
				}
			} else if err := status.Send(t, c); err != nil {
				return err
			}
			_, _, err := c.Recv(t)
			return err
		}
		stopNode := func(t *sched.Task) error {
			i, err := sched.Select(t, stop.SendCase(struct{}{}), done.RecvCase(nil, nil))
			if err != nil || i == 1 {
				return err
			}
			_, _, err = done.Recv(t)
			return err
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"run", run}, task{"status", getStatus}, task{"stop", stopNode})
		})
	}
}
