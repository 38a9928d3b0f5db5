package bench

import (
	"fmt"
	"iter"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"

	"github.com/cbcsim/cbcsim/fiber"
	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Timer is the part of *testing.B a workload uses: it excludes setup from
// the measurement and reports figures other than ns/op. Run implements it
// with its own stopwatch, so the same workload serves `go test -bench` and
// `cbcsim bench`. The methods may be called from a task body running on a
// worker goroutine: Run, and the benchmark around it, wait for that
// goroutine before reading the timer.
type Timer interface {
	ResetTimer()
	StartTimer()
	StopTimer()
	ReportMetric(n float64, unit string)
}

// Func is a workload: n operations, timed through tm. It returns an error
// when the code under test misbehaved (a task failed, a count is off).
type Func func(tm Timer, n int) error

// Implementations compared side by side. The names are the sub-benchmark
// names, fixed so that figures compare across versions.
const (
	Cbcsim = "cbcsim" // package sched, real mode
	// CbcsimStealHalf is cbcsim with Config.StealHalf: the steal-policy
	// comparison (BenchmarkStealPolicy), not a peer.
	CbcsimStealHalf = "cbcsim_stealhalf"
	CbcsimChan      = "cbcsim_chan" // package sched, through a rendezvous Channel
	// CbcsimTyped is cbcsim_chan through the library's typed channel,
	// sched.Chan[int]: what a Go program's tasks use.
	CbcsimTyped = "cbcsim_typed"
	Goroutines  = "goroutines" // go statements joined with sync.WaitGroup (or channels)
	Errgroup    = "errgroup"   // golang.org/x/sync/errgroup.Group
	Conc        = "conc"       // github.com/sourcegraph/conc.WaitGroup
	IterPull    = "iterpull"   // a bare iter.Pull coroutine switch
)

// Join is the peers of the spawn-and-join workloads, cbcsim first.
var Join = []string{Cbcsim, Goroutines, Errgroup, Conc}

// Switch is the peers of the ping-pong workload, cbcsim first.
var Switch = []string{Cbcsim, CbcsimChan, CbcsimTyped, IterPull, Goroutines}

// Parked is the peers of the parked-task workload, cbcsim first.
var Parked = []string{Cbcsim, Goroutines}

// TreeDepth is the depth of the fan-out tree: the root is at depth 0 and
// the leaves at TreeDepth, so one tree has 2^(TreeDepth+1)-1 nodes.
const TreeDepth = 10

// TreeTasks is the number of tasks spawned for one tree (every node but its
// root, which is the caller).
const TreeTasks = 1<<(TreeDepth+1) - 2

// NopTimer is the Timer of a warm-up run.
type NopTimer struct{}

func (NopTimer) ResetTimer()                  {}
func (NopTimer) StartTimer()                  {}
func (NopTimer) StopTimer()                   {}
func (NopTimer) ReportMetric(float64, string) {}

// Workers is the worker count used when a workload is given 0: one per
// processor the Go scheduler runs on.
func Workers() int { return runtime.GOMAXPROCS(0) }

// newScheduler returns a real-mode scheduler. spawns > 0 makes it a quota
// on the root's whole subtree (spawn_count), with ops and channel_ops
// plentiful; spawns == 0 gives every task sched.Unlimited, what a Go
// program without quotas uses, and what the comparisons with goroutines
// run on (the peers have no quotas).
func newScheduler(workers int, spawns int64, yieldInterval int) (*driver.Scheduler, error) {
	return newSchedulerSteal(workers, spawns, yieldInterval, false)
}

// newSchedulerSteal is newScheduler with the steal policy chosen.
func newSchedulerSteal(workers int, spawns int64, yieldInterval int, stealHalf bool) (*driver.Scheduler, error) {
	if workers == 0 {
		workers = Workers()
	}
	b := sched.Unlimited
	if spawns > 0 {
		b = sched.DefaultBudget
		b.Ops = 1 << 40
		b.ChannelOps = 1 << 40
		b.SpawnCount = spawns
	}
	return driver.New(driver.Config{Config: sched.Config{Workers: workers, Seed: 1, Budget: b, YieldInterval: yieldInterval}, StealHalf: stealHalf})
}

// resultErr turns a root result other than ok into an error.
func resultErr(r sched.Result) error {
	if r.Kind != nursery.KindOK {
		return fmt.Errorf("root task ended %s", r)
	}
	return nil
}

func emptyTask(*sched.Task) error { return nil }

// SpawnJoin spawns n empty tasks into one scope and waits for all of them.
// For cbcsim that is one Run whose root opens one nursery. workers is the
// cbcsim worker count (0: Workers()); the peers use the Go scheduler.
func SpawnJoin(impl string, workers int) Func {
	switch impl {
	case Cbcsim, CbcsimStealHalf:
		return func(tm Timer, n int) error {
			s, err := newSchedulerSteal(workers, 0, 0, impl == CbcsimStealHalf)
			if err != nil {
				return err
			}
			tm.ResetTimer()
			return resultErr(s.Sched().Run("main", func(t *sched.Task) error {
				return t.Nursery(sched.NurseryOptions{}, func(nu *sched.Nursery) error {
					for range n {
						if err := nu.Go("task", emptyTask); err != nil {
							return err
						}
					}
					return nil
				})
			}))
		}
	case Goroutines:
		return func(_ Timer, n int) error {
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() { wg.Done() }()
			}
			wg.Wait()
			return nil
		}
	case Errgroup:
		return func(_ Timer, n int) error {
			var g errgroup.Group
			for range n {
				g.Go(func() error { return nil })
			}
			return g.Wait()
		}
	case Conc:
		return func(_ Timer, n int) error {
			var wg conc.WaitGroup
			for range n {
				wg.Go(func() {})
			}
			wg.Wait()
			return nil
		}
	}
	return unknownImpl("SpawnJoin", impl)
}

