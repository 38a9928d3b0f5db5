package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
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
	// StrategyPortfolio varies the strategy across seeds: each seed runs
	// one arm of Portfolio (random, or pct at one of several depths),
	// chosen by the seed, and its trace header records that arm, so the
	// run replays as a plain random or pct run. No single strategy finds
	// every ordering bug (docs/explore.md#which-strategy): the default of
	// check, fuzz and simtest.
	StrategyPortfolio = "portfolio"
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

// Arm is one strategy of the portfolio: random (PCTDepth 0) or pct at
// PCTDepth.
type Arm struct {
	Strategy string
	PCTDepth int
}

// Portfolio is the portfolio's arms; seed s runs Portfolio[s % len]. Five
// consecutive seeds thus run every arm once. The depths are those that
// found the bugs of scenarios/bugs soonest, measured seed by seed
// (docs/explore.md#which-strategy): depth 2 and 3 find a run-ahead bug,
// 5 and 8 a bug that needs several preemptions (dining philosophers);
// random finds lock-order bugs that preempt anywhere.
var Portfolio = []Arm{
	{StrategyRandom, 0},
	{StrategyPCT, 2},
	{StrategyPCT, 3},
	{StrategyPCT, 5},
	{StrategyPCT, 8},
}

// PortfolioArm is the arm the portfolio runs for seed.
func PortfolioArm(seed uint64) Arm { return Portfolio[seed%uint64(len(Portfolio))] }

// AtSeed is c at another seed: under the portfolio, with that seed's arm
// as its strategy (the one a run of the seed resolves to).
func (c Config) AtSeed(seed uint64) Config {
	c.Seed = seed
	if c.Portfolio {
		arm := PortfolioArm(seed)
		c.Strategy, c.PCTDepth = arm.Strategy, arm.PCTDepth
	}
	return c
}

// PortfolioText names the portfolio's arms, for reports.
func PortfolioText() string {
	parts := make([]string, len(Portfolio))
	for i, a := range Portfolio {
		parts[i] = a.Strategy
		if a.Strategy == StrategyPCT {
			parts[i] += " " + strconv.Itoa(a.PCTDepth)
		}
	}
	return "portfolio (seed mod " + strconv.Itoa(len(Portfolio)) + ": " + strings.Join(parts, ", ") + ")"
}

// resolveStrategy fills c's strategy fields from o. A portfolio resolves
// to its arm for c.Seed, which must be resolved already.
func resolveStrategy(c *Config, o Options) error {
	c.Strategy, c.PCTDepth, c.Portfolio = o.Strategy, 0, false
	if c.Strategy == "" {
		c.Strategy = StrategyRandom
	}
	if c.Strategy == StrategyPortfolio {
		if o.PCTDepth != 0 {
			return fmt.Errorf("pct depth %d given with strategy portfolio (the portfolio chooses the depth by seed)", o.PCTDepth)
		}
		if c.Mode.Real() {
			return fmt.Errorf("strategy %s drives the seeded simulator; real mode has no driver to steer", c.Strategy)
		}
		arm := PortfolioArm(c.Seed)
		c.Strategy, c.Portfolio = arm.Strategy, true
		o.PCTDepth = arm.PCTDepth
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
		return fmt.Errorf("unknown strategy %q (want random, pct or portfolio)", c.Strategy)
	}
	if c.Mode.Real() && c.Strategy != StrategyRandom {
		return fmt.Errorf("strategy %s drives the seeded simulator; real mode has no driver to steer", c.Strategy)
	}
	return nil
}

// Chooser steers a seeded run from outside (the explorer). Choose returns
// the worker that acts at step among ready, the unparked workers. If the
// Chooser also implements driver.VictimSource, it chooses every steal
// victim too. ready is the driver's and is kept from step to step: Choose
// must not modify it (copy it to keep or reorder it).
type Chooser interface {
	Choose(step int64, ready []driver.Worker) driver.Worker
}

type externalChooser struct{ c Chooser }

func (e externalChooser) pick(step int64, ready []driver.Worker) (driver.Worker, error) {
	return e.c.Choose(step, ready), nil
}

func (externalChooser) done(int64) error { return nil }

// inTask is false: an explorer's Chooser is called from the driver's
// goroutine only, as its documentation says.
func (externalChooser) inTask() bool { return false }

// newChooser builds the driver's decision maker for one run: the recorded
// schedule, an external Chooser, or the configured strategy. pctLength is
// asked for pct's decision count only under pct (it may run a probe).
func newChooser(c Config, o Options, pctLength func() int64) (chooser, driver.VictimSource, error) {
	switch {
	case o.Schedule != nil:
		sch := &scheduleChooser{s: o.Schedule, workers: c.Workers}
		return sch, sch, nil
	case o.Chooser != nil:
		v, _ := o.Chooser.(driver.VictimSource)
		return externalChooser{o.Chooser}, v, nil
	case c.Strategy == StrategyPCT:
		return newPCTChooser(c, pctLength()), nil, nil
	case c.Strategy == StrategyExplore:
		return nil, nil, ErrExploreNeedsSchedule
	}
	return &randomChooser{rng: driver.NewXoshiro(driverSeed(c.Seed))}, nil, nil
}

