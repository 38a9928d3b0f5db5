package sim

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

// Strategies of the seeded driver (docs/explore.md).
const (
	// StrategyRandom is the uniform walk: every step draws the acting
	// worker among the unparked ones, idle ones included.
	StrategyRandom = "random"
	// StrategyPCT is probabilistic concurrency testing over the workers:
	// random priorities, the highest-priority worker with something to do
	// acts, and at D-1 random decisions the worker that acted last drops
	// below every other.
	StrategyPCT = "pct"
	// StrategyExplore marks a run driven by an external Chooser (the
	// systematic explorer): it has no seed of its own, so its trace
	// replays only with its recorded schedule.
	StrategyExplore = "explore"
)

// PCT depth: the default and the accepted range.
const (
	PCTDepthDefault = 3
	PCTDepthMax     = 64
)

// resolveStrategy fills c's strategy fields from o.
func resolveStrategy(c *Config, o Options) error {
	c.Strategy, c.PCTDepth = o.Strategy, 0
	if c.Strategy == "" {
		c.Strategy = StrategyRandom
	}
	switch c.Strategy {
	case StrategyRandom:
		if o.PCTDepth != 0 {
			return fmt.Errorf("pct depth %d given with strategy random (it is a setting of pct)", o.PCTDepth)
		}
	case StrategyPCT:
		c.PCTDepth = o.PCTDepth
		if c.PCTDepth == 0 {
			c.PCTDepth = PCTDepthDefault
		}
		if c.PCTDepth < 1 || c.PCTDepth > PCTDepthMax {
			return fmt.Errorf("pct depth %d out of range 1..%d", c.PCTDepth, PCTDepthMax)
		}
	case StrategyExplore:
		// Only an explorer's Chooser or a recorded schedule can drive it;
		// newChooser says so if neither is given.
	default:
		return fmt.Errorf("unknown strategy %q (want random or pct)", c.Strategy)
	}
	if c.Real && c.Strategy != StrategyRandom {
		return fmt.Errorf("strategy %s drives the seeded simulator; real mode has no driver to steer", c.Strategy)
	}
	return nil
}

// Chooser steers a seeded run from outside (the explorer). Choose returns
// the worker that acts at step among ready, the unparked workers. If the
// Chooser also implements sched.VictimSource, it chooses every steal
// victim too.
type Chooser interface {
	Choose(step int64, ready []*sched.Worker) *sched.Worker
}

type externalChooser struct{ c Chooser }

func (e externalChooser) pick(step int64, ready []*sched.Worker) (*sched.Worker, error) {
	return e.c.Choose(step, ready), nil
}

func (externalChooser) done(int64) error { return nil }

// newChooser builds the driver's decision maker for one run: the recorded
// schedule, an external Chooser, or the configured strategy.
func newChooser(sc *scenario.Scenario, c Config, o Options) (chooser, sched.VictimSource, error) {
	switch {
	case o.Schedule != nil:
		sch := &scheduleChooser{s: o.Schedule, workers: c.Workers}
		return sch, sch, nil
	case o.Chooser != nil:
		v, _ := o.Chooser.(sched.VictimSource)
		return externalChooser{o.Chooser}, v, nil
	case c.Strategy == StrategyPCT:
		return newPCTChooser(c, pctLength(sc, c)), nil, nil
	case c.Strategy == StrategyExplore:
		return nil, nil, ErrExploreNeedsSchedule
	}
	return &randomChooser{rng: sched.NewXoshiro(driverSeed(c.Seed))}, nil, nil
}

// ErrExploreNeedsSchedule is a run of strategy explore with neither an
// explorer nor a recorded schedule to follow.
var ErrExploreNeedsSchedule = errors.New("strategy explore has no seed to replay: follow the recorded decisions (replay --schedule)")

// Useful appends to dst the workers of ready whose next step can do
// something (run a task or take one), leaving out the idle ones whose step
// could only look for work and park.
func Useful(dst, ready []*sched.Worker) []*sched.Worker {
	for _, w := range ready {
		if !w.Idle() {
			dst = append(dst, w)
		}
	}
	return dst
}

