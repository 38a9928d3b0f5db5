package fiber

import "sync"

// DefaultPoolMax is the idle bound a Pool uses when NewPool is given max <= 0
// or the Pool is a zero value. Each idle fiber holds a parked goroutine and
// its stack (8 KiB at least, more if a body grew it), so 1024 idle fibers
// cost roughly 8 MiB or more.
const DefaultPoolMax = 1024

// Pool keeps finished fibers so that starting a task reuses a parked
// coroutine instead of creating a goroutine. It holds at most max idle
// fibers; a fiber Put beyond that is closed. The zero value is a pool with
// DefaultPoolMax.
//
// All methods can be called from any goroutine, concurrently.
//
// The free list is a mutex-guarded slice. A per-P cache in the manner of
// sync.Pool was rejected: sync.Pool drops items at GC without telling
// anyone, and a dropped fiber's coroutine would stay parked forever (a
// goroutine leak), and it has no way to state a bound. A sharded free list
// (one mutex per shard, chosen by a per-goroutine hint, TryLock on the
// others) was prototyped and showed no gain over one mutex on the 2-vCPU
// development machine, so the simpler exact bound won; revisit with
// BenchmarkPoolParallel on a wide machine. Uncontended, the two lock/unlock
// pairs and the rebind add about 15-25 ns to the two switches of a
// Get/Resume/Put cycle (BenchmarkFiberSpawnPooled vs BenchmarkFiberSwitch).
type Pool struct {
	mu     sync.Mutex
	idle   []*Fiber // guarded by mu; len(idle) <= max
	max    int      // 0 means DefaultPoolMax; fixed after NewPool
	closed bool     // guarded by mu; set by Close, after which Put closes
}

// NewPool returns a pool that keeps at most max idle fibers; max <= 0 means
// DefaultPoolMax.
func NewPool(max int) *Pool {
	if max <= 0 {
		max = DefaultPoolMax
	}
	return &Pool{max: max}
}

// Get returns an idle fiber rebound to body, or New(body) if none is idle.
// The fiber is Suspended and starts body at its first Resume; the caller owns
// it until it hands it back with Put or closes it.
// Can be called from any goroutine.
func (p *Pool) Get(body Body) *Fiber {
	p.mu.Lock()
	n := len(p.idle)
	if n == 0 {
		p.mu.Unlock()
		return New(body)
	}
	f := p.idle[n-1]
	p.idle[n-1] = nil // the slice must not keep a fiber that is out
	p.idle = p.idle[:n-1]
	p.mu.Unlock()
	f.rebind(body)
	return f
}

// Put hands a finished fiber back. f must be Done or Panicked; Put of a
// Suspended fiber panics with "fiber: Put: fiber not finished", because its
// body is still mid-way and rebinding would lose it. A closed fiber, or one
// that would take the pool past max, is closed and dropped. The caller must
// not use f after Put.
// Can be called from any goroutine.
func (p *Pool) Put(f *Fiber) {
	if f.status == Suspended {
		panic("fiber: Put: fiber not finished")
	}
	if f.closed {
		f.release() // closed, or its body called Goexit
		return
	}
	f.panicErr = nil // drop the captured stack now rather than at the next Get
	max := p.max
	if max <= 0 {
		max = DefaultPoolMax
	}
	p.mu.Lock()
	if p.closed || len(p.idle) >= max {
		p.mu.Unlock()
		f.Close()
		return
	}
	p.idle = append(p.idle, f)
	p.mu.Unlock()
}

// Close closes every idle fiber and makes later Puts close their fiber
// instead of keeping it. Get still works after Close; it always creates a
// new fiber. Fibers that are out of the pool are not touched.
// Can be called from any goroutine.
func (p *Pool) Close() {
	// Closing outside the lock: each Close switches to a coroutine, and a
	// concurrent Get or Put should not wait for that.
	for _, f := range p.shut() {
		f.Close()
	}
}

// shut marks p closed (later Puts close their fiber) and returns its idle
// fibers, which it no longer holds: Close and Release then close them or
// hand them back.
func (p *Pool) shut() []*Fiber {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.idle
	p.idle = nil
	p.closed = true
	return idle
}

// Cache is a small unsynchronized front of a Pool for one goroutine at a
// time, such as a scheduler worker: Get and Put take no lock while the
// cache has room, and overflow to the Pool. A worker that starts and
// finishes tasks therefore reuses fibers without touching shared state.
type Cache struct {
	pool *Pool
	idle []*Fiber
	max  int
}

// NewCache returns a cache in front of p holding at most max idle fibers.
func (p *Pool) NewCache(max int) *Cache {
	return &Cache{pool: p, max: max, idle: make([]*Fiber, 0, max)}
}

