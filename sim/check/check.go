package check

// This file is `cbcsim check`: many seeds and worker counts per scenario,
// run in parallel, summarized in a deterministic report.
//
// Design notes. Each run is one sim.Resolve + sim.Execute, single-threaded and
// deterministic, so runs are spread over J goroutines that take job indices
// from one atomic counter; no Run is ever shared. Results are folded into
// one aggregate per (scenario, worker count) under that row's mutex, and
// every fold is commutative (counts, sums, maxima, the smallest failing
// seed, the smallest few seeds per kind of failure), so the report is the
// same whichever goroutine finished first. Rejected: keeping every run's
// result in a slice and sorting at the end (memory grows with --seeds), and
// a channel of results read by one collector (the collector becomes the
// bottleneck for runs of a few microseconds).
//
// Determinism is checked, not trusted: a fixed sample of runs per scenario
// is executed twice, each time with the trace written to a temporary file
// and hashed as it is written, and the two hashes are compared (spool.go);
// only traces that differ are read again for their first differing line.
// Only the sampled runs pay for a trace.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// Defaults of Options.
const (
	DefaultResample = 5  // runs per scenario executed twice and compared
	DefaultReproMax = 20 // repro directories written per check

	// RunsMax bounds the runs of one check: at a microsecond a run it is
	// weeks of CPU, so more is a mistake in the flags, reported as bad
	// input rather than left to overflow a job counter.
	RunsMax = 1 << 40
)

// DefaultWorkers returns the worker counts a check runs when none are
// given: 1, 2, 4 and 8.
func DefaultWorkers() []int { return []int{1, 2, 4, 8} }

const (
	// resampleSeed seeds the generator that picks the runs executed twice.
	// It is a constant so that the same check re-runs the same runs on
	// every machine and every invocation.
	resampleSeed uint64 = 0x636865636b5f7273 // "check_rs"

	seedsShownMax             = 10      // other seeds listed per kind of failure
	kindsShownMax             = 5       // kinds of failure shown per (scenario, workers) row
	diffLineMax               = 200     // bytes of a differing trace line shown
	outcomeError  sim.Outcome = "error" // the harness could not execute the run
)

// Options configures Scenarios.
type Options struct {
	Seeds     int      // seeds per scenario and worker count; at least 1
	SeedStart uint64   // the first seed: runs use SeedStart .. SeedStart+Seeds-1
	Workers   []int    // worker counts, each 1..256, no repeats; nil: DefaultWorkers
	Mode      sim.Mode // seeded, or real worker goroutines: no trace, so no resample and no run.trace
	// RealTimeout is real mode's wall-time bound (sim.Options.RealTimeout).
	RealTimeout time.Duration
	Jobs        int    // goroutines running runs; 0: runtime.NumCPU()
	Resample    int    // runs per scenario executed twice and compared byte for byte; 0: none
	ReproDir    string // where repro directories are written; "": none
	ReproMax    int    // repro directories at most; 0: DefaultReproMax
	// Shard selects the part of the runs this process executes (the
	// zero value: all). The picks of runs executed twice are made over
	// the whole check, so each shard executes twice exactly the picks it
	// owns.
	Shard sweep.Shard
	// Strategy is the seeded driver's strategy; the seed is its seed. "":
	// the portfolio (sim.StrategyPortfolio) in seeded mode, none in real
	// mode.
	Strategy string
	PCTDepth int // pct: 0 means sim.PCTDepthDefault
	// ShrinkSchedule, when set, minimises the schedule of each failure
	// written to a repro directory (the run's trace in trace) and writes
	// DIR/shrunk.trace; it returns the line the report and the README
	// show. cbcsim sets it to the explorer's (sim/explore imports sim).
	ShrinkSchedule func(sc *scenario.Scenario, workers int, trace []byte, dir string) (string, error)

	// ProgressTerminal makes the progress line rewrite itself with \r
	// (stderr is a terminal) instead of printing a line every 2 s.
	ProgressTerminal bool

	// Traces are recorded runs (a regression corpus's *.trace files),
	// each run once more after the seeded runs and checked (recorded.go).
	// With Traces, Seeds may be 0: the recorded runs alone.
	Traces []string
	// ExecRecorded executes the recorded runs (nil: sim.Execute); cbcsim
	// sets it to one that adds the fuzzer's oracles, so that a corpus
	// failure that only an oracle saw still fails.
	ExecRecorded func(*scenario.Scenario, sim.Config, sim.Options) (*sim.Run, error)

	// Context, when done, stops the check handing out runs; the started
	// ones finish and the report covers those that ran (Report.Interrupted).
	// nil: the check runs to the end.
	Context context.Context
}

