package sim

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim/scenario"
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
	Real     bool      // run on real worker goroutines instead of the seeded driver
	Lean     bool      // with Real: keep no tasks, as a Go program's scheduler (see Config.Lean)
	Schedule *Schedule // drive the run from recorded decisions instead of the PRNG
}

// Outcome names of main, as the scenario format's `outcome` names them.
const (
	OutcomeOK        = scenario.OutcomeOK
	OutcomeFailed    = scenario.OutcomeFailed
	OutcomeCancelled = scenario.OutcomeCancelled
	OutcomeDeadlock  = scenario.OutcomeDeadlock
	OutcomeLivelock  = scenario.OutcomeLivelock
	// OutcomeCrash is an extension: the scheduler itself panicked (an
	// internal assertion failed). It always fails the run.
	OutcomeCrash = "crash"
)

// safeStep runs one worker step and turns a panic of the scheduler itself
// (not of a task: those are results) into a message, so that a scheduler
// bug found by a seed is reported like a broken invariant.
func safeStep(w *sched.Worker) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	w.Step()
	return ""
}

// Config is the fully resolved configuration of one run.
type Config struct {
	Seed          uint64
	Workers       int
	Victim        string
	Profile       string
	YieldInterval int
	MaxSteps      int64
	Real          bool
	// Lean runs real mode as a Go program's scheduler does, without
	// KeepTasks: tasks and nurseries are reused and nurseries keep no
	// per-child records. The task and nursery tables stay empty, so only
	// main's outcome, value, error and log are checked.
	Lean bool
}

// Run is the outcome of one run of a scenario.
type Run struct {
	Scenario  *scenario.Scenario
	Config    Config
	Outcome   string       // ok, failed, cancelled, deadlock, livelock
	Result    sched.Result // main's result
	Steps     int64
	Log       []string
	Tasks     []TaskRow
	Nurseries []NurseryRow
	Workers   []WorkerRow
	Stuck     []string // deadlock: the tasks that can never run again
	Crash     string   // the scheduler's own panic, when Outcome is crash
	Checks    []Check  // invariants, then expectations
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
}

// WorkerRow is one line of the worker table.
type WorkerRow struct {
	ID    int
	Stats sched.WorkerStats
}

// Check is one invariant or expectation and whether it held.
type Check struct {
	Kind   string // "invariant" or "expect"
	Name   string
	OK     bool
	Detail string // what was observed when it failed
}

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
		Seed: sc.Scheduler.Seed, Workers: sc.Scheduler.Workers, Victim: sc.Scheduler.Victim,
		Profile: sc.Scheduler.Profile, YieldInterval: sc.Scheduler.YieldInterval,
		MaxSteps: sc.Scheduler.MaxSteps, Real: o.Real, Lean: o.Real && o.Lean,
	}
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
	if o.Victim != "" {
		c.Victim = o.Victim
	}
	if _, ok := sched.ParseVictim(c.Victim); !ok {
		return c, fmt.Errorf("unknown victim strategy %q (want random, round_robin or least_loaded)", c.Victim)
	}
	if o.MaxSteps != 0 {
		c.MaxSteps = o.MaxSteps
	}
	return c, nil
}

// Header is the trace header of a run: everything needed to replay it.
func Header(sc *scenario.Scenario, c Config) *trace.Header {
	return &trace.Header{
		Fields: []trace.Field{
			trace.S("name", sc.Name),
			trace.S("scenario-sha256", sc.SHA256),
			trace.I("seed", int64(c.Seed)),
			trace.I("workers", int64(c.Workers)),
			trace.S("victim", c.Victim),
			trace.S("profile", c.Profile),
			trace.I("yield_interval", int64(c.YieldInterval)),
			trace.I("max_steps", c.MaxSteps),
		},
		Source: string(sc.Source),
	}
}

// driverSeed derives the driver's PRNG seed from the run seed; the workers'
// victim generators take theirs from the same seed inside sched.
func driverSeed(seed uint64) uint64 {
	s := seed ^ 0xd1b54a32d192ed03
	return sched.SplitMix64(&s)
}