// treeNodes[d] is the task body of a tree node d levels above the leaves,
// and workNodes[d] the same for a tree whose leaves run LeafWork. They are
// built once so that a spawn passes a func value, not a new closure.
var treeNodes, workNodes [TreeDepth + 1]sched.Func

func init() {
	for d := range treeNodes {
		treeNodes[d] = func(t *sched.Task) error { return treeNode(t, d, &treeNodes) }
		workNodes[d] = func(t *sched.Task) error { return treeNode(t, d, &workNodes) }
	}
	treeNodes[0] = emptyTask
	workNodes[0] = func(*sched.Task) error { LeafWork(); return nil }
}

// LeafWorkIters is how many rounds of xorshift LeafWork runs: about 7 us
// of pure computation on the development machine, enough that a tree's
// work is worth spreading over workers, too little to hide what spawning
// costs.
const LeafWorkIters = 4096

// leafSink keeps LeafWork's result alive so the loop is not optimized away.
var leafSink atomic.Uint64

// LeafWork is the computation at each leaf of a working tree.
func LeafWork() {
	x := uint64(88172645463325252)
	for range LeafWorkIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	leafSink.Add(x & 1)
}

// treeNode opens a nursery, spawns two children one level down (nodes[d-1])
// and awaits them.
func treeNode(t *sched.Task, depth int, nodes *[TreeDepth + 1]sched.Func) error {
	if depth == 0 {
		return nodes[0](t)
	}
	child := nodes[depth-1]
	return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
		if err := n.Go("node", child); err != nil {
			return err
		}
		return n.Go("node", child)
	})
}