// Report is the result of Scenarios. Everything in it, and
// everything Write prints, is independent of the number of jobs and of
// which run finished first (real mode aside: its step counts and outcomes
// depend on the OS).
type Report struct {
	Options        Options // with defaults filled in
	Scenarios      []ScenarioReport
	Nondeterminism []Nondeterminism
	Runs           int64 // runs, not counting the second execution of resampled ones
	FailedRuns     int64
	Resampled      int        // runs executed twice
	ReproDirs      []string   // repro directories written, in report order
	ReproSkipped   int        // failures left without a directory because ReproMax was reached
	ReproErrors    []string   // repro directories that could not be written
	Recorded       []Recorded // the recorded runs, in the order of Options.Traces
	// Interrupted says Options.Context stopped the check before its last
	// run: the rows, failures and recorded runs are those that ran
	// (Planned were due), and Resampled counts only runs executed twice.
	Interrupted bool
	Planned     int64 // the runs this check (or shard) was to make
}

// ScenarioReport is one scenario's part of the report.
type ScenarioReport struct {
	Path     string
	Name     string
	SHA256   string // of the scenario's source
	Victim   sched.Victim
	Rows     []Row // one per worker count, in the order given
	Total    Row   // Workers is 0
	Failures []Failure
}

// GridSeedsMax bounds the seeds of check --report's seed grid: a row
// keeps its failing seeds among the first GridSeedsMax of the check's
// range, whichever order the runs end in.
const GridSeedsMax = 2000

// Row sums the runs of one worker count (or of all, in Total).
type Row struct {
	Workers       int
	Runs          int64
	Passed        int64
	Failed        int64
	FirstFailSeed uint64 // meaningful when Failed > 0
	StepsTotal    int64
	StepsMax      int64
	Outcomes      map[sim.Outcome]int64 // outcome name → runs
	Resampled     int                   // runs executed twice
	Differ        int                   // of those, how many gave different traces
	// Undecided counts the runs that made no policy decision: at one
	// worker such runs are the same run whatever the seed (the report
	// says so).
	Undecided int64
	// FailSeeds lists the failing seeds among the first GridSeedsMax
	// seeds, in order: the seed grid of check --report (Grid).
	FailSeeds []uint64
}

// Failure is one kind of failure of one (scenario, workers) row: the
// runs that ended with the same outcome and the same broken checks. Seed is
// the smallest such seed, and the details are that run's.
type Failure struct {
	Path     string
	Scenario string
	Seed     uint64
	Config   sim.Config // the failing run's configuration: Seed, Workers, Victim, Mode
	Outcome  sim.Outcome
	Main     string      // main's result
	Checks   []sim.Check // the broken checks only
	Count    int64       // runs of the row that failed this way
	Seeds    []uint64
	// Seeds lists the smallest few other seeds that failed this way.

	ReproDir string // the repro directory, "" if none was written
	Trace    string // its run.trace, "" if none (no directory, or real mode)
	Schedule string // the shrunk schedule's sizes and replay command (CheckOptions.ShrinkSchedule)
}

// Command is the command line that reruns the failing run.
func (f *Failure) Command() string { return f.Config.Command(f.Path) }

// Nondeterminism is a run that did not repeat itself: its two executions
// gave different traces (Line > 0), or the re-run that wrote the repro did
// not fail the way the original did (Line == 0, Detail says how).
type Nondeterminism struct {
	Path     string
	Scenario string
	Seed     uint64
	Workers  int
	Victim   sched.Victim
	Line     int    // first differing trace line, 1-based
	First    string // that line in the first trace ("" past its end)
	Second   string // that line in the second trace
	Detail   string
	ReproDir string
	Config   sim.Config // the run's configuration, for its repro command

	sample *sample // the two executions, when Line > 0
}

