package deque

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	stressThieves = 3
	// stressTimeout bounds a stress run: past it the run stops and fails
	// as a livelock (or a lost item) instead of hanging.
	stressTimeout = 90 * time.Second
)

type stressItem struct {
	id    int
	taken atomic.Int32 // how many times Pop or Steal returned this item
}

// stress is one run of an owner and stressThieves thieves over items, with
// the bookkeeping that checks every item is taken exactly once.
type stress struct {
	items      []stressItem
	cur        atomic.Pointer[Deque[stressItem]] // the deque thieves steal from
	takenTotal atomic.Int64
	dups       atomic.Int64
	outOfOrder atomic.Int64
	stop       atomic.Bool // set when the owner is done, or by the watchdog
	timedOut   atomic.Bool
	stolen     [stressThieves]int
	failed     [stressThieves]int
	popped     int
}

func newStress(itemsTotal int) *stress {
	s := &stress{items: make([]stressItem, itemsTotal)}
	for i := range s.items {
		s.items[i].id = i
	}
	return s
}

func (s *stress) take(x *stressItem) {
	if x.taken.Add(1) != 1 {
		s.dups.Add(1)
	}
	s.takenTotal.Add(1)
}

// run starts the thieves and the watchdog, calls owner on this goroutine,
// and checks the outcome.
func (s *stress) run(t *testing.T, owner func()) {
	watchdog := time.AfterFunc(stressTimeout, func() {
		s.timedOut.Store(true)
		s.stop.Store(true)
	})
	defer watchdog.Stop()
	start := time.Now()
	var wg sync.WaitGroup
	for th := range stressThieves {
		wg.Go(func() { s.thief(th) })
	}
	owner()
	s.stop.Store(true)
	wg.Wait()

	stolenTotal := 0
	for _, n := range s.stolen {
		stolenTotal += n
	}
	t.Logf("%v: popped %d, stolen %v (total %d), failed steals %v",
		time.Since(start).Round(time.Millisecond), s.popped, s.stolen, stolenTotal, s.failed)
	if s.timedOut.Load() {
		t.Fatalf("deque: stress: no progress bound: %d of %d items taken after %v (livelock or lost item)",
			s.takenTotal.Load(), len(s.items), stressTimeout)
	}
	if n := s.dups.Load(); n != 0 {
		t.Errorf("%d items taken twice", n)
	}
	lost := 0
	for i := range s.items {
		if s.items[i].taken.Load() == 0 {
			if lost < 10 {
				t.Errorf("item %d never taken", i)
			}
			lost++
		}
	}
	if lost != 0 {
		t.Errorf("%d items lost", lost)
	}
	if got := s.takenTotal.Load(); got != int64(len(s.items)) {
		t.Errorf("%d takes recorded, want %d", got, len(s.items))
	}
	if n := s.outOfOrder.Load(); n != 0 {
		t.Errorf("%d steals came out of push order", n)
	}
	if stolenTotal == 0 {
		t.Errorf("no steal succeeded: the test did not exercise concurrency")
	}
}

// thief steals until the run stops. Successive steals from one deque must
// come out in push order (ids increase), as FIFO steals from the top do:
// an index popped and pushed again gets a later item, and so do all the
// indices above it.
func (s *stress) thief(th int) {
	var last *Deque[stressItem]
	lastID := -1
	for !s.stop.Load() {
		d := s.cur.Load()
		if d == nil {
			runtime.Gosched()
			continue
		}
		x := d.Steal()
		if x == nil {
			s.failed[th]++
			// Two vCPUs, four goroutines: let the owner run.
			runtime.Gosched()
			continue
		}
		if d == last && x.id <= lastID {
			s.outOfOrder.Add(1)
		}
		last, lastID = d, x.id
		s.take(x)
		s.stolen[th]++
	}
}

