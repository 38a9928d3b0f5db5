package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "etcd_5509", Subtype: doubleLock, Body: etcd5509})

// etcd5509: a KV request acquires the client's connection by read-locking
// the client and, when the client is closed, returns ErrConnClosed
// without releasing the read lock. Close, which cancels the client under
// the write lock, then releases and takes the write lock again, and that
// second Lock waits forever for the leaked read lock. The fix releases
// the read lock before returning.
func etcd5509(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		errConnClosed := errors.New("conn closed")
		clientMu := newRWMutex(t, "client_mu")
		remoteMu := newMutex(t, "remote_mu")
		cancelled := false
		acquire := func(t *sched.Task) error {
			for {
				if err := clientMu.rlock(t); err != nil {
					return err
				}
				closed := cancelled
				if err := remoteMu.lock(t); err != nil {
					return err
				}
				if err := remoteMu.unlock(t); err != nil {
					return err
				}
				if closed {
					if fixed {
						if err := clientMu.runlock(t); err != nil {
							return err
						}
					}
					return errConnClosed
				}
				if err := clientMu.runlock(t); err != nil {
					return err
				}
			}
		}
		closeClient := func(t *sched.Task) error {
			if err := clientMu.lock(t); err != nil {
				return err
			}
			cancelled = true
			if err := clientMu.unlock(t); err != nil {
				return err
			}
			if err := clientMu.lock(t); err != nil {
				return err
			}
			return clientMu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := n.Go("kv_get", func(t *sched.Task) error {
				if err := acquire(t); !errors.Is(err, errConnClosed) {
					return err
				}
				return nil
			}); err != nil {
				return err
			}
			return closeClient(t)
		})
	}
}