// pctChooser is PCT (Burckhardt et al., ASPLOS 2010) with the tasks as
// PCT's threads: each task gets a random priority when the driver first
// sees it running, and the driver steps the worker whose current task has
// the highest priority. A worker between tasks (its task blocked, yielded
// or ended, and it has work to take) goes first: taking a task runs no
// task code, and the task it takes then competes by its own priority. A
// decision is a step at which more than one worker has something to do;
// idle workers' looks for work are not decisions and consume no change
// point. At each of the D-1 change points the task the previous step ran
// drops below every other. When no worker has anything to do, the
// lowest-numbered unparked worker takes its idle step (it parks) without
// a draw.
type pctChooser struct {
	rng       *sched.Xoshiro
	prio      map[uint64]int64 // by task id; looked up, never iterated
	low       int64            // the priority the next lowered task gets
	changes   []int64          // decision indices at which the last task is lowered, ascending
	decisions int64
	prevTask  uint64        // the task the previous step ran, 0 if none
	prevW     *sched.Worker // the worker of the previous step
	prevT     *sched.Task   // its task before that step
	useful    []*sched.Worker
}

// pctSeed derives the strategy's PRNG seed from the run seed, apart from
// the random walk's and the workers' victim draws.
func pctSeed(seed uint64) uint64 {
	s := seed ^ 0x7063745f73656564 // "pct_seed"
	return sched.SplitMix64(&s)
}

// newPCTChooser draws the change points: d-1 distinct decisions in
// [1, length), length being the working steps of a probe run.
func newPCTChooser(c Config, length int64) *pctChooser {
	rng := sched.NewXoshiro(pctSeed(c.Seed))
	p := &pctChooser{rng: rng, prio: map[uint64]int64{}, low: -1}
	n := min(int64(c.PCTDepth-1), length-1)
	seen := map[int64]bool{}
	for int64(len(p.changes)) < n {
		k := 1 + int64(rng.Intn(int(length-1)))
		if !seen[k] {
			seen[k] = true
			p.changes = append(p.changes, k)
		}
	}
	sort.Slice(p.changes, func(i, j int) bool { return p.changes[i] < p.changes[j] })
	return p
}

// rank is w's priority: its current task's, or the highest when it is
// between tasks.
func (p *pctChooser) rank(w *sched.Worker) int64 {
	id := w.CurrentID()
	if id == 0 {
		return math.MaxInt64
	}
	r, ok := p.prio[id]
	if !ok {
		r = int64(p.rng.Uint64() >> 2) // distinct from every other with overwhelming odds; ties go to the lower worker
		p.prio[id] = r
	}
	return r
}

func (p *pctChooser) pick(_ int64, ready []*sched.Worker) (*sched.Worker, error) {
	if Yielded(p.prevW, p.prevT) {
		// As Shuttle does: a task that yields drops below every other, or
		// a task spinning on yields while it waits for a lower one would
		// starve it for ever (explicit_cancel's spinner).
		p.prio[p.prevT.ID()] = p.low
		p.low--
	}
	p.useful = Useful(p.useful[:0], ready)
	if len(p.useful) == 0 {
		p.prevTask, p.prevW, p.prevT = 0, ready[0], nil
		return ready[0], nil
	}
	if len(p.useful) > 1 {
		if len(p.changes) > 0 && p.changes[0] == p.decisions {
			if p.prevTask != 0 {
				p.prio[p.prevTask] = p.low
				p.low--
			}
			p.changes = p.changes[1:]
		}
		p.decisions++
	}
	best, bestRank := p.useful[0], p.rank(p.useful[0])
	for _, w := range p.useful[1:] {
		if r := p.rank(w); r > bestRank {
			best, bestRank = w, r
		}
	}
	p.prevTask, p.prevW, p.prevT = best.CurrentID(), best, best.Current()
	return best, nil
}

func (*pctChooser) done(int64) error { return nil }

// Yielded reports whether task t, which worker w was in the middle of
// before the last step, yielded in that step: it left w and is ready.
func Yielded(w *sched.Worker, t *sched.Task) bool {
	return t != nil && w.Current() != t && t.State() == sched.StateReady
}

// pctProbe is the probe run's chooser: the lowest-numbered useful worker
// acts. It counts the steps that did something (steps with a useful
// worker), not the decisions: a run that keeps one worker busy has few
// decisions, while the runs PCT is after, with every worker busy, have
// about as many decisions as the work has steps. The work's steps are
// nearly the same under every schedule, so they bound the decisions of
// any run, as PCT's k wants.
type pctProbe struct {
	steps  int64
	useful []*sched.Worker
}

func (p *pctProbe) Choose(_ int64, ready []*sched.Worker) *sched.Worker {
	p.useful = Useful(p.useful[:0], ready)
	if len(p.useful) == 0 {
		return ready[0]
	}
	p.steps++
	return p.useful[0]
}

