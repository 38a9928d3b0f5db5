package fiber

import (
	"errors"
	"iter"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitGoroutines polls runtime.NumGoroutine until it is at most want. A
// coroutine's goroutine is gone once stop returns, but goroutines from other
// parts of a test (a finished t.Run, a helper) may take a moment to exit, so
// the check is bounded rather than exact-on-first-read.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	const triesMax = 200
	got := runtime.NumGoroutine()
	for i := 0; i < triesMax && got > want; i++ {
		time.Sleep(5 * time.Millisecond)
		got = runtime.NumGoroutine()
	}
	if got > want {
		t.Fatalf("NumGoroutine = %d after %d polls, want <= %d", got, triesMax, want)
	}
}

func TestResumeYieldSequence(t *testing.T) {
	t.Parallel()
	var trace []string
	f := New(BodyFunc(func(f *Fiber) {
		trace = append(trace, "start")
		f.Yield(7)
		trace = append(trace, "after 7")
		f.Yield(9)
		trace = append(trace, "end")
	}))
	defer f.Close()

	if len(trace) != 0 {
		t.Fatalf("body ran before the first Resume: %v", trace)
	}
	steps := []struct {
		reason Reason
		status Status
		trace  int
	}{
		{7, Suspended, 1},
		{9, Suspended, 2},
		{0, Done, 3},
	}
	for i, s := range steps {
		r, st := f.Resume()
		if r != s.reason || st != s.status {
			t.Fatalf("Resume #%d = (%d, %v), want (%d, %v)", i, r, st, s.reason, s.status)
		}
		if len(trace) != s.trace {
			t.Fatalf("after Resume #%d trace = %v, want %d entries", i, trace, s.trace)
		}
	}
	if f.Status() != Done || f.Panic() != nil {
		t.Fatalf("Status = %v, Panic = %v; want Done, nil", f.Status(), f.Panic())
	}
}

func TestYieldNTimes(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 100} {
		f := New(BodyFunc(func(f *Fiber) {
			for i := range n {
				f.Yield(Reason(i + 1))
			}
		}))
		for i := range n {
			r, st := f.Resume()
			if st != Suspended || r != Reason(i+1) {
				t.Fatalf("n=%d: Resume #%d = (%d, %v), want (%d, Suspended)", n, i, r, st, i+1)
			}
		}
		if r, st := f.Resume(); r != 0 || st != Done {
			t.Fatalf("n=%d: final Resume = (%d, %v), want (0, Done)", n, r, st)
		}
		f.Close()
	}
}

func TestResumeFinishedPanics(t *testing.T) {
	t.Parallel()
	f := New(BodyFunc(func(*Fiber) {}))
	defer f.Close()
	f.Resume()
	got := recoverString(func() { f.Resume() })
	if want := "fiber: Resume: fiber finished (status Done)"; got != want {
		t.Fatalf("Resume of a Done fiber panicked with %q, want %q", got, want)
	}
	f.Close()
	got = recoverString(func() { f.Resume() })
	if want := "fiber: Resume: fiber closed"; got != want {
		t.Fatalf("Resume of a closed fiber panicked with %q, want %q", got, want)
	}
}

// panickingHelper is named so the captured stack can be checked for it.
func panickingHelper(f *Fiber) {
	f.Yield(1)
	panic("boom")
}

func TestPanicCaptured(t *testing.T) {
	t.Parallel()
	f := New(BodyFunc(panickingHelper))
	defer f.Close()
	if r, st := f.Resume(); r != 1 || st != Suspended {
		t.Fatalf("first Resume = (%d, %v), want (1, Suspended)", r, st)
	}
	r, st := f.Resume()
	if r != 0 || st != Panicked {
		t.Fatalf("second Resume = (%d, %v), want (0, Panicked)", r, st)
	}
	pe := f.Panic()
	if pe == nil {
		t.Fatal("Panic() = nil for a Panicked fiber")
	}
	if pe.Value != "boom" {
		t.Errorf("Panic().Value = %v, want boom", pe.Value)
	}
	if got := pe.Error(); got != "panic: boom" {
		t.Errorf("Panic().Error() = %q, want %q", got, "panic: boom")
	}
	if !strings.Contains(string(pe.Stack), "panickingHelper") {
		t.Errorf("stack does not name panickingHelper:\n%s", pe.Stack)
	}
}

