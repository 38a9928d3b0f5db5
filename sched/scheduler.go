package sched

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/deque"
	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// Scheduler is the CBC-MN scheduler core: workers with Chase-Lev deques, a
// global queue, and the nursery binding. It starts no goroutines by itself:
// Run drives it with one goroutine per worker (real mode), and a seeded
// driver calls Step one step at a time (package sched/driver).
type Scheduler struct {
	// Concurrency. In real mode (Run) the workers run on goroutines of
	// their own, with the clock goroutine (runClock) and Blocking's
	// goroutines beside them; in the stepped modes one goroutine, the
	// driver's, runs every step and every task, one at a time, and the
	// fields marked "stepped modes only" rely on that. Each field says who
	// writes it and under which rule, as the Go runtime's structs do.

	// Set by New (cfg, workers, fibers) and read-only afterwards. The
	// workers' own fields say who writes them; global and fibers lock
	// themselves.
	cfg     config
	workers []*worker
	global  globalQueue // its own mutex: any worker pushes and pops
	fibers  *fiber.Pool // locks itself; workers reach it through their caches

	// Accessed atomically by any worker: a spawn or an opening nursery adds
	// one, or a block of idBlockSize for the worker's idBlock (newID);
	// Start takes the root's.
	nextTaskID    atomic.Uint64
	nextNurseryID atomic.Uint64
	// nextChanID is the last channel.id given (NewChan adds one):
	// Select's lock order. Accessed atomically.
	nextChanID atomic.Uint64
	// nextSyncID is the last id a Mutex or RWMutex was given (at its
	// first lock, under its own lock: syncName), which names it in the
	// trace. Accessed atomically.
	nextSyncID atomic.Uint64
	// live is tasks created minus tasks finished outside any worker (see
	// Live): Start adds the root, and a task retired outside any worker
	// (retire with a nil worker: a pending child dropped by a timeout the
	// clock goroutine fired, say) subtracts it; each worker counts its own
	// in worker.live. Accessed atomically.
	live atomic.Int64

	// root is written once, by Start, before any worker steps; read-only
	// afterwards.
	root *Task
	// used is set once, by compare-and-swap, by the first Run or
	// RunContext: a scheduler runs once. Accessed atomically.
	used atomic.Bool
	// rootDone is set once, by the worker that finishes the root
	// (rootFinished), and read by every worker's loop to stop, and by Run
	// and Done. Accessed atomically.
	rootDone atomic.Bool
	// aborting is set once, by Abort on the driver's goroutine between
	// steps, and read on the fibers Abort closes as they unwind. Accessed
	// atomically.
	aborting atomic.Bool
	// steps counts the busy steps of a real-mode run with MaxSteps: every
	// worker adds its own (countedRare). Accessed atomically.
	steps atomic.Int64
	// limitHit is set once, by compare-and-swap, by the worker whose step
	// passed MaxSteps; deadlocked likewise by the worker that finds the run
	// deadlocked (deadlock). Both are read after Run (LimitHit,
	// Deadlocked). Accessed atomically.
	limitHit   atomic.Bool
	deadlocked atomic.Bool
	// firing is 1 while real mode's clock goroutine fires timers: it adds
	// 1 around them, and workers read it (the deadlock check). Accessed
	// atomically.
	firing atomic.Int32
	// real is set when Run drives the scheduler, so that Blocking runs its
	// function on a goroutine of its own: set by RunWith before the
	// workers start, read by any task. Accessed atomically.
	real atomic.Bool
	// blockingN is the Blocking calls in flight (real mode), whose tasks
	// are not deadlocked: the calling task adds 1 before fn can end, and
	// Blocking's goroutine subtracts it after the task is queued again;
	// workers read it (deadlock check). Accessed atomically.
	blockingN atomic.Int64

	logMu sync.Mutex // protects log
	log   []string   // protected by logMu: any task appends (appendLog), Log copies

	regMu sync.Mutex // protects tasks and nurseries
	keep  bool       // cfg.Mode.Keeps(): set by New, read-only afterwards
	// tasks and nurseries are every task and nursery created, in creation
	// order, when keep is set (register); protected by regMu.
	tasks     []*Task
	nurseries []*Nursery
	// fibered is the tasks holding a fiber (see Abort), stepped modes
	// only: written by the steps that give a task a fiber, and by Abort.
	fibered liveFibers

	// parkEpoch counts the changes of the workers' parked flags (stepped
	// modes only, written by the step that parks or wakes a worker): the
	// driver rebuilds its list of unparked workers only when it moved,
	// instead of asking every worker at every step.
	parkEpoch uint64
	// slotted counts the workers' next slots that hold a task (stepped
	// modes only, where one goroutine changes them): the driver's Idle looks
	// at the slots only when some hold one.
	slotted int

	// sites is each pc's Go site (Task.site), with Options.Sites; stepped
	// modes only, so only the driver's goroutine writes it.
	sites siteCache
	// stepper is the Sink in the stepped modes, when it decides steps in
	// a task (see Task.endStep): set by New, read-only afterwards.
	stepper link.Stepper
	// inStepper is set while the driver's own code runs on a task's fiber
	// (Task.endStep), and stepperPanic holds a panic raised there: a bug
	// of the simulator, not of the task, which Step raises again on the
	// driver's side so that the run ends as a crash, not as that task's
	// panic. Stepped modes only, where one goroutine runs at a time.
	inStepper    bool
	stepperPanic any

	sharedTasks     sharedFree[Task]    // overflow of the workers' free lists (see free.go); its own mutex
	sharedNurseries sharedFree[Nursery] // likewise, for nurseries

	// carrier is a driver's (stepped modes): every worker's loop is the
	// driver's, carried on the fibers of this one carrier (Carry). Only
	// the driver's goroutine touches it.
	carrier carrier

	park parking // real mode's sleeping workers: its own mutex and atomics (real.go)
	// em is the event scratch space of events caused outside any worker
	// (actor "sim"): a timer fired, a Blocking call's task woken. It takes
	// no lock: in the stepped modes one goroutine emits at a time. In real
	// mode with a Sink (emOwn) the clock goroutine, any worker's fireDue
	// and Blocking goroutines emit those events at once, so each gets an
	// emitter of its own (Scheduler.emitter); without a Sink nothing is
	// emitted. Reach it through Scheduler.emitter(nil), never directly.
	em emitter
	// emOwn is set by New in real mode with a Sink: events outside any
	// worker get an emitter of their own (ownEmitter). Read-only afterwards.
	emOwn bool
	// clock is set by New (Config.Clock), or by RunWith (the wall clock)
	// before the workers start; read-only afterwards.
	clock  link.Clock
	timers timers // its own mutex; nextAt is read atomically without it
}