func (n *Nondeterminism) String() string {
	if n.Line > 0 {
		return fmt.Sprintf("nondeterminism: seed %d workers %d: traces differ at line %d", n.Seed, n.Workers, n.Line)
	}
	return fmt.Sprintf("nondeterminism: seed %d workers %d: %s", n.Seed, n.Workers, n.Detail)
}

// Failed reports whether any run failed or any run was nondeterministic.
func (r *Report) Failed() bool { return r.FailedRuns > 0 || len(r.Nondeterminism) > 0 }

// Scenarios runs every scenario under every seed and worker count of
// o, on o.Jobs goroutines, and returns the report. paths[i] is the file
// scs[i] was loaded from; it names the scenario in the report, in the
// commands that reproduce a failure and in the repro directory's name.
//
// A line of progress goes to progress (nil: none) once the check has taken
// a second. The error is for bad input only (options, or a scenario that
// cannot run under them) and comes before any run starts; a run that fails,
// panics or cannot execute is a failure in the report.
func Scenarios(scs []*scenario.Scenario, paths []string, o Options, progress io.Writer) (*Report, error) {
	c, err := newChecker(scs, paths, o, sim.Execute)
	if err != nil {
		return nil, err
	}
	return c.run(progress), nil
}

// execFunc is sim.Execute; tests pass another to provoke nondeterminism.
type execFunc func(*scenario.Scenario, sim.Config, sim.Options) (*sim.Run, error)

type checker struct {
	scs    []*scenario.Scenario
	paths  []string
	o      Options
	exec   execFunc
	victim []sched.Victim // per scenario
	base   []sim.Config   // per scenario, resolved at the first seed and worker count

	perSeed     int64 // runs per seed: scenarios × len(Workers)
	seeded      int64 // seeded runs: perSeed × Seeds
	total       int64 // runs, without the second executions: seeded, then recorded
	recorded    []recorded
	recResults  []Recorded // index i written only by the job that runs recorded run i
	rows        [][]*rowAgg
	samples     []*sample         // in report order
	sampleOf    map[int64]*sample // job index of a sampled run → its sample; read-only once running
	interrupted bool              // Options.Context stopped the sweep before its last job
	// once holds, per scenario, the run of the first seed at one worker
	// when it made no policy decision: every seed's run at one worker is
	// that run (explore.md#which-strategy), so it stands for them instead
	// of being made again (oneWorkerOnce). nil where runs are made.
	once []*summary
}

// summary is what a check keeps of a run.
type summary struct {
	cfg       sim.Config
	outcome   sim.Outcome
	main      string
	steps     int64
	decisions int64 // policy decisions (sim.Run.Decisions)
	failed    []sim.Check
}

func (s *summary) signature() string {
	var b strings.Builder
	b.WriteString(string(s.outcome))
	for _, c := range s.failed {
		b.WriteByte('|')
		b.WriteString(c.Name)
	}
	return b.String()
}

func newChecker(scs []*scenario.Scenario, paths []string, o Options, exec execFunc) (*checker, error) {
	if len(scs) == 0 && len(o.Traces) == 0 {
		return nil, errors.New("no scenarios to check")
	}
	if len(scs) != len(paths) {
		return nil, fmt.Errorf("sim: Scenarios: %d scenarios but %d paths", len(scs), len(paths))
	}
	if err := o.normalize(len(scs)); err != nil {
		return nil, err
	}
	c := &checker{scs: scs, paths: paths, o: o, exec: exec, sampleOf: map[int64]*sample{}}
	c.perSeed = int64(len(scs)) * int64(len(o.Workers))
	c.seeded = c.perSeed * int64(o.Seeds)
	if err := c.resolveAll(); err != nil {
		return nil, err
	}
	var err error
	if c.recorded, err = loadRecorded(o.Traces); err != nil {
		return nil, err
	}
	c.recResults = make([]Recorded, len(c.recorded))
	c.oneWorkerOnce()
	c.total = c.seeded + int64(len(c.recorded))
	c.pickSamples()
	return c, nil
}

