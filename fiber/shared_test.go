package fiber

import "testing"

// drainShared empties the process's shared list, closing its fibers, so a
// test starts from a known state.
func drainShared() {
	shared.mu.Lock()
	idle := shared.idle
	shared.idle = nil
	shared.mu.Unlock()
	for _, f := range idle {
		f.Close()
	}
}

// TestSharedReuse: a fiber released by one shared pool runs the next
// pool's body on the same coroutine, and a pool made while another holds
// the shared fibers starts empty.
func TestSharedReuse(t *testing.T) {
	drainShared()
	defer drainShared()
	p := NewShared(0)
	ran := 0
	body := BodyFunc(func(f *Fiber) { ran++; f.Yield(7); ran++ })
	f := p.Get(body)
	if r, st := f.Resume(); r != 7 || st != Suspended {
		t.Fatalf("first Resume = %d, %v", r, st)
	}
	if _, st := f.Resume(); st != Done {
		t.Fatalf("second Resume: %v, want Done", st)
	}
	p.Put(f)
	p.Release()

	q := NewShared(0)
	if other := NewShared(0); len(other.idle) != 0 {
		t.Fatalf("a second pool took %d shared fibers while the first holds them", len(other.idle))
	}
	g := q.Get(body)
	if g != f {
		t.Fatal("the released fiber was not reused")
	}
	if _, st := g.Resume(); st != Suspended {
		t.Fatalf("reused Resume: %v", st)
	}
	if _, st := g.Resume(); st != Done || ran != 4 {
		t.Fatalf("reused fiber: status %v, body ran %d halves, want Done and 4", st, ran)
	}
	q.Put(g)
	q.Release()
	late := New(BodyFunc(func(*Fiber) {}))
	late.Resume()
	q.Put(late) // after Release, Put closes instead of keeping
	if len(q.idle) != 0 || !late.closed {
		t.Fatal("Put after Release kept a fiber")
	}
}

// TestSharedBound: releasing more than SharedMax idle fibers keeps
// SharedMax and closes the rest; a pool with a smaller max takes only
// its max and hands the rest back.
func TestSharedBound(t *testing.T) {
	drainShared()
	defer drainShared()
	// Two pools at once (check's jobs): the second starts empty, and
	// each ends with three quarters of the bound idle.
	pools := []*Pool{NewShared(0), NewShared(0)}
	for _, p := range pools {
		fs := make([]*Fiber, SharedMax*3/4)
		for i := range fs {
			fs[i] = p.Get(BodyFunc(func(*Fiber) {}))
			fs[i].Resume()
		}
		for _, f := range fs {
			p.Put(f)
		}
	}
	for _, p := range pools {
		p.Release()
	}
	if n := len(shared.idle); n != SharedMax {
		t.Fatalf("shared list holds %d, want the bound %d", n, SharedMax)
	}
	small := NewShared(10)
	if len(small.idle) != 10 || len(shared.idle) != SharedMax-10 {
		t.Fatalf("NewShared(10) took %d and left %d", len(small.idle), len(shared.idle))
	}
	small.Release()
	if n := len(shared.idle); n != SharedMax {
		t.Fatalf("after Release the shared list holds %d, want %d", n, SharedMax)
	}
}

// TestSharingOff: with sharing off a released pool's fibers are closed,
// not kept, and the next pool starts empty; turning it off closes the
// fibers kept so far, and turning it on again keeps them again.
func TestSharingOff(t *testing.T) {
	drainShared()
	defer drainShared()
	kept := runReleased()
	if !SetSharing(false) {
		t.Fatal("sharing was not on by default")
	}
	defer SetSharing(true)
	if !kept.closed || len(shared.idle) != 0 {
		t.Fatal("turning sharing off kept the shared fibers")
	}
	f := runReleased()
	if !f.closed || len(shared.idle) != 0 {
		t.Fatal("a pool released with sharing off kept its fibers")
	}
	if SetSharing(true) {
		t.Fatal("SetSharing(false) did not turn it off")
	}
	g := runReleased()
	if len(shared.idle) != 1 || shared.idle[0] != g {
		t.Fatal("sharing on again did not keep the released fiber")
	}
}

// runReleased runs an empty body on a fiber of a new shared pool, puts
// the fiber back and releases the pool; it returns the fiber.
func runReleased() *Fiber {
	p := NewShared(0)
	f := p.Get(BodyFunc(func(*Fiber) {}))
	f.Resume()
	p.Put(f)
	p.Release()
	return f
}