// drain pops d empty (Pop returns nil only once top >= bottom) and waits
// until thieves that won the last items have counted them.
func (s *stress) drain(d *Deque[stressItem], takenWant int) {
	for !s.stop.Load() {
		x := d.Pop()
		if x == nil {
			break
		}
		s.take(x)
		s.popped++
	}
	for s.takenTotal.Load() < int64(takenWant) && !s.stop.Load() {
		runtime.Gosched()
	}
}

// TestStressOwnerAndThieves has one owner pushing and popping while three
// thieves steal, and checks that every item is taken exactly once: none
// lost, none duplicated, and each thief's steals in push order. Items come
// in rounds, each on a fresh deque that starts at 8 slots, so that growth
// races with steals hundreds of times.
//
// The default run moves 1,000,000 items, in 2.5 to 8 s under -race on the
// two-vCPU development VM when it is otherwise idle (about 2.5 s of CPU);
// -short moves 100,000.
func TestStressOwnerAndThieves(t *testing.T) {
	const (
		roundItems = 1 << 14
		burstMax   = 256 // items the owner pushes in a row
		popsMax    = 128 // items the owner pops in a row
	)
	itemsTotal := 1_000_000
	if testing.Short() {
		itemsTotal = 100_000
	}
	seed := testSeed(t)
	t.Logf("ITEMS %d THIEVES %d ROUND %d BURST %d POPS %d", itemsTotal, stressThieves, roundItems, burstMax, popsMax)

	s := newStress(itemsTotal)
	rng := pcg(seed, 0)
	grows := 0
	s.run(t, func() {
		for lo := 0; lo < itemsTotal && !s.stop.Load(); lo += roundItems {
			hi := min(lo+roundItems, itemsTotal)
			d := New[stressItem](8)
			s.cur.Store(d)
			for next := lo; next < hi && !s.stop.Load(); {
				for n := 1 + rng.IntN(burstMax); n > 0 && next < hi; n-- {
					d.Push(&s.items[next])
					next++
				}
				popBurst(s, d, rng, popsMax)
			}
			s.drain(d, hi)
			grows += bits.TrailingZeros(uint(len(d.ring.Load().slots) / 8))
		}
	})
	t.Logf("ring growths %d", grows)
	if grows == 0 {
		t.Errorf("the ring never grew: the test did not exercise growth")
	}
}

// TestStressFullRing keeps an 8-slot ring full: the owner pushes whenever a
// thief frees a slot, so each Push writes the slot of an index a thief has
// just won, often before that thief has cleared it. A thief that cleared
// with a plain Store instead of CompareAndSwap would erase the new item
// there. The ring must never grow. 1,000,000 items (-short: 100,000), in
// about 2.5 s under -race on the idle development VM.
func TestStressFullRing(t *testing.T) {
	const (
		capacity = 8
		popsMax  = 2
	)
	itemsTotal := 1_000_000
	if testing.Short() {
		itemsTotal = 100_000
	}
	seed := testSeed(t)
	t.Logf("ITEMS %d THIEVES %d CAPACITY %d POPS %d", itemsTotal, stressThieves, capacity, popsMax)

	s := newStress(itemsTotal)
	rng := pcg(seed, 0)
	d := New[stressItem](capacity)
	s.cur.Store(d)
	s.run(t, func() {
		for next := 0; next < itemsTotal && !s.stop.Load(); {
			// Len from the owner may overcount (a stale top), never
			// undercount, so this never makes Push grow the ring.
			if d.Len() >= capacity {
				runtime.Gosched()
				continue
			}
			d.Push(&s.items[next])
			next++
			if rng.IntN(64) == 0 {
				popBurst(s, d, rng, popsMax)
			}
		}
		s.drain(d, itemsTotal)
	})
	if got := len(d.ring.Load().slots); got != capacity {
		t.Errorf("ring grew to %d slots while never holding more than %d items", got, capacity)
	}
}

// popBurst pops up to rng.IntN(popsMax) items.
func popBurst(s *stress, d *Deque[stressItem], rng *rand.Rand, popsMax int) {
	for n := rng.IntN(popsMax); n > 0; n-- {
		x := d.Pop()
		if x == nil {
			return
		}
		s.take(x)
		s.popped++
	}
}