func goTree(depth int) {
	if depth == 0 {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { goTree(depth - 1); wg.Done() }()
	go func() { goTree(depth - 1); wg.Done() }()
	wg.Wait()
}

func errgroupTree(depth int) error {
	if depth == 0 {
		return nil
	}
	var g errgroup.Group
	g.Go(func() error { return errgroupTree(depth - 1) })
	g.Go(func() error { return errgroupTree(depth - 1) })
	return g.Wait()
}

func concTree(depth int) {
	if depth == 0 {
		return
	}
	var wg conc.WaitGroup
	wg.Go(func() { concTree(depth - 1) })
	wg.Go(func() { concTree(depth - 1) })
	wg.Wait()
}

// WorkingTree is FanOutTree for cbcsim with LeafWork at every leaf: the
// scaling measurement that shows whether the workers share work, apart from
// what spawning itself costs.
func WorkingTree(workers int) Func {
	return func(tm Timer, n int) error {
		s, err := newScheduler(workers, 0, 0)
		if err != nil {
			return err
		}
		tm.ResetTimer()
		return resultErr(s.Sched().Run("main", func(t *sched.Task) error {
			for range n {
				if err := treeNode(t, TreeDepth, &workNodes); err != nil {
					return err
				}
			}
			return nil
		}))
	}
}

// ParallelLeaves is the control of the scaling table: the leaves of n
// working trees (1<<TreeDepth each) computed by workers plain goroutines,
// with no scheduler and no spawning. Its speedup is what the machine gives
// a perfectly parallel load at that moment: on a shared machine it can be
// far below the worker count.
func ParallelLeaves(workers int) Func {
	return func(_ Timer, n int) error {
		w := workers
		if w == 0 {
			w = Workers()
		}
		leaves := n << TreeDepth
		var wg sync.WaitGroup
		for i := range w {
			share := leaves / w
			if i < leaves%w {
				share++
			}
			wg.Go(func() {
				for range share {
					LeafWork()
				}
			})
		}
		wg.Wait()
		return nil
	}
}

// FanOutTree builds n binary trees of depth TreeDepth, one after the other:
// every inner node spawns two children and waits for them. For cbcsim the
// n trees are built by the root of one Run.
func FanOutTree(impl string, workers int) Func {
	switch impl {
	case Cbcsim, CbcsimStealHalf:
		return func(tm Timer, n int) error {
			s, err := newSchedulerSteal(workers, 0, 0, impl == CbcsimStealHalf)
			if err != nil {
				return err
			}
			tm.ResetTimer()
			return resultErr(s.Sched().Run("main", func(t *sched.Task) error {
				for range n {
					if err := treeNode(t, TreeDepth, &treeNodes); err != nil {
						return err
					}
				}
				return nil
			}))
		}
	case Goroutines:
		return func(_ Timer, n int) error {
			for range n {
				goTree(TreeDepth)
			}
			return nil
		}
	case Errgroup:
		return func(_ Timer, n int) error {
			for range n {
				if err := errgroupTree(TreeDepth); err != nil {
					return err
				}
			}
			return nil
		}
	case Conc:
		return func(_ Timer, n int) error {
			for range n {
				concTree(TreeDepth)
			}
			return nil
		}
	}
	return unknownImpl("FanOutTree", impl)
}

// FiberSwitch is one resume of a fiber that yields at once, and back:
// cbcsim is package fiber's Fiber (what every task runs on), iterpull the
// bare iter.Pull coroutine underneath. Their ratio is the fiber's own
// overhead, docs/spec.md#peer-targets' "fiber switch within 1.2x of iter.Pull";
// YieldPingPong adds the scheduling around a switch.
func FiberSwitch(impl string) Func {
	switch impl {
	case Cbcsim:
		return func(tm Timer, n int) error {
			f := fiber.New(fiber.BodyFunc(func(f *fiber.Fiber) {
				for {
					f.Yield(1)
				}
			}))
			defer f.Close()
			tm.ResetTimer()
			for range n {
				if _, st := f.Resume(); st != fiber.Suspended {
					return fmt.Errorf("fiber ended: %v", st)
				}
			}
			tm.StopTimer()
			return nil
		}
	case IterPull:
		return pullRoundTrips
	}
	return unknownImpl("FiberSwitch", impl)
}

// pullRoundTrips is n round trips of a bare iter.Pull coroutine that
// yields at once: the floor a fiber, and so every switch, is built on.
func pullRoundTrips(tm Timer, n int) error {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	next()
	tm.ResetTimer()
	for range n {
		next()
	}
	tm.StopTimer()
	return nil
}

// YieldPingPong passes control between two tasks n times in all: one
// operation is one hand-over from one task to the other (rounded up to an
// even count). cbcsim runs both tasks on one worker and alternates them
// with Task.Yield (through the global queue); cbcsim_chan with two
// rendezvous Channels (the simulator's int64 channels, package driver);
// cbcsim_typed with two rendezvous sched.Chan[int]; iterpull is one round trip of a bare iter.Pull
// coroutine, the floor a fiber is built on; goroutines ping-pong over two
// unbuffered Go channels. The timer runs only while both tasks are
// switching, so allocs/op is the cost of a switch.
func YieldPingPong(impl string) Func {
	switch impl {
	case Cbcsim:
		return func(tm Timer, n int) error {
			return pingPongCbcsim(tm, n, 1, func(t *sched.Task, _ bool, _ *pingPongChans, rounds int) error {
				for range rounds {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				return nil
			})
		}
	case CbcsimChan:
		return func(tm Timer, n int) error { return pingPongCbcsim(tm, n, 1, playChan) }
	case CbcsimTyped:
		return func(tm Timer, n int) error { return pingPongCbcsim(tm, n, 1, playTyped) }
	case IterPull:
		return pullRoundTrips
	case Goroutines:
		return func(tm Timer, n int) error {
			ping, pong := make(chan int), make(chan int)
			go func() {
				for v := range ping {
					pong <- v
				}
				close(pong)
			}()
			ping <- 0
			<-pong
			tm.ResetTimer()
			for i := 0; i < n; i += 2 {
				ping <- i
				<-pong
			}
			tm.StopTimer()
			close(ping)
			for range pong {
			}
			return nil
		}
	}
	return unknownImpl("YieldPingPong", impl)
}

// Rendezvous is YieldPingPong's rendezvous on workers workers (0:
// Workers(), the library's default): cbcsim is cbcsim_typed (two
// rendezvous sched.Chan[int]) on them rather than on one, where the two
// players can run on two workers and a wake-up can go to an idle one;
// goroutines is YieldPingPong's. One operation is one hand-over.
func Rendezvous(impl string, workers int) Func {
	switch impl {
	case Cbcsim:
		return func(tm Timer, n int) error { return pingPongCbcsim(tm, n, workers, playTyped) }
	case Goroutines:
		return YieldPingPong(Goroutines)
	}
	return unknownImpl("Rendezvous", impl)
}

// playChan is a cbcsim_chan player: the first sends on ping and
// receives on pong, the other receives and sends back, rounds times.
func playChan(t *sched.Task, first bool, c *pingPongChans, rounds int) error {
	for i := range rounds {
		if first {
			if err := driver.Send(t, c.ping, int64(i)); err != nil {
				return err
			}
			if _, _, err := driver.Recv(t, c.pong); err != nil {
				return err
			}
			continue
		}
		v, _, err := driver.Recv(t, c.ping)
		if err != nil {
			return err
		}
		if err := driver.Send(t, c.pong, v); err != nil {
			return err
		}
	}
	return nil
}

// playTyped is playChan over the library's typed channels.
func playTyped(t *sched.Task, first bool, c *pingPongChans, rounds int) error {
	for i := range rounds {
		if first {
			if err := c.typedPing.Send(t, i); err != nil {
				return err
			}
			if _, _, err := c.typedPong.Recv(t); err != nil {
				return err
			}
			continue
		}
		v, _, err := c.typedPing.Recv(t)
		if err != nil {
			return err
		}
		if err := c.typedPong.Send(t, v); err != nil {
			return err
		}
	}
	return nil
}

// pingPongChans are the rendezvous channels a ping-pong's players may
// use: the simulator's (package driver) and the library's typed ones.
type pingPongChans struct {
	ping, pong           driver.Channel
	typedPing, typedPong *sched.Chan[int]
}

// pingPongCbcsim runs two players on workers workers (0: Workers();
// YieldPingPong's one), each playing (n+1)/2 rounds. The timer starts
// once both have started (their fibers exist) and stops when the first
// one ends.
func pingPongCbcsim(tm Timer, n, workers int, play func(t *sched.Task, first bool, c *pingPongChans, rounds int) error) error {
	s, err := newScheduler(workers, 2, 0)
	if err != nil {
		return err
	}
	c := &pingPongChans{ping: driver.NewChannel(s, "ping", 0), pong: driver.NewChannel(s, "pong", 0),
		typedPing: sched.NewChan[int](s.Sched(), "typed-ping", 0), typedPong: sched.NewChan[int](s.Sched(), "typed-pong", 0)}
	rounds := (n + 1) / 2
	var started, ended atomic.Int32
	player := func(first bool) sched.Func {
		return func(t *sched.Task) error {
			if started.Add(1) == 2 {
				tm.ResetTimer()
			}
			err := play(t, first, c, rounds)
			if ended.Add(1) == 1 {
				tm.StopTimer()
			}
			return err
		}
	}
	return resultErr(s.Sched().Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(nu *sched.Nursery) error {
			if _, err := nu.Spawn(t, "ping", player(true), sched.SpawnOptions{}); err != nil {
				return err
			}
			_, err := nu.Spawn(t, "pong", player(false), sched.SpawnOptions{})
			return err
		})
	}))
}

