package deque

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type stressItem struct {
	id    int
	taken atomic.Int32 // how many times Pop or Steal returned this item
}

// TestStressOwnerAndThieves has one owner pushing and popping while three
// thieves steal, and checks that every item is taken exactly once: none
// lost, none duplicated. Items come in rounds, each on a fresh deque that
// starts at 8 slots, so that growth races with steals many times over. It
// also checks that each thief's successive steals from one deque come out
// in push order, as FIFO steals from the top must.
//
// The default run moves 1,000,000 items (about 6 s under -race on two
// cores); -short moves 100,000. A watchdog stops it with a failure after
// stressTimeout instead of letting a livelock hang the run.
func TestStressOwnerAndThieves(t *testing.T) {
	const (
		thieves       = 3
		roundItems    = 1 << 14
		burstMax      = 256 // items the owner pushes in a row
		popsMax       = 128 // items the owner pops in a row
		stressTimeout = 90 * time.Second
	)
	itemsTotal := 1_000_000
	if testing.Short() {
		itemsTotal = 100_000
	}
	seed := testSeed(t)
	t.Logf("ITEMS %d THIEVES %d ROUND %d BURST %d POPS %d", itemsTotal, thieves, roundItems, burstMax, popsMax)

	items := make([]stressItem, itemsTotal)
	for i := range items {
		items[i].id = i
	}
	var (
		cur        atomic.Pointer[Deque[stressItem]] // the round's deque, for thieves
		takenTotal atomic.Int64
		dups       atomic.Int64
		outOfOrder atomic.Int64
		stop       atomic.Bool
		timedOut   atomic.Bool
	)
	take := func(x *stressItem) {
		if x.taken.Add(1) != 1 {
			dups.Add(1)
		}
		takenTotal.Add(1)
	}
	watchdog := time.AfterFunc(stressTimeout, func() {
		timedOut.Store(true)
		stop.Store(true)
	})
	defer watchdog.Stop()

	start := time.Now()
	var wg sync.WaitGroup
	stolen := make([]int, thieves)
	failed := make([]int, thieves)
	for th := range thieves {
		wg.Go(func() {
			var last *Deque[stressItem]
			lastID := -1
			for !stop.Load() {
				d := cur.Load()
				if d == nil {
					runtime.Gosched()
					continue
				}
				x := d.Steal()
				if x == nil {
					failed[th]++
					// Two cores, four goroutines: let the owner run.
					runtime.Gosched()
					continue
				}
				if d == last && x.id <= lastID {
					outOfOrder.Add(1)
				}
				last, lastID = d, x.id
				take(x)
				stolen[th]++
			}
		})
	}

	rng := pcg(seed, 0)
	popped, grows := 0, 0
	for lo := 0; lo < itemsTotal && !stop.Load(); lo += roundItems {
		hi := min(lo+roundItems, itemsTotal)
		d := New[stressItem](8)
		cur.Store(d)
		for next := lo; next < hi && !stop.Load(); {
			for n := 1 + rng.IntN(burstMax); n > 0 && next < hi; n-- {
				d.Push(&items[next])
				next++
			}
			for n := rng.IntN(popsMax); n > 0; n-- {
				x := d.Pop()
				if x == nil {
					break
				}
				take(x)
				popped++
			}
		}
		// Pop returns nil only once top >= bottom, so this empties the deque.
		for !stop.Load() {
			x := d.Pop()
			if x == nil {
				break
			}
			take(x)
			popped++
		}
		grows += bits.TrailingZeros(uint(len(d.ring.Load().slots) / 8))
		// Thieves that won the last items may not have counted them yet.
		for takenTotal.Load() < int64(hi) && !stop.Load() {
			runtime.Gosched()
		}
	}
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)

	stolenTotal := 0
	for _, n := range stolen {
		stolenTotal += n
	}
	t.Logf("%v: popped %d, stolen %v (total %d), failed steals %v, ring growths %d",
		elapsed.Round(time.Millisecond), popped, stolen, stolenTotal, failed, grows)
	if timedOut.Load() {
		t.Fatalf("deque: stress: no progress bound: %d of %d items taken after %v (livelock or lost item)",
			takenTotal.Load(), itemsTotal, stressTimeout)
	}
	if n := dups.Load(); n != 0 {
		t.Errorf("%d items taken twice", n)
	}
	lost := 0
	for i := range items {
		if items[i].taken.Load() == 0 {
			if lost < 10 {
				t.Errorf("item %d never taken", i)
			}
			lost++
		}
	}
	if lost != 0 {
		t.Errorf("%d items lost", lost)
	}
	if got := takenTotal.Load(); got != int64(itemsTotal) {
		t.Errorf("%d takes recorded, want %d", got, itemsTotal)
	}
	if n := outOfOrder.Load(); n != 0 {
		t.Errorf("%d steals came out of push order", n)
	}
	if stolenTotal == 0 {
		t.Errorf("no steal succeeded: the test did not exercise concurrency")
	}
	if grows == 0 {
		t.Errorf("the ring never grew: the test did not exercise growth")
	}
}
