package goker

import (
	"fmt"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "kubernetes_58107", Subtype: rwr, Body: kubernetes58107})

// kubernetes58107: the resource quota controller's workers take the
// worker lock for reading and, holding it, wait on their work queue for
// an item. The resync takes the worker lock for writing and fills the
// queues under it. A worker that reads the lock before the resync writes
// it waits for an item that only the blocked resync would add. The fix
// takes the item from the queue before taking the worker lock.
func kubernetes58107(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		workerLock := newRWMutex(t, "worker_lock")
		type queue struct {
			mu    *mutex
			c     *cond
			items int
		}
		newQueue := func(name string) *queue {
			mu := newMutex(t, name)
			return &queue{mu: mu, c: newCond(mu)}
		}
		get := func(t *sched.Task, q *queue) error {
			if err := q.mu.lock(t); err != nil {
				return err
			}
			for q.items == 0 {
				if err := q.c.wait(t); err != nil {
					return err
				}
			}
			q.items--
			return q.mu.unlock(t)
		}
		put := func(t *sched.Task, q *queue) error {
			if err := q.mu.lock(t); err != nil {
				return err
			}
			q.items++
			if err := q.c.signal(t); err != nil {
				return err
			}
			return q.mu.unlock(t)
		}
		queues := []*queue{newQueue("queue"), newQueue("missing_usage_queue")}
		worker := func(q *queue) sched.Func {
			return func(t *sched.Task) error {
				if fixed {
					if err := get(t, q); err != nil {
						return err
					}
				}
				if err := workerLock.rlock(t); err != nil {
					return err
				}
				if !fixed {
					if err := get(t, q); err != nil {
						return err
					}
				}
				return workerLock.runlock(t)
			}
		}
		return scope(t, func(n *sched.Nursery) error {
			for i, q := range queues {
				if err := n.Go(fmt.Sprintf("worker_%d", i), worker(q)); err != nil {
					return err
				}
			}
			return n.Go("resync", func(t *sched.Task) error {
				if err := workerLock.lock(t); err != nil {
					return err
				}
				for _, q := range queues {
					if err := put(t, q); err != nil {
						return err
					}
				}
				return workerLock.unlock(t)
			})
		})
	}
}