// Execute runs the scenario once under c and checks every invariant and
// expectation. The trace, if o.Trace is set, is written as the run goes.
func Execute(sc *scenario.Scenario, c Config, o Options) (*Run, error) {
	if c.Real {
		return executeReal(sc, c)
	}
	var tw *trace.Writer
	if o.Trace != nil {
		tw = trace.NewWriter(o.Trace)
		if err := tw.WriteHeader(Header(sc, c)); err != nil {
			return nil, err
		}
	}
	sk := newSink(c.Workers, tw)
	var ch chooser = &randomChooser{rng: sched.NewXoshiro(driverSeed(c.Seed))}
	var victims sched.VictimSource
	if o.Schedule != nil {
		sch := &scheduleChooser{s: o.Schedule, workers: c.Workers}
		ch, victims = sch, sch
	}
	s, err := newScheduler(sc, c, sk, victims)
	if err != nil {
		return nil, err
	}
	p := newProgram(sc, s)
	startRoot(s, sc, p)

	d, err := drive(s, sk, ch, c.MaxSteps)
	if err != nil {
		return nil, err
	}
	run := &Run{Scenario: sc, Config: c, Outcome: d.outcome, Crash: d.crash}
	step := d.steps
	run.Steps = step
	if run.Outcome == "" {
		run.Outcome = outcomeOf(s.Root().Result())
	} else {
		run.Stuck = stuck(s)
		s.Abort()
	}
	run.Result = s.Root().Result()
	sk.step = uint64(step)
	sk.Emit(-1, trace.KindOutcome, []trace.Field{trace.S("outcome", run.Outcome), trace.S("result", run.Result.String())})
	if tw != nil {
		if sk.err == nil {
			sk.err = tw.Flush()
		}
		if sk.err != nil {
			return nil, fmt.Errorf("writing trace: %w", sk.err)
		}
	}
	collect(run, s)
	run.Checks = append(checkInvariants(run, sk.hist), checkExpect(sc.Expect, run)...)
	return run, nil
}

// ScheduleError reports that a recorded decision did not apply when a run
// was driven by a Schedule: the scenario or the scheduler changed since the
// trace was recorded.
type ScheduleError struct{ Err error }

func (e *ScheduleError) Error() string { return "schedule replay: " + e.Err.Error() }
func (e *ScheduleError) Unwrap() error { return e.Err }

func newScheduler(sc *scenario.Scenario, c Config, sink *sink, victims sched.VictimSource) (*sched.Scheduler, error) {
	victim, _ := sched.ParseVictim(c.Victim)
	profile, ok := sched.ParseProfile(c.Profile)
	if !ok {
		return nil, fmt.Errorf("unknown profile %q", c.Profile)
	}
	cfg := sched.Config{
		Workers: c.Workers, Seed: c.Seed, Victim: victim, Profile: profile,
		YieldInterval: c.YieldInterval, Budget: budgetOf(sc.Budget), KeepTasks: !c.Lean,
		MaxSteps: c.MaxSteps, Victims: victims,
	}
	if sink != nil {
		cfg.Sink = sink
		cfg.Clock = sink
		cfg.StepCheckpoints = true
	}
	return sched.New(cfg)
}

func startRoot(s *sched.Scheduler, sc *scenario.Scenario, p *program) {
	s.Start("main", p.funcs["main"])
	setRootCaps(s, sc)
}

// setRootCaps gives main the caps of [task.main] under sovereign; under the
// other profiles it keeps every capability.
func setRootCaps(s *sched.Scheduler, sc *scenario.Scenario) {
	if main := sc.Tasks["main"]; main.HasCaps && sc.Scheduler.Profile == scenario.ProfileSovereign {
		caps, _ := sched.ParseCaps(main.Caps)
		s.SetRootCaps(caps)
	}
}

// outcomeOf maps main's result to its outcome name.
func outcomeOf(r sched.Result) string {
	switch r.Kind {
	case nursery.KindOK:
		return OutcomeOK
	case nursery.KindCancelled:
		return OutcomeCancelled
	}
	return OutcomeFailed
}

func stuck(s *sched.Scheduler) []string {
	var out []string
	for _, t := range s.Tasks() {
		switch t.State() {
		case sched.StateCompleted, sched.StateCancelled:
			continue
		}
		out = append(out, fmt.Sprintf("t%d %s (%s)", t.ID(), t.Name(), t.State()))
	}
	return out
}

// collect fills the tables from the scheduler's registry.
func collect(run *Run, s *sched.Scheduler) {
	run.Log = s.Log()
	for _, t := range s.Tasks() {
		steps, yields, steals := t.Stats()
		row := TaskRow{ID: t.ID(), Name: t.Name(), State: t.State().String(), Steps: steps, Yields: yields, Steals: steals}
		if n := t.Parent(); n != nil {
			row.Nursery = n.Label()
		}
		switch t.State() {
		case sched.StateCompleted, sched.StateCancelled:
			row.Result = t.Result().String()
		default:
			row.Result = "-"
		}
		run.Tasks = append(run.Tasks, row)
	}
	for _, n := range s.Nurseries() {
		snap := n.Snapshot()
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
