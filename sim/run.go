package sim

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/waits"
	"github.com/cbcsim/cbcsim/trace"
)

// Options overrides a scenario's configuration for one run.
type Options struct {
	Seed     uint64
	HasSeed  bool
	Workers  int    // 0: the scenario's, else the CPU count
	Victim   string // "": the scenario's
	Trace    io.Writer
	MaxSteps int64     // 0: the scenario's
	Mode     Mode      // seeded (the zero Mode), or real worker goroutines (ModeOf)
	Schedule *Schedule // drive the run from recorded decisions instead of the PRNG
	Strategy string    // "": random (see strategy.go)
	PCTDepth int       // pct: 0 means PCTDepthDefault
	Chooser  Chooser   // drive the run from outside (the explorer; its Strategy is explore, so the trace says so)

	// RealTimeout bounds a real-mode run in wall time (0:
	// DefaultRealTimeout); past it the run is a livelock at that limit.
	RealTimeout time.Duration
}

// Outcome is how a run ended, named as the scenario format's `outcome`
// names it.
type Outcome string

// The outcomes of a run.
const (
	OutcomeOK        Outcome = scenario.OutcomeOK
	OutcomeFailed    Outcome = scenario.OutcomeFailed
	OutcomeCancelled Outcome = scenario.OutcomeCancelled
	OutcomeDeadlock  Outcome = scenario.OutcomeDeadlock
	OutcomeLivelock  Outcome = scenario.OutcomeLivelock
	// OutcomeCrash is an extension: the scheduler itself panicked (an
	// internal assertion failed). It always fails the run.
	OutcomeCrash Outcome = "crash"
)

// Ended reports whether the run ended by itself: not a deadlock, a
// livelock or a crash.
func (o Outcome) Ended() bool {
	return o != OutcomeDeadlock && o != OutcomeLivelock && o != OutcomeCrash
}

// Config is the fully resolved configuration of one run.
type Config struct {
	Seed          uint64
	Workers       int
	Victim        sched.Victim  // parsed once, by Resolve
	Profile       sched.Profile // parsed once, by Resolve
	YieldInterval int
	MaxSteps      int64
	Mode          Mode // seeded or real, keeping every task or not (mode.go)
	// Strategy is how the seeded driver picks workers, PCTDepth pct's
	// depth (see strategy.go).
	Strategy string
	PCTDepth int
	// Portfolio says the strategy is the portfolio's arm for the seed
	// (StrategyPortfolio): Strategy and PCTDepth are that arm's, and the
	// trace header records them, so that the run replays as they say.
	Portfolio bool `json:",omitempty"`
	// LegacyCancel runs with the cancellation of trace format versions 1
	// and 2 (driver.Config.LegacyCancel): set by replay for such a trace.
	LegacyCancel bool `json:",omitempty"`

	RealTimeout time.Duration // real modes: the wall-time bound (Options.RealTimeout)
}

// Run is the outcome of one run of a scenario.
type Run struct {
	Scenario  *scenario.Scenario
	Config    Config
	Outcome   Outcome
	Result    sched.Result // main's result
	Steps     int64
	Log       []string
	Tasks     []TaskRow
	Nurseries []NurseryRow
	Workers   []WorkerRow
	Stuck     []string // deadlock: the tasks that can never run again
	// Waits explains a run that did not end by itself (deadlock,
	// livelock, a stopped run): what each unfinished task waits on and
	// who could wake it (package waits). Nil for a run that ended, and
	// for a real-mode run or a replay of a version-1 or 2 trace, whose
	// events do not tell the story.
	Waits *waits.Analysis
	// Decisions is the number of policy decisions the run made (its
	// decide events). At one worker they are the only thing a seed
	// changes: a run without any is the same run for every seed.
	Decisions int64
	Crash     string  // the scheduler's own panic, when Outcome is crash
	Limit     string  // livelock: the resource limit the run passed, if not max_steps
	Checks    []Check // invariants, then expectations
}

