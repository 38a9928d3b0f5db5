package examples

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched"
)

// mutex is a lock made of a capacity-1 Chan: a send takes it (it blocks
// while another task holds it), a receive gives it back.
type mutex struct{ c *sched.Chan[struct{}] }

func newMutex(t *sched.Task, name string) mutex {
	return mutex{sched.NewChan[struct{}](t.Scheduler(), name, 1)}
}

func (m mutex) lock(t *sched.Task) error { return m.c.Send(t, struct{}{}) }

func (m mutex) unlock(t *sched.Task) error {
	_, _, err := m.c.Recv(t)
	return err
}

// LockOrder moves money between two accounts, each guarded by a lock, from
// two tasks at once. The bug: each task takes the lock of the account it
// takes from first, so the two tasks take the locks in opposite orders,
// and when each holds its first lock neither can take its second: a
// deadlock. The fix takes the locks in one global order.
func LockOrder(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		a, b := newMutex(t, "lock_a"), newMutex(t, "lock_b")
		balance := map[string]int{"a": 100, "b": 100}
		transfer := func(from, to string, fromLock, toLock mutex, amount int) sched.Func {
			return func(t *sched.Task) error {
				first, second := fromLock, toLock
				if fixed && from == "b" { // the global order: lock_a before lock_b
					first, second = toLock, fromLock
				}
				if err := first.lock(t); err != nil {
					return err
				}
				if err := second.lock(t); err != nil {
					return err
				}
				balance[from] -= amount
				balance[to] += amount
				if err := second.unlock(t); err != nil {
					return err
				}
				return first.unlock(t)
			}
		}
		err := t.Nursery(sched.NurseryOptions{Label: "transfers"}, func(n *sched.Nursery) error {
			if err := n.Go("a_to_b", transfer("a", "b", a, b, 30)); err != nil {
				return err
			}
			return n.Go("b_to_a", transfer("b", "a", b, a, 20))
		})
		if err != nil {
			return err
		}
		if balance["a"] != 90 || balance["b"] != 110 {
			return fmt.Errorf("balances a=%d b=%d, want 90 and 110", balance["a"], balance["b"])
		}
		return nil
	}
}

// LostMessage has producers send their results to a consumer over a
// buffered Chan and a closer close it once every producer is done. The
// bug: a producer announces that it is done before its send, so the
// closer can close the channel between the announcement and the send; the
// send then fails with ErrChannelClosed and the result is lost (the
// producer takes the closed channel for "nobody wants it"). The fix
// announces after the send has returned.
func LostMessage(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const producers = 3
		results := sched.NewChan[int](t.Scheduler(), "results", producers)
		var done atomic.Int32
		got := 0
		err := t.Nursery(sched.NurseryOptions{Label: "pipeline"}, func(n *sched.Nursery) error {
			for i := 0; i < producers; i++ {
				if err := n.Go("producer", func(t *sched.Task) error {
					if !fixed {
						done.Add(1)
					}
					if err := results.Send(t, i*i); err != nil {
						if errors.Is(err, sched.ErrChannelClosed) {
							return nil // closed: the result is dropped
						}
						return err
					}
					if fixed {
						done.Add(1)
					}
					return nil
				}); err != nil {
					return err
				}
			}
			if err := n.Go("closer", func(t *sched.Task) error {
				for done.Load() < producers {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				return results.Close(t)
			}); err != nil {
				return err
			}
			return n.Go("consumer", func(t *sched.Task) error {
				for {
					_, ok, err := results.Recv(t)
					if err != nil || !ok {
						return err
					}
					got++
				}
			})
		})
		if err != nil {
			return err
		}
		if got != producers {
			return fmt.Errorf("the consumer got %d of %d results: %d lost", got, producers, producers-got)
		}
		return nil
	}
}

// BoundedBuffer passes items from a producer to a consumer through a
// buffer of two slots guarded by a lock. The bug: a producer that finds
// the buffer full waits for room while still holding the lock, so the
// consumer, which needs the lock to take an item, starves, and the
// producer spins forever: a livelock. The fix gives the lock back while
// it waits.
func BoundedBuffer(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const slots, items = 2, 6
		mu := newMutex(t, "buffer_lock")
		var buf []int
		got := 0
		err := t.Nursery(sched.NurseryOptions{Label: "buffer"}, func(n *sched.Nursery) error {
			if err := n.Go("producer", func(t *sched.Task) error {
				for i := 0; i < items; i++ {
					if err := mu.lock(t); err != nil {
						return err
					}
					for len(buf) == slots {
						if fixed {
							if err := mu.unlock(t); err != nil {
								return err
							}
						}
						if err := t.Yield(); err != nil {
							return err
						}
						if fixed {
							if err := mu.lock(t); err != nil {
								return err
							}
						}
					}
					buf = append(buf, i)
					if err := mu.unlock(t); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
			return n.Go("consumer", func(t *sched.Task) error {
				for got < items {
					if err := mu.lock(t); err != nil {
						return err
					}
					if len(buf) > 0 {
						buf = buf[1:]
						got++
					}
					if err := mu.unlock(t); err != nil {
						return err
					}
					if err := t.Yield(); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		if got != items {
			return fmt.Errorf("the consumer got %d of %d items", got, items)
		}
		return nil
	}
}

// RacyGoroutine starts a real goroutine that counts while the body's
// tasks read the count and decide on it: the decisions depend on how the
// OS schedules the goroutine, not on the seed, so the same seed does not
// repeat itself. simtest reports it as nondeterministic.
func RacyGoroutine() sched.Func {
	return func(t *sched.Task) error {
		var count atomic.Int64
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
					count.Add(1)
					runtime.Gosched()
				}
			}
		}()
		defer close(stop)
		for i := 0; i < 8; i++ {
			if count.Load()%2 == 0 { // the race decides whether this task yields an extra time
				if err := t.Yield(); err != nil {
					return err
				}
			}
			if err := t.Yield(); err != nil {
				return err
			}
		}
		return nil
	}
}

// BlockedOnGoroutine waits on a Go channel that no goroutine ever feeds:
// under the simulator the whole run waits with it, and simtest reports
// the run as blocked outside the scheduler once Stall has passed.
func BlockedOnGoroutine() sched.Func {
	return func(t *sched.Task) error {
		never := make(chan int)
		go func() {
			select {} // the goroutine that was meant to send, stuck elsewhere
		}()
		<-never
		return nil
	}
}