func TestPanicRuntimeError(t *testing.T) {
	t.Parallel()
	f := New(BodyFunc(func(*Fiber) {
		var m map[string]int
		//lint:ignore SA5000 the panic of a nil-map write is what the test provokes
		m["x"] = 1 // assignment to entry in nil map
	}))
	defer f.Close()
	if _, st := f.Resume(); st != Panicked {
		t.Fatalf("status = %v, want Panicked", st)
	}
	var re runtime.Error
	if !errors.As(f.Panic(), &re) {
		t.Fatalf("errors.As(Panic(), runtime.Error) failed for %v", f.Panic())
	}
}

func TestPanicInBodyDefer(t *testing.T) {
	t.Parallel()
	// The body returns normally but its deferred function panics: the
	// panic surfaces after RunFiber's frame, and must still be caught.
	f := New(BodyFunc(func(*Fiber) {
		defer func() { panic("from defer") }()
	}))
	defer f.Close()
	if _, st := f.Resume(); st != Panicked || f.Panic().Value != "from defer" {
		t.Fatalf("status = %v, panic = %v; want Panicked, from defer", st, f.Panic())
	}

	// A panic replaced by another one in a defer reports the last one.
	g := New(BodyFunc(func(*Fiber) {
		defer func() { panic("second") }()
		panic("first")
	}))
	defer g.Close()
	if _, st := g.Resume(); st != Panicked || g.Panic().Value != "second" {
		t.Fatalf("status = %v, panic = %v; want Panicked, second", st, g.Panic())
	}
}

func TestPanickedFiberReused(t *testing.T) {
	t.Parallel()
	p := NewPool(4)
	defer p.Close()
	f := p.Get(BodyFunc(func(*Fiber) { panic("task failed") }))
	if _, st := f.Resume(); st != Panicked {
		t.Fatalf("status = %v, want Panicked", st)
	}
	p.Put(f)

	ran := false
	g := p.Get(BodyFunc(func(f *Fiber) {
		f.Yield(3)
		ran = true
	}))
	if g != f {
		t.Fatalf("Get after Put of a panicked fiber returned a new fiber")
	}
	if g.Panic() != nil || g.Status() != Suspended {
		t.Fatalf("rebound fiber: Panic = %v, Status = %v; want nil, Suspended", g.Panic(), g.Status())
	}
	if r, st := g.Resume(); r != 3 || st != Suspended {
		t.Fatalf("Resume = (%d, %v), want (3, Suspended)", r, st)
	}
	if _, st := g.Resume(); st != Done || !ran {
		t.Fatalf("status = %v, ran = %v; want Done, true", st, ran)
	}
	p.Put(g)
}

func TestResumeAcrossGoroutines(t *testing.T) {
	t.Parallel()
	// The body and its resumers share plain (non-atomic) variables; the
	// race detector accepts them only if Resume/Yield and the channel
	// hand-over order every access.
	const yieldsN = 200
	const workersN = 4
	var fromBody, fromResumer int
	f := New(BodyFunc(func(f *Fiber) {
		for i := range yieldsN {
			if fromResumer != i {
				panic("body saw a stale fromResumer")
			}
			fromBody = i
			f.Yield(Reason(i))
		}
	}))
	defer f.Close()

	handoff := make(chan *Fiber, 1)
	finished := make(chan Status, 1)
	var wg sync.WaitGroup
	var step int // guarded by ownership of the fiber
	for range workersN {
		wg.Go(func() {
			for f := range handoff {
				r, st := f.Resume()
				if st != Suspended {
					finished <- st
					close(handoff)
					return
				}
				if int(r) != step || fromBody != step {
					panic("resumer saw a wrong reason or stale fromBody")
				}
				step++
				fromResumer = step
				handoff <- f
			}
		})
	}
	handoff <- f
	st := <-finished
	wg.Wait()
	if st != Done || step != yieldsN {
		t.Fatalf("status = %v after %d steps, want Done after %d (panic: %v)", st, step, yieldsN, f.Panic())
	}
}