// Get returns a cached fiber rebound to body, or one from the Pool.
func (c *Cache) Get(body Body) *Fiber {
	if n := len(c.idle); n > 0 {
		f := c.idle[n-1]
		c.idle[n-1] = nil
		c.idle = c.idle[:n-1]
		f.rebind(body)
		return f
	}
	return c.pool.Get(body)
}

// Put keeps a finished fiber in the cache, or gives it to the Pool when the
// cache is full. Like Pool.Put it panics if f is not finished.
func (c *Cache) Put(f *Fiber) {
	if f.status == Suspended {
		panic("fiber: Put: fiber not finished")
	}
	if f.closed {
		f.release()
		return
	}
	if len(c.idle) < c.max {
		f.panicErr = nil
		c.idle = append(c.idle, f)
		return
	}
	c.pool.Put(f)
}

// Flush hands every cached fiber back to the Pool (before Pool.Close).
func (c *Cache) Flush() {
	for _, f := range c.idle {
		c.pool.Put(f)
	}
	clear(c.idle)
	c.idle = c.idle[:0]
}

// SharedMax bounds the idle fibers kept for the whole process between
// pools' lives (see NewShared). Each holds a parked goroutine and a stack
// that may have grown, so 256 cost about 2 MiB or more.
const SharedMax = 256

// shared is the process-wide list of idle fibers that pools made by
// NewShared hand back when they are released.
var shared struct {
	mu   sync.Mutex
	idle []*Fiber // guarded by mu; len(idle) <= SharedMax
	off  bool     // guarded by mu; see SetSharing
}

// SetSharing turns the process-wide list of idle fibers on (the default)
// or off, and reports whether it was on. Off, a pool made by NewShared
// starts empty and closes its idle fibers at Release, so that every fiber
// a pool uses was made during its life. That matters to a caller that
// tells the goroutines a run started by their pprof labels (package
// simtest): a goroutine takes its labels from the one that made it, and a
// coroutine's are those of the goroutine that made the fiber, so a
// goroutine that a body started on a fiber kept from an earlier run would
// carry that run's labels. Turning it off closes the fibers kept so far.
// Can be called from any goroutine.
func SetSharing(on bool) (was bool) {
	shared.mu.Lock()
	was, shared.off = !shared.off, !on
	var idle []*Fiber
	if !on {
		idle, shared.idle = shared.idle, nil
	}
	shared.mu.Unlock()
	for _, f := range idle {
		f.Close()
	}
	return was
}

// NewShared returns a pool like NewPool(max) that starts with the
// process's shared idle fibers, all of them (or none, when another such
// pool holds them), and hands its own idle fibers back at Release. Their
// goroutines and their stacks, grown by earlier bodies, are reused instead
// of made and grown again: what a simulator that runs many short runs, one
// scheduler each, pays at the start of every run. Taking them is one
// slice swap. Which fiber a body gets must not be observable; a fiber
// carries nothing of its last body (finish drops it).
// Can be called from any goroutine.
func NewShared(max int) *Pool {
	p := NewPool(max)
	shared.mu.Lock()
	p.idle, shared.idle = shared.idle, nil // nil when sharing is off
	shared.mu.Unlock()
	if len(p.idle) > p.max {
		// A max below SharedMax: keep the pool within its own bound.
		excess := append([]*Fiber(nil), p.idle[p.max:]...)
		clear(p.idle[p.max:])
		p.idle = p.idle[:p.max]
		giveBack(excess)
	}
	return p
}

// Release is Close for a pool made by NewShared: its idle fibers go back
// to the shared list, up to SharedMax, and the rest are closed; later Puts
// close their fiber. Fibers that are out of the pool are not touched: the
// caller must have closed or put back every fiber whose body is still
// suspended, so that no shared fiber holds a body.
// Can be called from any goroutine.
func (p *Pool) Release() { giveBack(p.shut()) }

// giveBack adds idle fibers to the shared list and closes those past its
// bound, outside the lock (each Close switches to a coroutine).
func giveBack(idle []*Fiber) {
	shared.mu.Lock()
	switch {
	case shared.off:
		// Sharing is off: every one is closed below.
	case shared.idle == nil && len(idle) <= SharedMax:
		shared.idle, idle = idle, nil // the common case: the slice itself
	default:
		n := min(len(idle), SharedMax-len(shared.idle))
		shared.idle = append(shared.idle, idle[:n]...)
		idle = idle[n:]
	}
	shared.mu.Unlock()
	for _, f := range idle {
		f.Close()
	}
}
