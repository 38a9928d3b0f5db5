package deque

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

var seedFlag = flag.Uint64("deque.seed", 0, "seed for the concurrent tests; 0 picks one and prints it")

// testSeed returns the seed for a concurrent test and prints it, with the
// command that reruns the test with it. The interleavings themselves are up
// to the Go scheduler, so a seed reproduces the operations, not the races.
func testSeed(t testing.TB) uint64 {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("SEED %d (rerun: go test -race -run '^%s$' ./deque/ -deque.seed=%d)", seed, t.Name(), seed)
	return seed
}

// fataler is what checkInternals needs from *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkInternals fails unless the ring holds exactly want in [top, bottom)
// and nil in every other slot: taken items are not kept alive.
func checkInternals[T any](t fataler, d *Deque[T], want []*T) {
	t.Helper()
	top, bottom := d.top.Load(), d.bottom.Load()
	if got := bottom - top; got != int64(len(want)) {
		t.Fatalf("bottom-top = %d-%d = %d, model has %d items", bottom, top, got, len(want))
	}
	r := d.ring.Load()
	if r == nil {
		if len(want) != 0 {
			t.Fatalf("nil ring with %d items", len(want))
		}
		return
	}
	if int64(len(r.slots)) != r.mask+1 || len(r.slots)&(len(r.slots)-1) != 0 {
		t.Fatalf("ring has %d slots, mask %#x: not a power of two", len(r.slots), r.mask)
	}
	live := make(map[int64]*T, len(want))
	for i, p := range want {
		live[(top+int64(i))&r.mask] = p
	}
	for s := range r.slots {
		got := r.slots[s].Load()
		if p, ok := live[int64(s)]; ok {
			if got != p {
				t.Fatalf("slot %d holds %p, want live item %p", s, got, p)
			}
		} else if got != nil {
			t.Fatalf("slot %d holds %p, want nil: a taken or never-used slot keeps an item alive", s, got)
		}
	}
}

func TestNewRoundsCapacity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want int }{
		{-5, 8}, {0, 8}, {1, 8}, {8, 8}, {9, 16}, {16, 16}, {17, 32}, {1000, 1024}, {1024, 1024},
	} {
		d := New[int](tc.in)
		if got := len(d.ring.Load().slots); got != tc.want {
			t.Errorf("New(%d): ring of %d slots, want %d", tc.in, got, tc.want)
		}
	}
}

func TestZeroValueIsUsable(t *testing.T) {
	t.Parallel()
	var d Deque[int]
	if d.Len() != 0 || d.Pop() != nil || d.Steal() != nil {
		t.Fatal("zero Deque is not empty")
	}
	xs := make([]int, 20)
	for i := range xs {
		d.Push(&xs[i])
	}
	if got := d.Steal(); got != &xs[0] {
		t.Fatalf("Steal = %p, want first item %p", got, &xs[0])
	}
	if got := d.Pop(); got != &xs[19] {
		t.Fatalf("Pop = %p, want last item %p", got, &xs[19])
	}
	checkInternals(t, &d, []*int{&xs[1], &xs[2], &xs[3], &xs[4], &xs[5], &xs[6], &xs[7], &xs[8], &xs[9],
		&xs[10], &xs[11], &xs[12], &xs[13], &xs[14], &xs[15], &xs[16], &xs[17], &xs[18]})
}

// mustPanic fails unless f panics with exactly msg.
func mustPanic(t *testing.T, msg string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want %q", msg)
		}
		if s, _ := r.(string); s != msg {
			t.Fatalf("panic %v, want %q", r, msg)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	t.Parallel()
	t.Run("nil push", func(t *testing.T) {
		mustPanic(t, "deque: Push: nil item", func() { New[int](8).Push(nil) })
	})
	t.Run("New past bound", func(t *testing.T) {
		mustPanic(t, "deque: New: capacity exceeds 1<<30", func() { New[int](capacityMax + 1) })
	})
	t.Run("Push past bound", func(t *testing.T) {
		// The real bound is 1<<30 items (an 8 GiB ring); lower it for this
		// deque to reach it cheaply. The logic is the same.
		d := New[int](8)
		d.capacityMax = 32
		xs := make([]int, 33)
		for i := range 32 {
			d.Push(&xs[i])
		}
		if got := len(d.ring.Load().slots); got != 32 {
			t.Fatalf("ring of %d slots, want 32", got)
		}
		mustPanic(t, "deque: Push: capacity exceeded", func() { d.Push(&xs[32]) })
		// Taking an item makes room again without growing.
		d.Steal()
		d.Push(&xs[32])
	})
	t.Run("Steal wins nil", func(t *testing.T) {
		// Only a broken invariant (or pushing a pointer again while the
		// Steal that took it still runs) can leave a live slot nil; fake it.
		d := New[int](8)
		d.Push(new(int))
		d.ring.Load().slots[0].Store(nil)
		mustPanic(t, "deque: Steal: nil item after winning top", func() { d.Steal() })
	})
	t.Run("Pop reads nil", func(t *testing.T) {
		d := New[int](8)
		d.Push(new(int))
		d.Push(new(int))
		d.ring.Load().slots[1].Store(nil)
		mustPanic(t, "deque: Pop: nil item in live slot", func() { d.Pop() })
	})
}