// Steal has one producer task spawn n empty tasks into one nursery on
// workers workers (at least 2), without forced yields, so that everything
// the other workers run they have stolen. It reports steals/op (the share
// of tasks stolen) and ns/steal: a thief's time per stolen task (elapsed
// time times thieves over steals), which includes running the task and
// so bounds the steal itself from above.
func Steal(workers int) Func { return StealWith(workers, false) }

// StealWith is Steal with the steal policy chosen (Config.StealHalf).
func StealWith(workers int, half bool) Func {
	return func(tm Timer, n int) error {
		w := workers
		if w == 0 {
			w = Workers()
		}
		w = max(w, 2)
		s, err := newSchedulerSteal(w, int64(n), 1<<30, half)
		if err != nil {
			return err
		}
		tm.ResetTimer()
		start := time.Now()
		res := s.Sched().Run("main", func(t *sched.Task) error {
			return t.Nursery(sched.NurseryOptions{}, func(nu *sched.Nursery) error {
				for range n {
					if err := nu.Go("task", emptyTask); err != nil {
						return err
					}
				}
				return nil
			})
		})
		elapsed := time.Since(start)
		tm.StopTimer()
		if err := resultErr(res); err != nil {
			return err
		}
		var steals int64
		for _, w := range s.Workers() {
			steals += w.Stats().Steals
		}
		tm.ReportMetric(float64(steals)/float64(n), "steals/op")
		if steals > 0 {
			thieves := float64(w - 1)
			tm.ReportMetric(float64(elapsed.Nanoseconds())*thieves/float64(steals), "ns/steal")
		}
		return nil
	}
}

