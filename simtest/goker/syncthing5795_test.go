package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "syncthing_5795", Subtype: commChan, Body: syncthing5795})

// syncthing5795: a connection's dispatcher loop hands each message to the
// model; the model closes the connection on a cluster config, and Close
// closes the connection's closed channel and waits for the dispatcher
// loop to stop: the dispatcher, inside the model's call, waits for
// itself. The fix closes the connection on a task of its own.
func syncthing5795(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		inbox := sched.NewChan[string](s, "inbox", 0)
		closed := sched.NewChan[struct{}](s, "closed", 0)
		dispatcherStopped := sched.NewChan[struct{}](s, "dispatcher_loop_stopped", 0)
		closeOnce := false
		internalClose := func(t *sched.Task) error {
			if closeOnce {
				return nil
			}
			closeOnce = true
			if err := closed.Close(t); err != nil {
				return err
			}
			_, _, err := dispatcherStopped.Recv(t)
			return err
		}
		return scope(t, func(n *sched.Nursery) error {
			readerLoop := func(t *sched.Task) error {
				for {
					if _, _, ready := closed.TryRecv(t); ready {
						return nil
					}
					if err := t.Yield(); err != nil {
						return err
					}
				}
			}
			dispatcherLoop := func(t *sched.Task) error {
				for {
					var msg string
					i, err := sched.Select(t, inbox.RecvCase(&msg, nil), closed.RecvCase(nil, nil))
					if err != nil {
						return err
					}
					if i == 1 || msg != "cluster_config" {
						return dispatcherStopped.Close(t)
					}
					// The model's ClusterConfig closes the connection.
					if fixed {
						err = n.GoFrom(t, "internal_close", internalClose)
					} else {
						err = internalClose(t)
					}
					if err != nil {
						return err
					}
				}
			}
			if err := goAll(n, task{"reader_loop", readerLoop}, task{"dispatcher_loop", dispatcherLoop}); err != nil {
				return err
			}
			if err := inbox.Send(t, "cluster_config"); err != nil {
				return err
			}
			_, _, err := dispatcherStopped.Recv(t)
			return err
		})
	}
}
