package sched_test

// The costs of issue 27's primitives against their Go equivalents, each
// pair in one run (docs/performance.md#go-concurrency-primitives):
//
//	go test -run '^$' -bench 'Mutex|Select|Try|Cond|WaitGroupCycle|Timer' -benchmem -count 5 ./sched
//
// cbcsim runs in real mode on one worker (the hand-overs are then fiber
// switches, as Go's are goroutine switches on GOMAXPROCS=1); ns/op is one
// operation (one Lock and Unlock, one Select, one hand-over...).

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

// runOne runs fn as the root on one worker, failing b on an error.
func runOne(b *testing.B, fn sched.Func) {
	b.Helper()
	s, err := sched.New(sched.Config{Workers: 1, Budget: sched.Unlimited})
	if err != nil {
		b.Fatal(err)
	}
	if res := s.Run("bench", fn); res.String() != "ok" {
		b.Fatal(res)
	}
}

// pair runs two tasks to their end.
func pair(t *sched.Task, a, c sched.Func) error {
	return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
		n.Go("a", a)
		n.Go("b", c)
		return nil
	})
}

// BenchmarkMutexUncontended: Lock and Unlock with no other task.
func BenchmarkMutexUncontended(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			var mu sched.Mutex
			for range b.N {
				if err := mu.Lock(t); err != nil {
					return err
				}
				mu.Unlock(t)
			}
			return nil
		})
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.Mutex
		for range b.N {
			mu.Lock()
			//lint:ignore SA2001 the benchmark is an uncontended Lock and Unlock, nothing between
			mu.Unlock()
		}
	})
}

// BenchmarkMutexContended: two tasks take turns holding the lock across a
// yield, so that every Lock waits and every Unlock hands the lock over.
func BenchmarkMutexContended(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			var mu sched.Mutex
			loop := func(t *sched.Task) error {
				for range b.N / 2 {
					if err := mu.Lock(t); err != nil {
						return err
					}
					if err := t.Yield(); err != nil {
						return err
					}
					mu.Unlock(t)
				}
				return nil
			}
			return pair(t, loop, loop)
		})
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range b.N / 2 {
					mu.Lock()
					runtime.Gosched()
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	})
}

// BenchmarkSelectReady: a Select of two receive cases, one ready (a value
// sent to it just before).
func BenchmarkSelectReady(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			x := sched.NewChan[int](t.Scheduler(), "x", 1)
			y := sched.NewChan[int](t.Scheduler(), "y", 1)
			var v int
			for i := range b.N {
				if err := x.Send(t, i); err != nil {
					return err
				}
				if _, err := sched.Select(t, x.RecvCase(&v, nil), y.RecvCase(&v, nil)); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		x, y := make(chan int, 1), make(chan int, 1)
		for i := range b.N {
			x <- i
			select {
			case <-x:
			case <-y:
			}
		}
	})
}

// BenchmarkSelectPingPong: two tasks hand a value back and forth, each
// waiting in a Select of two cases; ns/op is one hand-over.
func BenchmarkSelectPingPong(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			ping := sched.NewChan[int](t.Scheduler(), "ping", 0)
			pong := sched.NewChan[int](t.Scheduler(), "pong", 0)
			quit := sched.NewChan[int](t.Scheduler(), "quit", 0)
			rounds := max(b.N/2, 1)
			side := func(in, out *sched.Chan[int], first bool) sched.Func {
				return func(t *sched.Task) error {
					if first {
						if err := out.Send(t, 0); err != nil {
							return err
						}
					}
					var v int
					for r := range rounds {
						if _, err := sched.Select(t, in.RecvCase(&v, nil), quit.RecvCase(nil, nil)); err != nil {
							return err
						}
						if !first || r < rounds-1 {
							if err := out.Send(t, v+1); err != nil {
								return err
							}
						}
					}
					return nil
				}
			}
			return pair(t, side(ping, pong, true), side(pong, ping, false))
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		ping, pong, quit := make(chan int), make(chan int), make(chan int)
		var wg sync.WaitGroup
		rounds := max(b.N/2, 1)
		side := func(in, out chan int, first bool) {
			defer wg.Done()
			if first {
				out <- 0
			}
			for r := range rounds {
				var v int
				select {
				case v = <-in:
				case <-quit:
				}
				if !first || r < rounds-1 {
					out <- v + 1
				}
			}
		}
		wg.Add(2)
		go side(ping, pong, true)
		go side(pong, ping, false)
		wg.Wait()
	})
}

// BenchmarkTrySendRecv: one TrySend and one TryRecv on a buffered channel,
// against Go's selects with a default.
func BenchmarkTrySendRecv(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			c := sched.NewChan[int](t.Scheduler(), "c", 1)
			for i := range b.N {
				if _, err := c.TrySend(t, i); err != nil {
					return err
				}
				c.TryRecv(t)
			}
			return nil
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		c := make(chan int, 1)
		for i := range b.N {
			select {
			case c <- i:
			default:
			}
			select {
			case <-c:
			default:
			}
		}
	})
}

// BenchmarkCondPingPong: two tasks take turns through a Cond, each
// waiting for the other's Signal; ns/op is one turn.
func BenchmarkCondPingPong(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			var mu sched.Mutex
			cond := sched.NewCond(&mu)
			turn := 0
			side := func(me int) sched.Func {
				return func(t *sched.Task) error {
					if err := mu.Lock(t); err != nil {
						return err
					}
					defer mu.Unlock(t)
					for range b.N / 2 {
						for turn != me {
							if err := cond.Wait(t); err != nil {
								return err
							}
						}
						turn = 1 - me
						cond.Signal(t)
					}
					return nil
				}
			}
			return pair(t, side(0), side(1))
		})
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		turn := 0
		var wg sync.WaitGroup
		side := func(me int) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for range b.N / 2 {
				for turn != me {
					cond.Wait()
				}
				turn = 1 - me
				cond.Signal()
			}
		}
		wg.Add(2)
		go side(0)
		go side(1)
		wg.Wait()
	})
}

// BenchmarkWaitGroupCycle: Add, Done and a Wait that does not block.
func BenchmarkWaitGroupCycle(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			var wg sched.WaitGroup
			for range b.N {
				wg.Add(1)
				wg.Done(t)
				if err := wg.Wait(t); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(1)
			wg.Done()
			wg.Wait()
		}
	})
}

// BenchmarkTimerStop: a timer made and stopped before it fires.
func BenchmarkTimerStop(b *testing.B) {
	b.Run("cbcsim", func(b *testing.B) {
		b.ReportAllocs()
		runOne(b, func(t *sched.Task) error {
			for range b.N {
				sched.NewTimer(t, time.Hour).Stop()
			}
			return nil
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			time.NewTimer(time.Hour).Stop()
		}
	})
}