// settledGoroutines waits (at most a second) until the goroutine count
// stops changing, so that goroutines earlier tests left exiting do not
// move the counts a test compares.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

func TestPoolReuseNoGoroutine(t *testing.T) {
	p := NewPool(8)
	defer p.Close()
	body := BodyFunc(func(f *Fiber) { f.Yield(1) })

	before := settledGoroutines()
	f := p.Get(body)
	// Sanity: a fresh fiber does cost a goroutine, or the check below would
	// prove nothing.
	if got := runtime.NumGoroutine(); got != before+1 {
		t.Fatalf("NumGoroutine = %d after the first Get, want %d", got, before+1)
	}
	f.Resume()
	f.Resume()
	p.Put(f)
	base := runtime.NumGoroutine()

	const cyclesN = 1000
	for i := range cyclesN {
		g := p.Get(body)
		if g != f {
			t.Fatalf("cycle %d: Get returned a different fiber", i)
		}
		if _, st := g.Resume(); st != Suspended {
			t.Fatalf("cycle %d: first Resume status %v", i, st)
		}
		if _, st := g.Resume(); st != Done {
			t.Fatalf("cycle %d: second Resume status %v", i, st)
		}
		p.Put(g)
	}
	// At most base: a goroutine a previous test left behind may exit
	// meanwhile (seen once in CI), but one created per cycle would show as
	// up to a thousand more.
	if got := runtime.NumGoroutine(); got > base {
		t.Fatalf("NumGoroutine = %d after %d Get/Put cycles, want at most %d", got, cyclesN, base)
	}
}

func TestPoolBound(t *testing.T) {
	const max = 3
	p := NewPool(max)
	base := runtime.NumGoroutine()
	var fs []*Fiber
	for range max + 5 {
		f := p.Get(BodyFunc(func(*Fiber) {}))
		f.Resume()
		fs = append(fs, f)
	}
	for _, f := range fs {
		p.Put(f)
	}
	if n := len(p.idle); n != max {
		t.Fatalf("idle = %d, want %d", n, max)
	}
	waitGoroutines(t, base+max)
	p.Close()
	if n := len(p.idle); n != 0 {
		t.Fatalf("idle = %d after Close, want 0", n)
	}
	waitGoroutines(t, base)

	// After Close, Put closes instead of keeping.
	f := p.Get(BodyFunc(func(*Fiber) {}))
	f.Resume()
	p.Put(f)
	if n := len(p.idle); n != 0 {
		t.Fatalf("idle = %d after Put on a closed pool, want 0", n)
	}
	waitGoroutines(t, base)
}

func TestPoolZeroValue(t *testing.T) {
	t.Parallel()
	var p Pool
	f := p.Get(BodyFunc(func(*Fiber) {}))
	f.Resume()
	p.Put(f)
	if g := p.Get(BodyFunc(func(*Fiber) {})); g != f {
		t.Fatal("zero Pool did not keep the fiber")
	}
	p.Close()
}

func TestPoolConcurrent(t *testing.T) {
	t.Parallel()
	const workersN = 8
	const tasksN = 500
	const max = 4
	p := NewPool(max)
	defer p.Close()
	var wg sync.WaitGroup
	for w := range workersN {
		wg.Go(func() {
			for i := range tasksN {
				want := Reason(w*tasksN + i + 1)
				f := p.Get(BodyFunc(func(f *Fiber) {
					f.Yield(want)
					if i%7 == 0 {
						panic("sometimes")
					}
				}))
				if r, st := f.Resume(); r != want || st != Suspended {
					panic("wrong first Resume")
				}
				if _, st := f.Resume(); st == Suspended {
					panic("body did not finish")
				}
				p.Put(f)
			}
		})
	}
	wg.Wait()
	p.mu.Lock()
	n := len(p.idle)
	p.mu.Unlock()
	if n > max {
		t.Fatalf("idle = %d, want <= %d", n, max)
	}
}