// TestGrowthKeepsOrder pushes past the initial capacity several times while
// top has wrapped around the ring, and checks both ends still come out in
// order, that taken slots are nil, and that a replaced ring is never
// written again.
func TestGrowthKeepsOrder(t *testing.T) {
	t.Parallel()
	d := New[int](8)
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	next := 0
	push := func(n int) {
		for range n {
			d.Push(&xs[next])
			next++
		}
	}
	// Move top and bottom around the ring so that the live range wraps.
	for range 5 {
		push(5)
		for range 5 {
			d.Steal()
		}
	}
	if top := d.top.Load(); top != 25 {
		t.Fatalf("top = %d, want 25", top)
	}
	push(8) // indices 25..32 fill the 8-slot ring, starting at slot 1
	checkInternals(t, d, ptrs(xs[25:33]))
	old := d.ring.Load()
	oldSnapshot := make([]*int, len(old.slots))
	for i := range old.slots {
		oldSnapshot[i] = old.slots[i].Load()
	}

	push(99) // grows 8 -> 16 -> 32 -> 64 -> 128 with the live range wrapped
	if got := len(d.ring.Load().slots); got != 128 {
		t.Fatalf("ring of %d slots after 107 items, want 128", got)
	}
	checkInternals(t, d, ptrs(xs[25:132]))

	// Steal takes the oldest first, Pop the newest first.
	for i := 25; i < 60; i++ {
		if got := d.Steal(); got != &xs[i] {
			t.Fatalf("Steal = %v, want item %d", deref(got), i)
		}
	}
	for i := 131; i >= 100; i-- {
		if got := d.Pop(); got != &xs[i] {
			t.Fatalf("Pop = %v, want item %d", deref(got), i)
		}
	}
	checkInternals(t, d, ptrs(xs[60:100]))

	// The replaced ring saw none of that.
	for i := range old.slots {
		if got := old.slots[i].Load(); got != oldSnapshot[i] {
			t.Fatalf("replaced ring slot %d changed from %p to %p", i, oldSnapshot[i], got)
		}
	}

	// Drain from both ends; every slot ends nil.
	for d.Len() > 0 {
		if d.Steal() == nil || (d.Len() > 0 && d.Pop() == nil) {
			t.Fatal("nil from a non-empty deque with no concurrency")
		}
	}
	checkInternals(t, d, nil)
	if d.Pop() != nil || d.Steal() != nil {
		t.Fatal("drained deque returned an item")
	}
}

// TestGrowScrubsWonIndices drives grow with a stale top, as when thieves win
// indices between the owner's top load in Push and grow's reread: copies of
// those indices in the new ring must be cleared.
func TestGrowScrubsWonIndices(t *testing.T) {
	t.Parallel()
	d := New[int](8)
	xs := make([]int, 8)
	for i := range xs {
		d.Push(&xs[i])
	}
	for range 3 {
		d.Steal()
	}
	r := d.ring.Load()
	// Pretend the three thieves cleared their slots in some other ring, so
	// r still holds the taken items when grow copies it.
	for i := range 3 {
		r.slots[i].Store(&xs[i])
	}
	nr := d.grow(r, 0, 8) // stale t = 0; top is 3
	for i := range 3 {
		if got := nr.slots[i].Load(); got != nil {
			t.Fatalf("new ring slot %d keeps taken item %p", i, got)
		}
	}
	checkInternals(t, d, ptrs(xs[3:8]))
}

// TestModelRapid runs random sequences of Push, Pop and Steal from one
// goroutine against a slice, checking every result, Len, and after every
// step that the ring holds exactly the model's items with nil elsewhere.
func TestModelRapid(t *testing.T) {
	t.Parallel()
	runsGrown, runs := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		var d *Deque[int]
		if rapid.Bool().Draw(t, "zeroValue") {
			d = new(Deque[int])
		} else {
			d = New[int](rapid.IntRange(0, 20).Draw(t, "capacity"))
		}
		var model []*int
		next := 0
		initial := 0
		if r := d.ring.Load(); r != nil {
			initial = len(r.slots)
		}
		defer func() {
			if r := d.ring.Load(); r != nil && len(r.slots) > max(initial, capacityMin) {
				runsGrown++
			}
		}()
		t.Repeat(map[string]func(*rapid.T){
			"Push": func(t *rapid.T) {
				// Bursts so that runs reach several growths.
				n := rapid.IntRange(1, 24).Draw(t, "n")
				for range n {
					next++
					p := new(int)
					*p = next
					d.Push(p)
					model = append(model, p)
				}
			},
			"Pop": func(t *rapid.T) {
				got := d.Pop()
				var want *int
				if len(model) > 0 {
					want = model[len(model)-1]
					model = model[:len(model)-1]
				}
				if got != want {
					t.Fatalf("Pop = %v, want %v", deref(got), deref(want))
				}
			},
			"Steal": func(t *rapid.T) {
				got := d.Steal()
				var want *int
				if len(model) > 0 {
					want = model[0]
					model = model[1:]
				}
				if got != want {
					t.Fatalf("Steal = %v, want %v (no concurrency, so no lost races)", deref(got), deref(want))
				}
			},
			"": func(t *rapid.T) {
				if got := d.Len(); got != len(model) {
					t.Fatalf("Len = %d, want %d", got, len(model))
				}
				checkInternals(t, d, model)
			},
		})
	})
	t.Logf("%d of %d runs grew the ring past its initial capacity", runsGrown, runs)
	if runsGrown == 0 {
		t.Errorf("no run grew the ring: the test did not exercise growth")
	}
}

func ptrs(xs []int) []*int {
	ps := make([]*int, len(xs))
	for i := range xs {
		ps[i] = &xs[i]
	}
	return ps
}

func deref(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// pcg returns a generator for sub-seed i of seed, so that each goroutine
// and each history draws from its own stream.
func pcg(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

// lastLines returns the last n lines of s, for failure reports.
func lastLines(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