// ParkedTasks parks tasks tasks at once, each blocked on a channel receive
// inside one scope, measures the memory they hold, then releases them. One
// operation is one such batch; it reports the memory per parked task as
// B/task: the growth of the heap and of the goroutine stacks in use
// (runtime.MemStats HeapInuse+StackInuse, after a GC) between before the
// first spawn and when every task is parked. cbcsim runs on one worker, so
// every child has blocked by the time the root runs again. The time is
// the batch's without its measuring: the collections of inUse and the one
// that primes the stack size run with the timer stopped, so that ns/op
// is creating, parking and releasing the tasks (with whatever collections
// they cause), not the cost of the forced full collections that measure
// them (those scan every parked stack, and were up to half of the batch;
// docs/performance.md#measuring).
//
// The tasks wait on parkChannels channels, not one, in both
// implementations, task or goroutine i on channel i%parkChannels, so that
// neither figure is about one huge wait queue and both release their
// waiters in the same order. The channels add under a byte a task.
//
// Both the runtime and the fibers reuse the descriptors (runtime.g) of
// exited goroutines, so only the first batch of a process pays for them:
// run a batch first (Bench's warm-up) to compare steady states.
func ParkedTasks(impl string, tasks int) Func {
	return func(tm Timer, n int) error {
		var total float64
		for range n {
			var per float64
			var err error
			switch impl {
			case Cbcsim:
				per, err = parkCbcsim(tm, tasks)
			case Goroutines:
				per, err = parkGoroutines(tm, tasks)
			default:
				err = fmt.Errorf("bench: ParkedTasks: unknown implementation %q", impl)
			}
			if err != nil {
				return err
			}
			total += per
		}
		tm.ReportMetric(total/float64(n), "B/task")
		return nil
	}
}

// primeTasks is how many tasks park before a collection that sets the
// runtime's starting stack size (GODEBUG adaptivestackstart: the average
// stack a collection scanned) from parked tasks rather than from whatever
// ran before, such as the testing harness. Without it the same goroutine
// measures 2.1 KiB or 4.1 KiB depending on history.
func primeTasks(tasks int) int { return min(tasks/64, 1024) }

// untimedGC is the collection that primes the starting stack size
// (primeTasks), with tm stopped: a measurement's, as inUse's are.
func untimedGC(tm Timer) {
	tm.StopTimer()
	runtime.GC()
	tm.StartTimer()
}

// parkChannels is how many channels the parked tasks wait on.
const parkChannels = 4096