func TestCloseUnwindsSuspended(t *testing.T) {
	base := runtime.NumGoroutine()
	var order []string
	f := New(BodyFunc(func(f *Fiber) {
		defer func() { order = append(order, "outer defer") }()
		func() {
			defer func() { order = append(order, "inner defer") }()
			f.Yield(1)
			order = append(order, "after yield") // must not run
		}()
		order = append(order, "after inner") // must not run
	}))
	if _, st := f.Resume(); st != Suspended {
		t.Fatalf("status = %v, want Suspended", st)
	}
	f.Close()
	if got := strings.Join(order, ", "); got != "inner defer, outer defer" {
		t.Fatalf("order = %q, want %q", got, "inner defer, outer defer")
	}
	if f.Status() != Done || f.Panic() != nil {
		t.Fatalf("after Close: Status = %v, Panic = %v; want Done, nil", f.Status(), f.Panic())
	}
	f.Close() // idempotent
	waitGoroutines(t, base)
}

func TestCloseDeferPanics(t *testing.T) {
	t.Parallel()
	// A deferred function that panics while Close unwinds the body must not
	// make Close panic; the fiber records it instead.
	f := New(BodyFunc(func(f *Fiber) {
		defer func() { panic("cleanup failed") }()
		f.Yield(1)
	}))
	f.Resume()
	f.Close()
	if f.Status() != Panicked || f.Panic().Value != "cleanup failed" {
		t.Fatalf("Status = %v, Panic = %v; want Panicked, cleanup failed", f.Status(), f.Panic())
	}
}

func TestCloseUnstartedAndFinished(t *testing.T) {
	base := runtime.NumGoroutine()
	ran := false
	unstarted := New(BodyFunc(func(*Fiber) { ran = true }))
	finished := New(BodyFunc(func(*Fiber) {}))
	finished.Resume()
	unstarted.Close()
	finished.Close()
	if ran {
		t.Fatal("Close ran a body that was never resumed")
	}
	waitGoroutines(t, base)
}

func TestGoexitInBody(t *testing.T) {
	// runtime.Goexit cannot be stopped, but it must not reach the
	// goroutine that called Resume: Resume returns Panicked with the
	// Goexit marker, the fiber is never pooled again, and releasing it
	// lets its coroutine exit without leaking a goroutine.
	base := runtime.NumGoroutine()
	p := NewPool(2)
	defer p.Close()
	f := p.Get(BodyFunc(func(*Fiber) { runtime.Goexit() }))
	returned := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Resume()
		returned = true
	}()
	<-done
	if !returned {
		t.Fatal("Resume did not return: the body's runtime.Goexit ended its caller")
	}
	if f.Status() != Panicked || f.Panic() == nil || !f.Panic().Goexited() {
		t.Fatalf("Status = %v, Panic = %v; want Panicked with the Goexit marker", f.Status(), f.Panic())
	}
	p.Put(f)
	g := p.Get(BodyFunc(func(*Fiber) {}))
	if g == f {
		t.Fatal("a fiber whose body called Goexit was pooled")
	}
	g.Close()
	if got, want := recoverString(func() { f.Resume() }), "fiber: Resume: fiber closed"; got != want {
		t.Fatalf("Resume after Goexit panicked with %q, want %q", got, want)
	}
	waitGoroutines(t, base)
}

func TestNestedFibers(t *testing.T) {
	t.Parallel()
	// A body may own and resume another fiber; each Yield returns to its
	// own Resume caller.
	inner := New(BodyFunc(func(f *Fiber) {
		f.Yield(10)
		f.Yield(11)
	}))
	defer inner.Close()
	outer := New(BodyFunc(func(f *Fiber) {
		for {
			r, st := inner.Resume()
			if st != Suspended {
				return
			}
			f.Yield(r + 100)
		}
	}))
	defer outer.Close()
	var got []Reason
	for {
		r, st := outer.Resume()
		if st != Suspended {
			break
		}
		got = append(got, r)
	}
	if len(got) != 2 || got[0] != 110 || got[1] != 111 {
		t.Fatalf("outer reasons = %v, want [110 111]", got)
	}
}