// New returns a scheduler for cfg, with its workers created but idle.
func New(cfg Config) (*Scheduler, error) { return newWith(cfg, link.Options{}) }

// config is a scheduler's configuration: the user's and the driver's.
type config struct {
	Config
	link.Options
}

// newWith is New with the driver's options (sched/driver's New).
func newWith(user Config, o link.Options) (*Scheduler, error) {
	user, err := user.normalize()
	if err != nil {
		return nil, err
	}
	cfg := config{Config: user, Options: o}
	s := &Scheduler{cfg: cfg, keep: cfg.Mode.Keeps()}
	s.fibers = newFiberPool(cfg.Mode)
	s.em = newEmitter(cfg.Sink, -1)
	s.emOwn = !cfg.Mode.Stepped() && cfg.Sink != nil
	if cfg.Mode.Stepped() {
		s.stepper, _ = cfg.Sink.(link.Stepper)
	}
	s.timers.nextAt.Store(noTimer)
	s.clock = cfg.Clock
	seed := cfg.Seed
	mode := resolveMode(&cfg)
	for i := 0; i < cfg.Workers; i++ {
		w := &worker{s: s, id: i, mode: mode, dq: deque.New[Task](64), fibs: s.fibers.NewCache(workerFiberCache), wake: make(chan struct{}, 1)}
		w.rng.Seed(link.SplitMix64(&seed))
		w.c, w.own.w, w.own.fibs = &w.own, w, w.fibs
		if cfg.Mode.Stepped() {
			w.c = &s.carrier // one for the run, which the driver's loop runs on (Carry)
		}
		w.em = newEmitter(cfg.Sink, i)
		w.freeTasks.shared, w.freeNurseries.shared = &s.sharedTasks, &s.sharedNurseries
		s.workers = append(s.workers, w)
	}
	s.carrier.fibs, s.carrier.s = s.workers[0].fibs, s
	return s, nil
}

// Config returns the scheduler's configuration with defaults filled in.
func (s *Scheduler) Config() Config { return s.cfg.Config }

// Workers returns the workers, by index.
func (view *driverView) Workers() []*worker {
	s := (*Scheduler)(view)
	return s.workers
}

// Start creates the root task running fn and queues it. It may be called
// once, before any worker steps.
func (view *driverView) Start(name string, fn Func) *Task {
	s := (*Scheduler)(view)
	if s.root != nil {
		panic("sched: Start: called twice")
	}
	t := &Task{s: s, id: s.nextTaskID.Add(1), name: name, fn: fn, budget: s.cfg.Budget}
	t.initial = &s.cfg.Budget
	t.caps = CapsAll
	if s.cfg.Profile == ProfileSovereign {
		t.caps = s.cfg.RootCaps
	}
	s.root = t
	s.live.Add(1)
	s.register(t, nil)
	s.global.push(t)
	s.notify()
	return t
}

// Root is the root task.
func (view *driverView) Root() *Task {
	s := (*Scheduler)(view)
	return s.root
}

// Done reports whether the root task has finished. Structured concurrency
// guarantees that every other task has finished too.
func (s *Scheduler) Done() bool { return s.rootDone.Load() }

