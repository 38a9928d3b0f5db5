package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/waits"
	"github.com/cbcsim/cbcsim/trace"
)

// Body describes a seeded run of a Go root body instead of a scenario's
// program: the C ABI's deterministic mode runs a C program this way. The
// body runs as the root task main under the same driver as a scenario
// (drive, with the same strategies), so its trace reads like a
// scenario's and `cbcsim diff` and `cbcsim export` take it; `cbcsim
// replay` cannot, since the program is not in the trace.
type Body struct {
	Name   string // the trace header's name
	Source string // what ran, for the header's source (and its hash): no paths or addresses
	Seed   uint64 // 0..2^63-1, as a scenario's
	// Sched configures the scheduler: Workers, Victim, Profile,
	// YieldInterval, Budget, RootCaps. The driver sets Seed, Sink, Clock
	// and Mode itself.
	Sched    sched.Config
	MaxSteps int64     // the livelock bound on busy steps; 0 means DefaultBodyMaxSteps
	Trace    io.Writer // nil writes no trace

	// Strategy and PCTDepth are the driver's strategy, as a scenario
	// run's (Options.Strategy; "": random).
	Strategy string
	PCTDepth int
	// PCTLength is the number of decisions pct draws its change points
	// from. 0 runs the body once more first, as a probe (pctLength):
	// only for a body that can run twice, which a C program queued for
	// one shutdown cannot.
	PCTLength int64
	// Chooser drives the run from outside (the explorer), as
	// Options.Chooser.
	Chooser Chooser
	// Sites records the Go source line of the sched call each step runs
	// (the trace's at= fields, docs/trace-format.md): a Go body's, whose
	// lines are deterministic; a C program's Go calls would all name the
	// C ABI's own lines, so it leaves them off.
	Sites bool
}

// DefaultBodyMaxSteps bounds a body's run when Body.MaxSteps is 0. It is
// larger than a scenario's default: a program of thousands of tasks takes
// hundreds of thousands of steps.
const DefaultBodyMaxSteps = 100_000_000

// BodyRun is the outcome of RunBody.
type BodyRun struct {
	Config  Config       // as resolved: the header's configuration
	Outcome Outcome      // ok, failed, cancelled, deadlock, livelock, crash
	Result  sched.Result // main's result
	Steps   int64
	Crash   string
	Checks  []Check // the invariants, checked on the run's events
	// Waits explains a run that did not end by itself: each unfinished
	// task, what it waits on, at which Go line (with Body.Sites), and who
	// could wake it (package waits). Nil for a run that ended.
	Waits *waits.Analysis
	// Decisions is the run's policy decisions (Run.Decisions): at one
	// worker, none means every seed gives this same run.
	Decisions int64
}

// RunBody runs body as the root task under the seeded driver and checks the
// invariants. The trace, if b.Trace is set, is written as the run goes.
func RunBody(b Body, body sched.Func) (*BodyRun, error) {
	c, err := b.resolve()
	if err != nil {
		return nil, err
	}
	var tw *trace.Writer
	if b.Trace != nil {
		tw = trace.NewWriter(b.Trace)
		sum := sha256.Sum256([]byte(b.Source))
		if err := tw.WriteHeader(header(b.Name, hex.EncodeToString(sum[:]), b.Source, c)); err != nil {
			return nil, err
		}
	}
	ch, victims, err := newChooser(c, Options{Chooser: b.Chooser}, func() int64 { return b.pctLength(c, body) })
	if err != nil {
		return nil, err
	}
	sk := newSink(c.Workers, tw)
	sk.tab = newTables() // a Go program's code path keeps no task: the tables come from the events
	cfg := driver.Config{Config: b.Sched, Mode: driver.Seeded, Sink: sk, Clock: sk, Victims: victims,
		Story: true, Sites: b.Sites}
	sk.story = true
	cfg.Decisions, _ = victims.(driver.DecisionSource)
	cfg.Seed, cfg.Workers, cfg.YieldInterval = c.Seed, c.Workers, c.YieldInterval
	s, err := driver.New(cfg)
	if err != nil {
		return nil, err
	}
	s.Start("main", body)
	run := &Run{Config: c}
	step, err := drive(run, s, sk, ch)
	if err != nil {
		return nil, err
	}
	if err := finish(run, s, sk, tw, step); err != nil {
		return nil, err
	}
	return &BodyRun{Config: c, Outcome: run.Outcome, Result: run.Result, Steps: run.Steps, Crash: run.Crash,
		Checks: checkInvariants(run, sk.hist, false), Waits: run.Waits, Decisions: run.Decisions}, nil
}

// resolve is the run's configuration: the scheduler's, with the defaults
// sched.New would fill in filled here for the header, and the strategy.
func (b Body) resolve() (Config, error) {
	if b.Seed > 1<<63-1 {
		return Config{}, fmt.Errorf("seed %d out of range 0..%d", b.Seed, int64(1<<63-1))
	}
	c := Config{Seed: b.Seed, Workers: b.Sched.Workers, Victim: b.Sched.Victim, Profile: b.Sched.Profile,
		YieldInterval: b.Sched.YieldInterval, MaxSteps: b.MaxSteps}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.YieldInterval == 0 {
		c.YieldInterval = sched.DefaultYieldInterval(c.Profile)
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultBodyMaxSteps
	}
	if c.MaxSteps < 1 {
		return c, fmt.Errorf("max steps %d out of range 1..%d", c.MaxSteps, int64(math.MaxInt64))
	}
	return c, resolveStrategy(&c, Options{Strategy: b.Strategy, PCTDepth: b.PCTDepth})
}

// pctLength is Body.PCTLength, or the working steps of a probe run of the
// body (as pctLength does for a scenario, without the cache: a body has no
// hash to key it by).
func (b Body) pctLength(c Config, body sched.Func) int64 {
	if b.PCTLength > 0 {
		return max(b.PCTLength, 2)
	}
	probe := &pctProbe{}
	pb := b
	pb.Trace, pb.Strategy, pb.PCTDepth, pb.Chooser = nil, StrategyExplore, 0, probe
	if _, err := RunBody(pb, body); err != nil {
		return 2 // the real run will meet and report the same error
	}
	return max(probe.steps, 2)
}