// TaskRow is one line of the task table.
type TaskRow struct {
	ID                    uint64
	Name                  string
	Nursery               string
	Result                string
	State                 string
	Steps, Yields, Steals int64
}

// NurseryRow is one line of the nursery table.
type NurseryRow struct {
	ID         uint64
	Label      string
	Mode       string
	State      string
	Result     string
	FirstError string
	Results    []string
	// Transitions are its moves, "FROM->TO", in order: recorded from
	// the events, so nil in real mode.
	Transitions []string
}

// WorkerRow is one line of the worker table.
type WorkerRow struct {
	ID    int
	Stats driver.WorkerStats
}

// Check is one invariant or expectation and whether it held.
type Check struct {
	Class  CheckClass `json:"Kind"` // the JSON key predates the rename
	Name   string
	OK     bool
	Detail string // what was observed when it failed
}

// CheckClass says what a Check checks.
type CheckClass string

// The classes of checks.
const (
	ClassInvariant CheckClass = "invariant" // docs/spec.md#invariants
	ClassExpect    CheckClass = "expect"    // the scenario's [expect]
	ClassOracle    CheckClass = "oracle"    // the fuzzer's oracles (sim/gen)
	ClassHarness   CheckClass = "harness"   // the run could not execute
)

// Passed reports whether every check held.
func (r *Run) Passed() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// Resolve computes the run's configuration from the scenario and overrides.
func Resolve(sc *scenario.Scenario, o Options) (Config, error) {
	c := Config{
		Seed: sc.Scheduler.Seed, Workers: sc.Scheduler.Workers, YieldInterval: sc.Scheduler.YieldInterval,
		MaxSteps: sc.Scheduler.MaxSteps, Mode: o.Mode,
		RealTimeout: o.RealTimeout,
	}
	if int(o.Mode) >= len(modeNames) {
		return c, fmt.Errorf("unknown mode %v", o.Mode)
	}
	profile, ok := sched.ParseProfile(sc.Scheduler.Profile)
	if !ok {
		return c, fmt.Errorf("unknown profile %q", sc.Scheduler.Profile)
	}
	c.Profile = profile
	if o.HasSeed {
		c.Seed = o.Seed
	}
	if c.Seed > math.MaxInt64 {
		return c, fmt.Errorf("seed %d out of range 0..%d", c.Seed, int64(math.MaxInt64))
	}
	if o.Workers != 0 {
		c.Workers = o.Workers
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.Workers < 1 || c.Workers > sched.WorkersMax {
		return c, fmt.Errorf("workers %d out of range 1..%d", c.Workers, sched.WorkersMax)
	}
	victim := sc.Scheduler.Victim
	if o.Victim != "" {
		victim = o.Victim
	}
	if c.Victim, ok = sched.ParseVictim(victim); !ok {
		return c, fmt.Errorf("unknown victim strategy %q (want random, round_robin or least_loaded)", victim)
	}
	if o.MaxSteps != 0 {
		c.MaxSteps = o.MaxSteps
	}
	if c.MaxSteps < 1 {
		return c, fmt.Errorf("max steps %d out of range 1..%d", c.MaxSteps, int64(math.MaxInt64))
	}
	return c, resolveStrategy(&c, o)
}

// Header is the trace header of a run: everything needed to replay it.
func Header(sc *scenario.Scenario, c Config) *trace.Header {
	return header(sc.Name, sc.SHA256, string(sc.Source), c)
}

// header is the trace header of a run of the program source (a
// scenario's, or a body's description) whose SHA-256 is sha.
func header(name, sha, source string, c Config) *trace.Header {
	h := &trace.Header{
		Fields: []trace.Field{
			trace.S(trace.KeyName, name),
			trace.S(trace.KeySHA256, sha),
			trace.I(trace.KeySeed, int64(c.Seed)),
			trace.I(trace.KeyWorkers, int64(c.Workers)),
			trace.S(trace.KeyVictim, c.Victim.String()),
			trace.S(trace.KeyProfile, c.Profile.String()),
			trace.I(trace.KeyYieldInterval, int64(c.YieldInterval)),
			trace.I(trace.KeyMaxSteps, c.MaxSteps),
		},
		Source: source,
	}
	h.Version = c.Mode.traceVersion()
	h.Fields = append(h.Fields, strategyFields(c)...)
	if c.Mode == ModeSeeded {
		h.Fields = append(h.Fields, trace.S(trace.KeyRunAt, trace.RunAtChanged))
	}
	return h
}

// driverSeed derives the driver's PRNG seed from the run seed; the workers'
// victim generators take theirs from the same seed inside sched.
func driverSeed(seed uint64) uint64 {
	s := seed ^ 0xd1b54a32d192ed03
	return driver.SplitMix64(&s)
}

// Execute runs the scenario once under c and checks every invariant and
// expectation. The trace, if o.Trace is set, is written as the run goes.
//
// A story run's waits (who waits on what, package waits) are built from
// its events, and only a run that ends stuck (deadlock, livelock, crash)
// reports them: so the events are not fed to the builder as they come,
// which was about 3% of every passing run. A run that ends stuck is run
// again, with the same configuration and without a trace, with the
// builder on: a seeded run replays exactly, and the second must end as
// the first did, at the same step, or Execute returns an error. A run
// driven from outside (o.Chooser, the explorer) cannot be run again, and
// feeds its builder as it goes.
func Execute(sc *scenario.Scenario, c Config, o Options) (*Run, error) {
	if c.Mode.Real() {
		return executeReal(sc, c)
	}
	run, h, err := execute(sc, c, o, o.Trace, o.Chooser != nil)
	if err != nil {
		return nil, err
	}
	if c.Mode.story() && o.Chooser == nil && !run.Outcome.Ended() {
		again, _, err := execute(sc, c, o, nil, true)
		if err != nil {
			return nil, fmt.Errorf("running the stuck run again for its waits: %w", err)
		}
		if again.Outcome != run.Outcome || again.Steps != run.Steps {
			return nil, fmt.Errorf("running the stuck run again for its waits: it ended %s at step %d, not %s at step %d as the first (a simulator bug: a seeded run must replay exactly)",
				again.Outcome, again.Steps, run.Outcome, run.Steps)
		}
		run.Waits = again.Waits
	}
	run.Checks = append(checkInvariants(run, h, true), checkExpect(sc.Expect, run)...)
	if run.Limit != "" {
		run.Checks = append(run.Checks, limitCheck(run))
	}
	return run, nil
}

// execute is Execute's run, with its trace written to out when set, and
// the waits built as the run goes when waitsOn.
func execute(sc *scenario.Scenario, c Config, o Options, out io.Writer, waitsOn bool) (*Run, *history, error) {
	var tw *trace.Writer
	if out != nil {
		tw = trace.NewWriter(out)
		if err := tw.WriteHeader(Header(sc, c)); err != nil {
			return nil, nil, err
		}
	}
	sk := newSink(c.Workers, tw)
	sk.waitsOn = waitsOn
	ch, victims, err := newChooser(c, o, func() int64 { return pctLength(sc, c) })
	if err != nil {
		return nil, nil, err
	}
	s, err := newScheduler(sc, c, sk, victims)
	if err != nil {
		return nil, nil, err
	}
	p := newProgram(sc, s)
	if c.Mode.story() && (tw != nil || waitsOn) {
		// The story: each step's op (docs/trace-format.md), which only
		// the trace and the waits read.
		p.sites = sk
		sk.story = true
		sk.atEvery = c.Mode == ModeSeededAtEvery
		sk.waits.Users = lazyChanUsers(sc)
	}
	startRoot(s, sc, p)

	run := &Run{Scenario: sc, Config: c}
	step, err := drive(run, s, sk, ch)
	if err != nil {
		if tw != nil {
			tw.Flush() // the events up to the error: a replay compares them
		}
		return nil, nil, err
	}
	if err := finish(run, s, sk, tw, step); err != nil {
		return nil, nil, err
	}
	return run, sk.hist, nil
}

// ScheduleError reports that a recorded decision did not apply when a run
// was driven by a Schedule: the scenario or the scheduler changed since the
// trace was recorded.
type ScheduleError struct {
	Err  error
	Step int64 // the step the decision was for
}

func (e *ScheduleError) Error() string { return "schedule replay: " + e.Err.Error() }
func (e *ScheduleError) Unwrap() error { return e.Err }

func newScheduler(sc *scenario.Scenario, c Config, sink *sink, victims driver.VictimSource) (*driver.Scheduler, error) {
	cfg := driver.Config{
		Config: sched.Config{
			Workers: c.Workers, Seed: c.Seed, Victim: c.Victim, Profile: c.Profile,
			YieldInterval: c.YieldInterval, Budget: budgetOf(sc.Budget),
			MaxSteps: c.MaxSteps, RootCaps: rootCaps(sc),
		},
		Mode: c.Mode.driver(), Victims: victims, Legacy2: c.Mode.legacy2(), LegacyCancel: c.LegacyCancel,
		Story: c.Mode.story(),
	}
	cfg.Decisions, _ = victims.(driver.DecisionSource)
	if sink != nil {
		cfg.Sink = sink
		cfg.Clock = sink
		if !cfg.Mode.Keeps() {
			sink.tab = newTables() // no task is kept to read the tables from
		}
	}
	return driver.New(cfg)
}

func startRoot(s *driver.Scheduler, sc *scenario.Scenario, p *program) {
	s.Start("main", p.funcs["main"])
}

// rootCaps is the caps of [task.main] under sovereign (none if it gives
// none); the other profiles give main every capability and ignore it.
func rootCaps(sc *scenario.Scenario) sched.Caps {
	if main := sc.Tasks["main"]; main.HasCaps && sc.Scheduler.Profile == scenario.ProfileSovereign {
		caps, _ := sched.ParseCaps(main.Caps)
		return caps
	}
	return 0
}

// outcomeOf maps main's result to its outcome name.
func outcomeOf(r sched.Result) Outcome {
	switch r.Kind {
	case nursery.KindOK:
		return OutcomeOK
	case nursery.KindCancelled:
		return OutcomeCancelled
	}
	return OutcomeFailed
}

func stuck(s *driver.Scheduler) []string {
	var out []string
	for _, t := range s.Tasks() {
		switch driver.State(t) {
		case driver.StateCompleted, driver.StateCancelled:
			continue
		}
		out = append(out, fmt.Sprintf("t%d %s (%s)", t.ID(), t.Name(), driver.State(t)))
	}
	return out
}

// collect fills the tables from the scheduler's registry.
func collect(run *Run, s *driver.Scheduler) {
	run.Log = s.Log()
	for _, t := range s.Tasks() {
		steps, yields, steals := driver.Stats(t)
		row := TaskRow{ID: t.ID(), Name: t.Name(), State: driver.State(t).String(), Steps: steps, Yields: yields, Steals: steals}
		if n := driver.Parent(t); n != nil {
			row.Nursery = n.Label()
		}
		switch driver.State(t) {
		case driver.StateCompleted, driver.StateCancelled:
			row.Result = driver.Result(t).String()
		default:
			row.Result = "-"
		}
		run.Tasks = append(run.Tasks, row)
	}
	for _, n := range s.Nurseries() {
		snap := driver.Snapshot(n)
		row := NurseryRow{ID: n.ID(), Label: snap.Label, Mode: snap.Mode.String(), State: snap.State.String(),
			Result: snap.Outcome.String(), FirstError: snap.FirstError}
		for _, r := range snap.Results {
			row.Results = append(row.Results, r.String())
		}
		run.Nurseries = append(run.Nurseries, row)
	}
	for _, w := range s.Workers() {
		run.Workers = append(run.Workers, WorkerRow{ID: w.ID(), Stats: w.Stats()})
	}
}