// pctLength is the number of decisions PCT draws its change points from:
// the working steps of one probe run of the scenario under the same
// configuration, with fixed priorities and no change points. As Shuttle
// does with its first iteration, the probe learns the run's length
// instead of asking the user for it; unlike Shuttle, every run repeats
// the same probe (cached), so a seed alone reproduces a run. The length
// is at least 2 so that a change point can always be drawn.
func pctLength(sc *scenario.Scenario, c Config) int64 {
	key := pctKey{sha: sc.SHA256, workers: c.Workers, victim: c.Victim, profile: c.Profile,
		yield: c.YieldInterval, maxSteps: c.MaxSteps}
	pctCache.mu.Lock()
	n, ok := pctCache.m[key]
	pctCache.mu.Unlock()
	if ok {
		return n
	}
	pc := c
	pc.Seed, pc.Strategy, pc.PCTDepth = 0, StrategyExplore, 0
	probe := &pctProbe{}
	if _, err := Execute(sc, pc, Options{Chooser: probe}); err != nil {
		// The real run will meet and report the same error.
		return 2
	}
	n = max(probe.steps, 2)
	pctCache.mu.Lock()
	if len(pctCache.m) >= pctCacheMax {
		clear(pctCache.m) // a bound on memory; entries are recomputed exactly
	}
	pctCache.m[key] = n
	pctCache.mu.Unlock()
	return n
}

type pctKey struct {
	sha             string
	workers         int
	victim, profile string
	yield           int
	maxSteps        int64
}

const pctCacheMax = 4096

var pctCache = struct {
	mu sync.Mutex
	m  map[pctKey]int64
}{m: map[pctKey]int64{}}

// strategyFields are the trace header's fields for c's strategy. A random
// run writes none, so that its traces (and every trace recorded before
// strategies existed) stay as they were; a missing field reads as random.
func strategyFields(c Config) []trace.Field {
	switch c.Strategy {
	case StrategyPCT:
		return []trace.Field{trace.S("strategy", c.Strategy), trace.I("pct_depth", int64(c.PCTDepth))}
	case StrategyExplore:
		return []trace.Field{trace.S("strategy", c.Strategy)}
	}
	return nil
}

// StrategyOptions reads the strategy fields of a trace header into
// Options, for replay.
func StrategyOptions(h *trace.Header) (Options, error) {
	var o Options
	if f, ok := h.Get("strategy"); ok {
		if f.IsInt {
			return o, fmt.Errorf("header: strategy is not text")
		}
		o.Strategy = f.Str
	}
	if f, ok := h.Get("pct_depth"); ok {
		if !f.IsInt || f.Int < 1 || f.Int > PCTDepthMax {
			return o, fmt.Errorf("header: bad pct_depth")
		}
		o.PCTDepth = int(f.Int)
	}
	return o, nil
}

// StrategyArgs is the command-line tail that selects c's strategy: empty
// for random, " --strategy pct --pct-depth D" for pct.
func StrategyArgs(c Config) string {
	if c.Strategy != StrategyPCT {
		return ""
	}
	d := c.PCTDepth
	if d == 0 {
		d = PCTDepthDefault
	}
	return fmt.Sprintf(" --strategy pct --pct-depth %d", d)
}

// CheckStrategy reports whether a strategy and a pct depth given on a
// command line are acceptable for a seeded run.
func CheckStrategy(strategy string, pctDepth int) error {
	if strategy == StrategyExplore {
		return fmt.Errorf("unknown strategy %q (want random or pct; cbcsim explore is its own command)", strategy)
	}
	var c Config
	return resolveStrategy(&c, Options{Strategy: strategy, PCTDepth: pctDepth})
}

// CheckTraceStrategy reports an error when the trace in data was recorded
// under another strategy (or pct depth) than the one given: replay takes
// the strategy from the header, and a flag may only confirm it.
func CheckTraceStrategy(file string, data []byte, strategy string, pctDepth int) error {
	_, _, c, err := LoadTrace(file, data)
	if err != nil {
		return err
	}
	if strategy == "" {
		strategy = StrategyRandom
	}
	if strategy == StrategyPCT && pctDepth == 0 {
		pctDepth = PCTDepthDefault
	}
	if c.Strategy != strategy || (strategy == StrategyPCT && c.PCTDepth != pctDepth) {
		return fmt.Errorf("%s: recorded with strategy %s, not %s; replay takes the strategy from the trace header (drop --strategy)",
			file, strategyName(c.Strategy, c.PCTDepth), strategyName(strategy, pctDepth))
	}
	return nil
}

// strategyName is how reports name a strategy: "random", "pct (depth 3)".
func strategyName(strategy string, pctDepth int) string {
	if strategy == StrategyPCT {
		if pctDepth == 0 {
			pctDepth = PCTDepthDefault
		}
		return fmt.Sprintf("pct (depth %d)", pctDepth)
	}
	return strategy
}