func TestPutUnfinishedPanics(t *testing.T) {
	t.Parallel()
	p := NewPool(2)
	defer p.Close()
	f := p.Get(BodyFunc(func(f *Fiber) { f.Yield(1) }))
	defer f.Close()
	if got, want := recoverString(func() { p.Put(f) }), "fiber: Put: fiber not finished"; got != want {
		t.Fatalf("Put of an unstarted fiber panicked with %q, want %q", got, want)
	}
	f.Resume()
	if got, want := recoverString(func() { p.Put(f) }), "fiber: Put: fiber not finished"; got != want {
		t.Fatalf("Put of a suspended fiber panicked with %q, want %q", got, want)
	}
}

func TestSwitchAllocs(t *testing.T) {
	f := New(BodyFunc(func(f *Fiber) {
		for {
			f.Yield(1)
		}
	}))
	defer f.Close()
	f.Resume()
	if n := testing.AllocsPerRun(1000, func() { f.Resume() }); n != 0 {
		t.Fatalf("Resume+Yield allocates %v times, want 0", n)
	}
}

func TestPooledSpawnAllocs(t *testing.T) {
	p := NewPool(4)
	defer p.Close()
	body := BodyFunc(func(*Fiber) {})
	p.Put(runToDone(p.Get(body)))
	if n := testing.AllocsPerRun(1000, func() { p.Put(runToDone(p.Get(body))) }); n != 0 {
		t.Fatalf("pooled Get/Resume/Put allocates %v times, want 0", n)
	}
}

func runToDone(f *Fiber) *Fiber {
	for {
		if _, st := f.Resume(); st != Suspended {
			return f
		}
	}
}

// recoverString runs fn and returns what it panicked with, as a string.
func recoverString(fn func()) (s string) {
	defer func() {
		switch v := recover().(type) {
		case string:
			s = v
		case error:
			s = v.Error()
		case nil:
			s = "<no panic>"
		default:
			s = "<non-string panic>"
		}
	}()
	fn()
	return
}

// warmN is how many switches or spawns each benchmark does before
// ResetTimer, so that the coroutine's stack, the pool and the scheduler's
// caches are in steady state when timing starts.
const warmN = 10000

func BenchmarkFiberSwitch(b *testing.B) {
	f := New(BodyFunc(func(f *Fiber) {
		for {
			f.Yield(1)
		}
	}))
	defer f.Close()
	for range warmN {
		f.Resume()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Resume()
	}
}

// BenchmarkRawPullSwitch is BenchmarkFiberSwitch with the fiber layer taken
// away: the same coroutine shape (a sequence that yields forever) driven by
// bare next() calls, so FiberSwitch/RawPullSwitch is the fiber's overhead.
func BenchmarkRawPullSwitch(b *testing.B) {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	for range warmN {
		next()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next()
	}
}

func BenchmarkFiberSpawnPooled(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	body := BodyFunc(func(*Fiber) {})
	for range warmN {
		f := p.Get(body)
		f.Resume()
		p.Put(f)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := p.Get(body)
		f.Resume()
		p.Put(f)
	}
}

// BenchmarkGoroutineSpawnWaitGroup is the baseline FiberSpawnPooled
// replaces: one go statement per task, joined with a WaitGroup in batches
// (waiting on every task alone would measure the park/unpark instead).
func BenchmarkGoroutineSpawnWaitGroup(b *testing.B) {
	const batchN = 64
	var wg sync.WaitGroup
	spawn := func(n int) {
		wg.Add(n)
		for range n {
			go func() { wg.Done() }()
		}
		wg.Wait()
	}
	for i := 0; i < warmN; i += batchN {
		spawn(batchN)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += batchN {
		spawn(min(batchN, b.N-i))
	}
}

// BenchmarkPoolParallel measures Get/Resume/Put from GOMAXPROCS goroutines
// at once, the contended case for the Pool's mutex.
func BenchmarkPoolParallel(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	body := BodyFunc(func(*Fiber) {})
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			f := p.Get(body)
			f.Resume()
			p.Put(f)
		}
	})
}