// ErrExploreNeedsSchedule is a run of strategy explore with neither an
// explorer nor a recorded schedule to follow.
var ErrExploreNeedsSchedule = errors.New("strategy explore has no seed to replay: follow the recorded decisions (replay --schedule)")

// Useful appends to dst the workers of ready whose next step can do
// something (run a task or take one), leaving out the idle ones whose step
// could only look for work and park: the workers that are not Idle. Idle
// is Vacant and not WorkQueued, and WorkQueued is the same for every
// worker, so Useful asks it once: when work is queued every worker is
// useful, else the ones that are not vacant. It is called at every step:
// this is O(workers) a step, where asking each worker's Idle was
// O(workers²) (a livelock of a million steps at 256 workers took 108 s
// under pct, docs/reliability.md).
func Useful(dst, ready []driver.Worker) []driver.Worker {
	if len(ready) == 0 {
		return dst
	}
	if ready[0].WorkQueued() {
		return append(dst, ready...)
	}
	for _, w := range ready {
		if !w.Vacant() {
			dst = append(dst, w)
		}
	}
	return dst
}

// Yielded reports whether task t, which worker w was in the middle of
// before the last step, having yielded yields times (Yields), yielded in
// that step: its count of yields moved (a yield the worker answered by
// taking t straight back from the global queue, DecideHandOff, leaves it
// w's current task), or it left w and is ready.
func Yielded(w driver.Worker, t *sched.Task, yields int64) bool {
	return t != nil && (Yields(t) > yields || w.Current() != t && driver.State(t) == driver.StateReady)
}

// Yields is how many times t has yielded so far, 0 for nil: what Yielded
// compares after the next step.
func Yields(t *sched.Task) int64 {
	if t == nil {
		return 0
	}
	return driver.Yields(t)
}

// strategyFields are the trace header's fields for c's strategy. A random
// run writes none, so that its traces (and every trace recorded before
// strategies existed) stay as they were; a missing field reads as random.
func strategyFields(c Config) []trace.Field {
	switch c.Strategy {
	case StrategyPCT:
		return []trace.Field{trace.S(trace.KeyStrategy, c.Strategy), trace.I(trace.KeyPCTDepth, int64(c.PCTDepth))}
	case StrategyExplore:
		return []trace.Field{trace.S(trace.KeyStrategy, c.Strategy)}
	}
	return nil
}

// StrategyOptions reads the strategy fields of a trace header into
// Options, for replay, and checks them as Resolve would. An error is a
// *FieldError naming the header field at fault, so that the caller can
// place it at that field's line.
func StrategyOptions(h *trace.Header) (Options, error) {
	var o Options
	if f, ok := h.Get(trace.KeyStrategy); ok {
		if f.IsInt {
			return o, &FieldError{Key: trace.KeyStrategy, Msg: "strategy is not text"}
		}
		o.Strategy = f.Str
	}
	if f, ok := h.Get(trace.KeyPCTDepth); ok {
		if !f.IsInt || f.Int < 1 || f.Int > PCTDepthMax {
			return o, &FieldError{Key: trace.KeyPCTDepth, Msg: fmt.Sprintf("bad pct_depth: want an integer in 1..%d", PCTDepthMax)}
		}
		o.PCTDepth = int(f.Int)
	}
	var c Config
	if err := resolveStrategy(&c, o); err != nil {
		key := trace.KeyStrategy
		if o.PCTDepth != 0 && (o.Strategy == "" || o.Strategy == StrategyRandom) {
			key = trace.KeyPCTDepth // a depth beside random: the depth is what does not belong
		}
		return o, &FieldError{Key: key, Msg: err.Error()}
	}
	return o, nil
}

// FieldError is a bad value of the header field Key.
type FieldError struct {
	Key, Msg string
}

func (e *FieldError) Error() string { return e.Msg }

// CheckStrategy reports whether a strategy and a pct depth given on a
// command line are acceptable for a seeded run.
func CheckStrategy(strategy string, pctDepth int) error {
	if strategy == StrategyExplore {
		return fmt.Errorf("unknown strategy %q (want random, pct or portfolio; cbcsim explore is its own command)", strategy)
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
	if strategy == StrategyPortfolio {
		// The portfolio's run of this seed is its arm's: the header
		// records the arm.
		arm := PortfolioArm(c.Seed)
		strategy, pctDepth = arm.Strategy, arm.PCTDepth
	}
	if strategy == StrategyPCT && pctDepth == 0 {
		pctDepth = PCTDepthDefault
	}
	if c.Strategy != strategy || (strategy == StrategyPCT && c.PCTDepth != pctDepth) {
		return fmt.Errorf("%s: recorded with strategy %s, not %s; replay takes the strategy from the trace header (drop --strategy)",
			file, StrategyName(c.Strategy, c.PCTDepth), StrategyName(strategy, pctDepth))
	}
	return nil
}

// StrategyName is how reports name a strategy: "random", "pct (depth 3)".
func StrategyName(strategy string, pctDepth int) string {
	if strategy == StrategyPCT {
		if pctDepth == 0 {
			pctDepth = PCTDepthDefault
		}
		return fmt.Sprintf("pct (depth %d)", pctDepth)
	}
	return strategy
}