// normalize fills in the defaults and checks the options.
func (o *Options) normalize(scenarios int) error {
	if o.Seeds < 1 && !(o.Seeds == 0 && len(o.Traces) > 0) {
		return fmt.Errorf("the number of seeds must be at least 1, got %d", o.Seeds)
	}
	if o.SeedStart > math.MaxInt64 || (o.Seeds > 0 && uint64(o.Seeds-1) > math.MaxInt64-o.SeedStart) {
		return fmt.Errorf("%d seeds starting at %d go past the largest seed, %d", o.Seeds, o.SeedStart, int64(math.MaxInt64))
	}
	if err := o.normalizeWorkers(); err != nil {
		return err
	}
	switch {
	case o.Jobs < 0:
		return fmt.Errorf("the number of jobs must be at least 1, got %d", o.Jobs)
	case o.Jobs == 0:
		o.Jobs = runtime.NumCPU()
	}
	if o.Resample < 0 {
		return fmt.Errorf("the resample count must be 0 or more, got %d", o.Resample)
	}
	if o.Mode.Real() {
		o.Resample = 0 // real mode writes no trace to compare
	} else if o.Strategy == "" {
		o.Strategy = sim.StrategyPortfolio
	}
	switch {
	case o.ReproMax < 0:
		return fmt.Errorf("the repro bound must be 0 or more, got %d", o.ReproMax)
	case o.ReproMax == 0:
		o.ReproMax = DefaultReproMax
	}
	nw := int64(len(o.Workers))
	if int64(o.Seeds) > RunsMax/nw/int64(max(scenarios, 1)) {
		return fmt.Errorf("%d seeds × %d worker counts × %d scenarios is more than %d runs", o.Seeds, nw, scenarios, int64(RunsMax))
	}
	return nil
}

func (o *Options) normalizeWorkers() error {
	if o.Workers == nil {
		o.Workers = DefaultWorkers()
	}
	o.Workers = append([]int(nil), o.Workers...)
	if len(o.Workers) == 0 {
		return errors.New("no worker counts given")
	}
	seen := map[int]bool{}
	for _, w := range o.Workers {
		if w < 1 || w > sched.WorkersMax {
			return fmt.Errorf("worker count %d is out of range 1..%d", w, sched.WorkersMax)
		}
		if seen[w] {
			return fmt.Errorf("worker count %d is listed twice", w)
		}
		seen[w] = true
	}
	return nil
}

// oneWorkerOnce makes, for each scenario checked at one worker over more
// than one seed, the first seed's run at one worker; when it made no
// policy decision, it is kept in c.once to stand for every seed's run at
// one worker. At one worker the driver has no worker to choose and a seed
// changes only the policy decisions, so a run without any is the run of
// every seed: each run is the same up to its first choice, and it has
// none. Real mode has no decisions to count. The probe is sim.Execute
// itself, outside the jobs: every shard makes it, and it is not one of
// the check's runs (those stay one per seed, each counted once).
func (c *checker) oneWorkerOnce() {
	c.once = make([]*summary, len(c.scs))
	if c.o.Mode.Real() || c.o.Seeds < 2 || !slices.Contains(c.o.Workers, 1) {
		return
	}
	for i, sc := range c.scs {
		s := runOne(sc, sim.Options{Seed: c.o.SeedStart, HasSeed: true, Workers: 1,
			Strategy: c.o.Strategy, PCTDepth: c.o.PCTDepth}, sim.Execute)
		if s.outcome != outcomeError && s.decisions == 0 {
			c.once[i] = &s
		}
	}
}

// resolveAll resolves every scenario under every worker count up front: a
// scenario that cannot run (an unsupported operation, a bad victim) is
// bad input, reported before hours of runs, not as a failure of each.
func (c *checker) resolveAll() error {
	o := c.o
	for i, sc := range c.scs {
		for _, w := range o.Workers {
			cfg, err := sim.Resolve(sc, sim.Options{Seed: o.SeedStart, HasSeed: true, Workers: w, Mode: o.Mode, RealTimeout: o.RealTimeout,
				Strategy: o.Strategy, PCTDepth: o.PCTDepth})
			if err != nil {
				return fmt.Errorf("%s: %w", c.paths[i], err)
			}
			if len(c.victim) == i {
				c.victim = append(c.victim, cfg.Victim)
				c.base = append(c.base, cfg)
			}
		}
		aggs := make([]*rowAgg, len(o.Workers))
		for wi, w := range o.Workers {
			aggs[wi] = &rowAgg{row: Row{Workers: w, Outcomes: map[sim.Outcome]int64{}}, kinds: map[string]*Failure{}}
		}
		c.rows = append(c.rows, aggs)
	}
	return nil
}
