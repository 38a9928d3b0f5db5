package deque

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// warmDeque returns a deque whose ring has grown to n slots and been
// written through once, so the timed loop pays for no growth and no first
// touch of fresh pages.
func warmDeque[T any](n int, items []T) *Deque[T] {
	d := New[T](8)
	for i := range n {
		d.Push(&items[i%len(items)])
	}
	for d.Pop() != nil {
	}
	return d
}

// BenchmarkDequePushPop measures the owner's fast path: one Push and the Pop
// that takes it back, with no thieves.
func BenchmarkDequePushPop(b *testing.B) {
	items := make([]int, 1024)
	d := warmDeque(1024, items)
	x := &items[0]
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d.Push(x)
		if d.Pop() != x {
			b.Fatal("Pop did not return the item just pushed")
		}
	}
}

// benchItem is an item that the owner may push again once a thief has
// finished with it. Pushing a pointer again while the Steal that took it
// may still be running is not allowed (see Steal), so the owner skips
// items whose thief has not cleared busy yet.
type benchItem struct {
	busy atomic.Bool // set by the owner before Push, cleared by the thief after Steal returns
	stop bool        // a sentinel: the thief that takes it stops
}

// BenchmarkDequeSteal measures Steal. "sequential" is one goroutine
// pushing then stealing, the uncontended cost of a Push and a Steal.
// "thieves=N" runs the owner feeding the deque (holding at most 256 items)
// while N goroutines steal; ns/op is wall time per item stolen, so it
// includes the owner's Push, lost races and the thieves' contention on top.
// On the two-vCPU development VM, which grants two busy threads about one
// CPU of time between them, these figures measure time-sharing as much as
// contention; compare them only on a machine with real cores.
func BenchmarkDequeSteal(b *testing.B) {
	b.Run("sequential", func(b *testing.B) {
		items := make([]int, 1024)
		d := warmDeque(1024, items)
		x := &items[0]
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			d.Push(x)
			if d.Steal() != x {
				b.Fatal("Steal did not return the only item")
			}
		}
	})
	for _, thieves := range []int{1, 3} {
		b.Run(fmt.Sprintf("thieves=%d", thieves), func(b *testing.B) {
			benchSteal(b, thieves)
		})
	}
}

func benchSteal(b *testing.B, thieves int) {
	const (
		depthMax = 256  // the owner pushes only while Len is below this
		poolSize = 4096 // items recycled by the owner; > depthMax + thieves
	)
	pool := make([]benchItem, poolSize)
	d := warmDeque(1024, pool)
	sentinels := make([]benchItem, thieves)
	for i := range sentinels {
		sentinels[i].stop = true
	}

	var wg sync.WaitGroup
	stolen := make([]int, thieves)
	b.ReportAllocs()
	b.ResetTimer()
	for th := range thieves {
		wg.Go(func() {
			for {
				x := d.Steal()
				if x == nil {
					// Empty or lost a race: yield, as the scheduler's
					// bounded steal loop backs off, so that the owner gets
					// the CPU when there are fewer cores than goroutines.
					runtime.Gosched()
					continue
				}
				if x.stop {
					return
				}
				stolen[th]++
				x.busy.Store(false)
			}
		})
	}
	next := 0
	for range b.N {
		for d.Len() >= depthMax {
			runtime.Gosched()
		}
		x := &pool[next%poolSize]
		next++
		for x.busy.Load() {
			x = &pool[next%poolSize]
			next++
		}
		x.busy.Store(true)
		d.Push(x)
	}
	// The sentinels go in after every item, and steals are FIFO, so each
	// thief stops only once all items have been taken.
	for i := range sentinels {
		d.Push(&sentinels[i])
	}
	wg.Wait()
	b.StopTimer()
	total := 0
	for _, n := range stolen {
		total += n
	}
	if total != b.N {
		b.Fatalf("thieves stole %d items, owner pushed %d", total, b.N)
	}
}