// inUse is the memory the heap and the goroutine stacks hold after a
// collection. The collection and the reading are the measurement's, not
// the workload's, so tm stops for them (untimedGC).
func inUse(tm Timer) uint64 {
	tm.StopTimer()
	defer tm.StartTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

func parkCbcsim(tm Timer, tasks int) (float64, error) {
	s, err := newScheduler(1, int64(tasks), 0)
	if err != nil {
		return 0, err
	}
	chans := make([]driver.Channel, min(tasks, parkChannels))
	for i := range chans {
		chans[i] = driver.NewChannel(s, "park", 0)
	}
	var parked atomic.Int64
	children := make([]sched.Func, len(chans))
	for i, ch := range chans {
		children[i] = func(t *sched.Task) error {
			parked.Add(1)
			_, ok, err := driver.Recv(t, ch)
			if err == nil && ok {
				return fmt.Errorf("received a value from a channel nobody sends on")
			}
			return err
		}
	}
	var per float64
	res := s.Sched().Run("main", func(t *sched.Task) error {
		before := inUse(tm)
		return t.Nursery(sched.NurseryOptions{}, func(nu *sched.Nursery) error {
			// One worker: the children on its deque all run, and block,
			// before the root comes back from the global queue.
			waitParked := func(want int) error {
				for i := 0; parked.Load() < int64(want); i++ {
					if i == 3 {
						return fmt.Errorf("%d of %d tasks parked after three yields", parked.Load(), want)
					}
					if err := t.Yield(); err != nil {
						return err
					}
				}
				return nil
			}
			for i := range tasks {
				if i == primeTasks(tasks) {
					if err := waitParked(i); err != nil {
						return err
					}
					untimedGC(tm)
				}
				if err := nu.Go("parked", children[i%len(children)]); err != nil {
					return err
				}
			}
			if err := waitParked(tasks); err != nil {
				return err
			}
			per = float64(int64(inUse(tm))-int64(before)) / float64(tasks)
			for _, ch := range chans {
				if err := driver.Close(t, ch); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return per, resultErr(res)
}

// parkGoroutines is parkCbcsim with goroutines: goroutine i waits on
// channel i%parkChannels, as task i does, and the channels are closed in
// the same order, so that both release their waiters in the same order
// (a channel's waiters in turn, each a parkChannels-th of the batch apart
// in creation order, and so in memory).
func parkGoroutines(tm Timer, tasks int) (float64, error) {
	chans := make([]chan struct{}, min(tasks, parkChannels))
	for i := range chans {
		chans[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	var parked atomic.Int64
	before := inUse(tm)
	for i := range tasks {
		if i == primeTasks(tasks) {
			for parked.Load() < int64(i) {
				runtime.Gosched()
			}
			untimedGC(tm)
		}
		wg.Add(1)
		ch := chans[i%len(chans)]
		go func() {
			parked.Add(1)
			<-ch
			wg.Done()
		}()
	}
	for parked.Load() < int64(tasks) {
		runtime.Gosched()
	}
	per := float64(int64(inUse(tm))-int64(before)) / float64(tasks)
	for _, ch := range chans {
		close(ch)
	}
	wg.Wait()
	return per, nil
}

// SpawnedTasks spawns tasks children that have not yet run and measures
// the memory they hold, as B/task (the same inUse growth as ParkedTasks).
// On one worker the root keeps the worker until it yields, so every child
// sits in the deque unrun when the root measures: a spawned task must cost
// its descriptor and nothing more, no fiber, goroutine or stack, which a
// figure near the Task's size shows (a stack alone is 2 KiB). Goroutines
// have no such state (go starts a goroutine with its stack), so the only
// implementation is cbcsim; ParkedTasks gives a goroutine's bytes.
func SpawnedTasks(tasks int) Func {
	return func(tm Timer, n int) error {
		var total float64
		for range n {
			per, err := spawnedCbcsim(tm, tasks)
			if err != nil {
				return err
			}
			total += per
		}
		tm.ReportMetric(total/float64(n), "B/task")
		return nil
	}
}

func spawnedCbcsim(tm Timer, tasks int) (float64, error) {
	// No forced yield: the spawner must keep the worker until it measures.
	s, err := newScheduler(1, int64(tasks), math.MaxInt32)
	if err != nil {
		return 0, err
	}
	var ran atomic.Int64
	child := func(*sched.Task) error { ran.Add(1); return nil }
	var per float64
	res := s.Sched().Run("main", func(t *sched.Task) error {
		before := inUse(tm)
		return t.Nursery(sched.NurseryOptions{}, func(nu *sched.Nursery) error {
			for range tasks {
				if err := nu.Go("spawned", child); err != nil {
					return err
				}
			}
			// One worker, no forced yield and none of our own: none ran.
			if r := ran.Load(); r != 0 {
				return fmt.Errorf("%d of %d spawned tasks ran before the spawner yielded", r, tasks)
			}
			per = float64(int64(inUse(tm))-int64(before)) / float64(tasks)
			return nil
		})
	})
	return per, resultErr(res)
}

// unknownImpl is the workload of an implementation name the workload does
// not know: running it reports the name, rather than the constructor
// panicking.
func unknownImpl(workload, impl string) Func {
	return func(Timer, int) error {
		return fmt.Errorf("bench: %s: unknown implementation %q", workload, impl)
	}
}