// TestCacheReusesWithoutPool: a Cache hands back the fiber it was given,
// overflows to its Pool past its bound, and Flush returns what it holds.
func TestCacheReusesWithoutPool(t *testing.T) {
	t.Parallel()
	p := NewPool(8)
	defer p.Close()
	c := p.NewCache(2)
	run := func(f *Fiber) {
		if _, st := f.Resume(); st != Done {
			t.Fatalf("status %v, want Done", st)
		}
	}
	body := BodyFunc(func(*Fiber) {})
	f1 := c.Get(body)
	run(f1)
	c.Put(f1)
	if f2 := c.Get(body); f2 != f1 {
		t.Fatal("cache did not reuse its fiber")
	} else {
		run(f2)
		c.Put(f2)
	}
	extra := []*Fiber{c.Get(body), c.Get(body), c.Get(body)}
	for _, f := range extra {
		run(f)
		c.Put(f)
	}
	if len(c.idle) != 2 {
		t.Fatalf("cache holds %d fibers, want its bound 2", len(c.idle))
	}
	c.Flush()
	if len(c.idle) != 0 || len(p.idle) != 3 {
		t.Fatalf("after Flush: cache %d, pool %d; want 0 and 3", len(c.idle), len(p.idle))
	}
}

// TestAgainRunsBodiesInARow: a body that calls Again runs again at once,
// on the same coroutine, without Resume returning in between; a yield of
// the later run suspends the fiber as any yield does; a run that does not
// call Again ends the fiber (Done), and it is pooled and rebound as
// usual; a panic after Again ends the fiber Panicked, as any body's does.
func TestAgainRunsBodiesInARow(t *testing.T) {
	t.Parallel()
	runs := 0
	f := New(BodyFunc(func(f *Fiber) {
		runs++
		if runs == 2 {
			f.Yield(7)
		}
		if runs < 3 {
			f.Again()
		}
	}))
	if r, st := f.Resume(); r != 7 || st != Suspended || runs != 2 {
		t.Fatalf("first Resume = (%d, %v) after %d runs, want (7, Suspended) after 2", r, st, runs)
	}
	if r, st := f.Resume(); r != 0 || st != Done || runs != 3 || f.Panic() != nil {
		t.Fatalf("second Resume = (%d, %v) after %d runs, panic %v; want (0, Done) after 3", r, st, runs, f.Panic())
	}

	p := NewPool(1)
	p.Put(f)
	g := p.Get(BodyFunc(func(f *Fiber) {
		f.Again()
		panic("after Again")
	}))
	if g != f {
		t.Fatal("the pool did not hand the fiber back")
	}
	if _, st := g.Resume(); st != Panicked || g.Panic().Value != "after Again" {
		t.Fatalf("Resume = %v, panic %v; want Panicked with the body's value", st, g.Panic())
	}
	g.Close()
}

// TestCloseUnwindsDeferredYields: a body whose deferred calls yield while
// Close unwinds it (a task's deferred unlock that blocks, in a deadlocked
// run's teardown) is unwound to its end: Close returns, every deferred
// call ran up to its Yield, the fiber is Done, and no goroutine is left.
func TestCloseUnwindsDeferredYields(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 100 {
		deferred := 0
		f := New(BodyFunc(func(f *Fiber) {
			for range 3 {
				defer func() {
					deferred++
					f.Yield(1) // parks again while unwound
					t.Error("Yield returned while the body was unwound")
				}()
			}
			f.Yield(1)
		}))
		if _, st := f.Resume(); st != Suspended {
			t.Fatalf("status %v, want Suspended", st)
		}
		f.Close()
		if deferred != 3 {
			t.Fatalf("%d deferred calls ran, want 3", deferred)
		}
		if f.Status() != Done {
			t.Fatalf("status after Close %v, want Done", f.Status())
		}
	}
	waitGoroutines(t, before)
}