// Live is the number of tasks created and not yet finished. Each worker
// counts the tasks it creates and finishes on its own cache line, so that
// spawning costs no atomic shared by all workers; Live adds them up, which
// is exact once the workers are idle (after Run, or in the seeded driver).
func (view *driverView) Live() int64 {
	s := (*Scheduler)(view)
	n := s.live.Load()
	for _, w := range s.workers {
		n += w.live.Load()
		if s.cfg.Mode.Stepped() {
			n += w.liveDelta // not folded yet (addLive); read between two steps
		}
	}
	return n
}

// Log returns a copy of the log lines written by tasks, in order.
func (view *driverView) Log() []string {
	s := (*Scheduler)(view)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]string(nil), s.log...)
}

// Tasks returns every task created, in creation order. Kept only when the
// scheduler has a Sink (the simulator); nil otherwise.
func (view *driverView) Tasks() []*Task {
	s := (*Scheduler)(view)
	s.regMu.Lock()
	defer s.regMu.Unlock()
	return append([]*Task(nil), s.tasks...)
}

// Nurseries returns every nursery opened, in creation order (with a Sink only).
func (view *driverView) Nurseries() []*Nursery {
	s := (*Scheduler)(view)
	s.regMu.Lock()
	defer s.regMu.Unlock()
	return append([]*Nursery(nil), s.nurseries...)
}

// Abort unwinds every task that is still suspended, so that their fibers are
// released. The seeded driver calls it when it stops a run early (deadlock,
// livelock); the scheduler is unusable afterwards.
func (view *driverView) Abort() {
	s := (*Scheduler)(view)
	s.aborting.Store(true)
	if s.stepper != nil {
		s.stepper = nil // the run is over: no task's checkpoint asks the driver (Task.endStep)
	}
	s.regMu.Lock()
	tasks := append([]*Task(nil), s.tasks...)
	s.regMu.Unlock()
	for _, t := range tasks {
		if t.fib != nil {
			t.fib.Close()
			t.fib = nil
		}
	}
	s.fibered.closeAll()
	s.closeFibers()
}

// workerFiberCache is how many idle fibers each worker keeps for itself.
const workerFiberCache = 32

// closeFibers releases every idle fiber, the workers' and the pool's.
func (s *Scheduler) closeFibers() {
	for _, w := range s.workers {
		w.fibs.Flush()
	}
	if s.cfg.Mode.Stepped() {
		s.fibers.Release()
		return
	}
	s.fibers.Close()
}

// newFiberPool is a scheduler's fiber pool. Under a stepped mode it
// starts with the process's shared idle fibers, which closeFibers hands
// back: the simulator makes a scheduler for every run, and new fibers
// are new goroutines whose stacks grow again in every run (5% of a run of
// twenty.toml, more of explore's and check's short runs). Which fiber a
// task gets is not observable. Real mode keeps a pool of its own: its
// runs are long, and its fibers move between worker goroutines.
func newFiberPool(m link.Mode) *fiber.Pool {
	if m.Stepped() {
		return fiber.NewShared(0)
	}
	return fiber.NewPool(0)
}

func (s *Scheduler) register(t *Task, n *Nursery) {
	if !s.keep {
		return
	}
	s.regMu.Lock()
	if t != nil {
		s.tasks = append(s.tasks, t)
	}
	if n != nil {
		s.nurseries = append(s.nurseries, n)
	}
	s.regMu.Unlock()
}

func (s *Scheduler) appendLog(text string) {
	s.logMu.Lock()
	s.log = append(s.log, text)
	s.logMu.Unlock()
}

func (s *Scheduler) rootFinished(t *Task) {
	if t != s.root {
		panic(fmt.Sprintf("sched: rootFinished: task %d has no nursery", t.id))
	}
	s.rootDone.Store(true)
	s.park.shutdown()
}

// globalQueue is the scheduler-wide FIFO for the root task and for tasks that
// yielded. A mutex is enough: it is touched once per yield, not per step.
type globalQueue struct {
	mu    sync.Mutex
	items []*Task
	head  int
	n     atomic.Int64 // len(items)-head, readable without mu: an empty queue costs no lock
}

func (q *globalQueue) push(t *Task) {
	q.mu.Lock()
	if q.head > 0 && q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.items = append(q.items, t)
	q.n.Add(1) // store-release under mu: a reader that sees it will find t under mu
	q.mu.Unlock()
}

func (q *globalQueue) pop() *Task {
	if q.n.Load() == 0 { // load-acquire: a push not seen yet is seen by its notify
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		return nil
	}
	q.n.Add(-1)
	t := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head > 1024 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return t
}

// pushPop pushes t and pops the queue's head under one lock: t itself
// when the queue was empty. Its count does not change, so the other
// workers see no push to wake up for (the caller runs the head at once).
func (q *globalQueue) pushPop(t *Task) *Task {
	q.mu.Lock()
	if q.head == len(q.items) {
		q.mu.Unlock()
		return t
	}
	head := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	q.items = append(q.items, t)
	if q.head > 1024 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.mu.Unlock()
	return head
}

func (q *globalQueue) len() int { return int(q.n.Load()) }
