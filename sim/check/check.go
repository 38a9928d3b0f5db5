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
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/olekukonko/tablewriter"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
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
	Shard    sweep.Shard
	Strategy string // the seeded driver's strategy ("": random); the seed is its seed
	PCTDepth int    // pct: 0 means sim.PCTDepthDefault
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
}

// rowAgg folds the results of one (scenario, workers) row. Any job
// goroutine may call add; the mutex serializes them.
type rowAgg struct {
	mu    sync.Mutex
	row   Row
	kinds map[string]*Failure // by signature
}

// sample is a run executed twice; each execution writes its own spool (a
// temporary file, hashed as written). Whichever execution finishes second
// compares the two hashes and, when they agree, removes both, so that
// disk holds only the traces of runs in flight and of those that differ,
// and memory only their hashes.
type sample struct {
	sc, wi        int
	seed          uint64
	at            int64 // the job of its second execution (placeSeconds)
	first, second *spool
	finished      atomic.Int32 // executions done; the one that makes it 2 compares

	// Set by compare.
	line   int
	la, lb string
	differ bool
	err    error // reading the spools back failed
}

// executed records one execution. Called by a job goroutine, once per
// execution; the atomic add orders the other execution's writes to its
// spool before the compare.
func (s *sample) executed() {
	if s.finished.Add(1) != 2 {
		return
	}
	if bytes.Equal(s.first.sum(), s.second.sum()) {
		s.first.remove()
		s.second.remove()
		return
	}
	s.differ = true
	s.line, s.la, s.lb, _, s.err = diffSpools(s.first, s.second)
	if s.err == nil && s.line == 0 {
		s.err = errors.New("the traces' hashes differ but no line does")
	}
}

// removeSpools deletes the files of a sample, once the report is written.
func (s *sample) removeSpools() {
	s.first.remove()
	s.second.remove()
}

// summary is what a check keeps of a run.
type summary struct {
	cfg     sim.Config
	outcome sim.Outcome
	main    string
	steps   int64
	failed  []sim.Check
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

// pickSamples picks the runs executed twice, over the whole check, and
// keeps those of this shard.
func (c *checker) pickSamples() {
	o := c.o
	rng := driver.NewXoshiro(resampleSeed)
	for i := range c.scs {
		for _, p := range pickResample(rng, len(o.Workers), o.Seeds, o.Resample) {
			ri := c.runIndex(i, p.wi, p.seed)
			if !o.Shard.Owns(ri) {
				continue // another shard runs it, and runs it twice
			}
			s := &sample{sc: i, wi: p.wi, seed: o.SeedStart + uint64(p.seed)}
			c.samples = append(c.samples, s)
			c.sampleOf[ri] = s
		}
	}
}

type runRef struct{ wi, seed int } // worker index, seed index

// pickResample chooses k distinct runs out of nw worker counts × seeds,
// spread over the worker counts: the i-th pick takes worker count
// (off+i) mod nw, or the next one with seeds left, and a random seed not
// yet picked for it. k ≥ nw×seeds picks every run. The result is sorted.
func pickResample(rng *driver.Xoshiro, nw, seeds, k int) []runRef {
	var out []runRef
	if k <= 0 {
		return nil
	}
	if int64(k) >= int64(nw)*int64(seeds) {
		for wi := 0; wi < nw; wi++ {
			for s := 0; s < seeds; s++ {
				out = append(out, runRef{wi, s})
			}
		}
		return out
	}
	picked := map[runRef]bool{}
	perWorker := make([]int, nw)
	off := rng.Intn(nw)
	for i := 0; i < k; i++ {
		wi := (off + i) % nw
		// Bounded: fewer than nw×seeds runs are picked, so some worker
		// count has a seed left, and that one has a free seed.
		for perWorker[wi] == seeds {
			wi = (wi + 1) % nw
		}
		s := rng.Intn(seeds)
		for picked[runRef{wi, s}] {
			s = (s + 1) % seeds
		}
		picked[runRef{wi, s}] = true
		perWorker[wi]++
		out = append(out, runRef{wi, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].wi != out[j].wi {
			return out[i].wi < out[j].wi
		}
		return out[i].seed < out[j].seed
	})
	return out
}

// resampleLag is how many jobs after its first a sampled run's second
// execution is handed out at least (placeSeconds); with over 64 job
// goroutines, 4 a goroutine.
const resampleLag = 256

// placeSeconds places the second executions among this shard's runs
// positions 0..runs-1: sampled run k (in the order of their positions)
// goes at job q+k, where q is its position plus one plus the lag, or
// runs when that is past the end. So a second execution runs at another
// time than its first, beside other runs, on whichever goroutine takes
// it (what the resample is for: docs/check.md), and yet a check stopped
// part way has compared the samples it ran a lag before it stopped,
// rather than none. It returns the samples in the order of their jobs,
// which increase strictly.
func (c *checker) placeSeconds(runs int64) []*sample {
	jobs := c.o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU() // sweep.Run's default
	}
	lag := max(resampleLag, 4*int64(jobs))
	pos := func(s *sample) int64 {
		return c.o.Shard.Local(c.runIndex(s.sc, s.wi, int(s.seed-c.o.SeedStart)))
	}
	order := slices.Clone(c.samples)
	slices.SortFunc(order, func(a, b *sample) int { return cmp.Compare(pos(a), pos(b)) })
	for k, s := range order {
		s.at = min(pos(s)+1+lag, runs) + int64(k)
	}
	return order
}

// jobOf says what job j is among this shard's runs and the second
// executions placed by placeSeconds (seconds, in job order): the sample
// whose second execution it is, or else the position of its run.
func jobOf(seconds []*sample, j int64) (*sample, int64) {
	k := sort.Search(len(seconds), func(k int) bool { return seconds[k].at >= j })
	if k < len(seconds) && seconds[k].at == j {
		return seconds[k], 0
	}
	return nil, j - int64(k) // k second executions come before j
}

// run executes this shard's runs and the second executions of its
// sampled runs (placeSeconds), and builds the report.
func (c *checker) run(progressW io.Writer) *Report {
	runs := c.o.Shard.Count(c.total)
	jobs := runs + int64(len(c.samples))
	seconds := c.placeSeconds(runs)
	ctx := c.o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st := sweep.Run(ctx, jobs, sweep.Options{Jobs: c.o.Jobs, Name: "check", Progress: progressW, Terminal: c.o.ProgressTerminal},
		func(j int64) sweep.Verdict {
			s, p := jobOf(seconds, j)
			if s != nil {
				s.second = newSpool()
				c.execute(s.sc, s.wi, s.seed, s.second)
				s.second.finish()
				s.executed()
				return sweep.Passed
			}
			if i := c.o.Shard.Index(p); i >= c.seeded {
				if c.doRecorded(int(i - c.seeded)) {
					return sweep.Failed
				}
			} else if c.do(i) {
				return sweep.Failed
			}
			return sweep.Passed
		})
	c.interrupted = st.Handed < jobs
	return c.report()
}

// runIndex is the index in the whole check of the run of scenario sc,
// worker count wi and seed index seed. Runs go seed by seed, and within a
// seed scenario by scenario, then worker count by worker count, so that a
// check stopped part way (an interrupt) or watched while it runs has
// covered every row alike, and a shard (runs K-1 modulo N) spreads over
// the rows.
func (c *checker) runIndex(sc, wi, seed int) int64 {
	return int64(seed)*c.perSeed + int64(sc)*int64(len(c.o.Workers)) + int64(wi)
}

// runOf is runIndex's inverse: the scenario, worker count index and seed
// of run i.
func (c *checker) runOf(i int64) (sc, wi int, seed uint64) {
	rest := i % c.perSeed
	nw := int64(len(c.o.Workers))
	return int(rest / nw), int(rest % nw), c.o.SeedStart + uint64(i/c.perSeed)
}

// do runs run i of the whole check and reports whether it failed. Called
// by the job goroutines, each i once.
func (c *checker) do(i int64) (failed bool) {
	sc, wi, seed := c.runOf(i)
	var trace io.Writer
	s := c.sampleOf[i]
	if s != nil {
		s.first = newSpool()
		trace = s.first
	}
	sum := c.execute(sc, wi, seed, trace)
	if s != nil {
		s.first.finish()
		s.executed()
	}
	c.rows[sc][wi].add(c, sc, seed, &sum)
	return len(sum.failed) > 0
}

// execute runs one seed; the trace goes to trace when it is not nil. A
// panic or an error of the harness becomes a failed check, so one bad run
// never stops the others.
func (c *checker) execute(sc, wi int, seed uint64, trace io.Writer) (sum summary) {
	o := sim.Options{Seed: seed, HasSeed: true, Workers: c.o.Workers[wi], Mode: c.o.Mode, RealTimeout: c.o.RealTimeout,
		Strategy: c.o.Strategy, PCTDepth: c.o.PCTDepth, Trace: trace}
	return runOne(c.scs[sc], o, c.exec)
}

func runOne(sc *scenario.Scenario, o sim.Options, exec execFunc) (sum summary) {
	defer func() {
		if r := recover(); r != nil {
			sum.outcome = sim.OutcomeCrash
			sum.failed = []sim.Check{{Class: sim.ClassHarness, Name: "run-no-panic", Detail: fmt.Sprint(r)}}
		}
	}()
	cfg, err := sim.Resolve(sc, o)
	sum.cfg = cfg
	if err == nil {
		var run *sim.Run
		if run, err = exec(sc, cfg, o); err == nil {
			sum.outcome, sum.main, sum.steps = run.Outcome, run.Result.String(), run.Steps
			for _, ch := range run.Checks {
				if !ch.OK {
					sum.failed = append(sum.failed, ch)
				}
			}
			return sum
		}
	}
	sum.outcome = outcomeError
	sum.failed = []sim.Check{{Class: sim.ClassHarness, Name: "execute", Detail: err.Error()}}
	return sum
}

// add folds one run into the row.
func (a *rowAgg) add(c *checker, sc int, seed uint64, s *summary) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := &a.row
	r.Runs++
	r.StepsTotal += s.steps
	r.StepsMax = max(r.StepsMax, s.steps)
	r.Outcomes[s.outcome]++
	if len(s.failed) == 0 {
		r.Passed++
		return
	}
	r.Failed++
	if r.Failed == 1 || seed < r.FirstFailSeed {
		r.FirstFailSeed = seed
	}
	sig := s.signature()
	k := a.kinds[sig]
	switch {
	case k == nil:
		k = &Failure{Path: c.paths[sc], Scenario: c.scs[sc].Name}
		a.kinds[sig] = k
	case seed < k.Seed:
		k.Seeds = insertSmallest(k.Seeds, k.Seed, seedsShownMax)
	default:
		k.Seeds = insertSmallest(k.Seeds, seed, seedsShownMax)
		k.Count++
		return
	}
	k.Count++
	k.Seed, k.Outcome, k.Main, k.Checks = seed, s.outcome, s.main, s.failed
	// The run's own sim.Config, with what the check set filled in even when
	// sim.Resolve panicked before returning it.
	k.Config = c.config(sc, slices.Index(c.o.Workers, r.Workers), seed)
}

// config is the configuration of one run of the check: the scenario's,
// resolved, at a seed and a worker count.
func (c *checker) config(sc, wi int, seed uint64) sim.Config {
	cfg := c.base[sc]
	cfg.Seed, cfg.Workers = seed, c.o.Workers[wi]
	return cfg
}

// insertSmallest inserts v into the sorted list, keeping the n smallest.
func insertSmallest(list []uint64, v uint64, n int) []uint64 {
	i := sort.Search(len(list), func(i int) bool { return list[i] >= v })
	if i >= n {
		return list
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = v
	if len(list) > n {
		list = list[:n]
	}
	return list
}

// report builds the report once every job is done: the rows, the
// comparison of the resampled runs, then the repro directories.
func (c *checker) report() *Report {
	defer func() {
		for _, sm := range c.samples {
			sm.removeSpools() // the repros below may still read them
		}
	}()
	r := &Report{Options: c.o, Interrupted: c.interrupted, Planned: c.o.Shard.Count(c.total)}
	c.reportScenarios(r)
	c.reportNondeterminism(r)
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		s.Total = total(s.Rows)
		r.Runs += s.Total.Runs
		r.FailedRuns += s.Total.Failed
	}
	c.reportRecorded(r)
	if c.o.ReproDir != "" {
		c.writeRepros(r)
	}
	return r
}

// reportScenarios fills a scenario's rows and failures (each kind of
// failure once, by its first seed).
func (c *checker) reportScenarios(r *Report) {
	for i, sc := range c.scs {
		s := ScenarioReport{Path: c.paths[i], Name: sc.Name, SHA256: sc.SHA256, Victim: c.victim[i]}
		for _, a := range c.rows[i] {
			s.Rows = append(s.Rows, a.row)
			kinds := make([]*Failure, 0, len(a.kinds))
			for _, k := range a.kinds {
				kinds = append(kinds, k)
			}
			sort.Slice(kinds, func(x, y int) bool { return kinds[x].Seed < kinds[y].Seed })
			for _, k := range kinds {
				s.Failures = append(s.Failures, *k)
			}
		}
		r.Scenarios = append(r.Scenarios, s)
	}
}

// reportNondeterminism counts the resampled runs and lists those whose
// two traces differed.
func (c *checker) reportNondeterminism(r *Report) {
	for _, sm := range c.samples {
		if sm.finished.Load() < 2 {
			continue // interrupted before its second execution
		}
		row := &r.Scenarios[sm.sc].Rows[sm.wi]
		row.Resampled++
		r.Resampled++
		if !sm.differ {
			continue
		}
		row.Differ++
		n := Nondeterminism{
			Path: c.paths[sm.sc], Scenario: c.scs[sm.sc].Name, Seed: sm.seed, Workers: c.o.Workers[sm.wi],
			Victim: c.victim[sm.sc], Line: sm.line, First: sm.la, Second: sm.lb, sample: sm,
			Config: c.config(sm.sc, sm.wi, sm.seed),
		}
		if sm.err != nil {
			n.Line, n.Detail = 0, "the traces differ (by their SHA-256); comparing them line by line failed: "+sm.err.Error()
		}
		r.Nondeterminism = append(r.Nondeterminism, n)
	}
}

// total adds up a scenario's rows.
func total(rows []Row) Row {
	t := Row{Outcomes: map[sim.Outcome]int64{}}
	for _, row := range rows {
		t.Runs += row.Runs
		t.Passed += row.Passed
		if row.Failed > 0 && (t.Failed == 0 || row.FirstFailSeed < t.FirstFailSeed) {
			t.FirstFailSeed = row.FirstFailSeed
		}
		t.Failed += row.Failed
		t.StepsTotal += row.StepsTotal
		t.StepsMax = max(t.StepsMax, row.StepsMax)
		for k, v := range row.Outcomes {
			t.Outcomes[k] += v
		}
		t.Resampled += row.Resampled
		t.Differ += row.Differ
	}
	return t
}

// reportRecorded adds the recorded runs this shard ran.
func (c *checker) reportRecorded(r *Report) {
	for i := range c.recorded {
		if !c.o.Shard.Owns(c.seeded+int64(i)) || c.recResults[i].Trace == "" {
			continue // another shard ran it, or an interrupt came first (runRecorded sets Trace)
		}
		rec := c.recResults[i]
		r.Recorded = append(r.Recorded, rec)
		r.Runs++
		if rec.Failed() {
			r.FailedRuns++
		}
	}
}

// diffLine finds the first line where a and b differ, 1-based. A line
// present in one and missing in the other differs from it ("").
func diffLine(a, b []byte) (line int, la, lb string, differ bool) {
	if bytes.Equal(a, b) {
		return 0, "", "", false
	}
	for line = 1; ; line++ {
		var x, y []byte
		x, a = cutLine(a)
		y, b = cutLine(b)
		if !bytes.Equal(x, y) || (x == nil) != (y == nil) {
			return line, clip(x), clip(y), true
		}
	}
}

// cutLine splits off the first line, with its newline; nil when s is empty.
func cutLine(s []byte) (line, rest []byte) {
	if len(s) == 0 {
		return nil, nil
	}
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1], s[i+1:]
	}
	return s, nil
}

func clip(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	if len(s) > diffLineMax {
		s = s[:diffLineMax] + "…"
	}
	return s
}

// writeRepros writes, in report order, a directory for the first failing
// seed of each failing (scenario, workers) row, then one for each
// nondeterministic run, up to ReproMax.
func (c *checker) writeRepros(r *Report) {
	used := map[string]bool{}
	nondet := r.Nondeterminism
	r.Nondeterminism = nil
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for wi := range s.Rows {
			row := &s.Rows[wi]
			if row.Failed == 0 {
				continue
			}
			for fi := range s.Failures {
				f := &s.Failures[fi]
				if f.Config.Workers != row.Workers || f.Seed != row.FirstFailSeed {
					continue
				}
				if len(r.ReproDirs) >= c.o.ReproMax {
					r.ReproSkipped++
					break
				}
				dir := c.reproName(used, s.Path, f.Seed, f.Config.Workers, "")
				again, err := c.writeFailureRepro(dir, c.scs[i], f)
				if err != nil {
					r.ReproErrors = append(r.ReproErrors, fmt.Sprintf("%s: %v", dir, err))
					break
				}
				r.ReproDirs = append(r.ReproDirs, dir)
				f.ReproDir = dir
				if !f.Config.Mode.Real() {
					f.Trace = filepath.Join(dir, "run.trace")
					if sig := again.signature(); sig != (&summary{outcome: f.Outcome, failed: f.Checks}).signature() {
						r.Nondeterminism = append(r.Nondeterminism, Nondeterminism{
							Path: s.Path, Scenario: s.Name, Seed: f.Seed, Workers: f.Config.Workers, Victim: f.Config.Victim, Config: f.Config,
							Detail: fmt.Sprintf("the re-run for the repro ended %s (%s), the first run %s (%s)",
								again.outcome, checkNames(again.failed), f.Outcome, checkNames(f.Checks)),
							ReproDir: dir,
						})
					}
				}
				break
			}
		}
		for _, n := range nondet {
			if n.sample.sc != i {
				continue
			}
			if len(r.ReproDirs) >= c.o.ReproMax {
				r.ReproSkipped++
			} else {
				dir := c.reproName(used, s.Path, n.Seed, n.Workers, "-nondeterminism")
				if err := writeNondetRepro(dir, c.scs[i], &n); err != nil {
					r.ReproErrors = append(r.ReproErrors, fmt.Sprintf("%s: %v", dir, err))
				} else {
					r.ReproDirs = append(r.ReproDirs, dir)
					n.ReproDir = dir
				}
			}
			r.Nondeterminism = append(r.Nondeterminism, n)
		}
	}
}

func checkNames(cs []sim.Check) string {
	if len(cs) == 0 {
		return "all checks held"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// reproName is DIR/<file base>-seed<N>-w<W><suffix>, with -2, -3, ...
// appended when two scenario files share a base name.
func (c *checker) reproName(used map[string]bool, path string, seed uint64, workers int, suffix string) string {
	base := fmt.Sprintf("%s-seed%d-w%d%s", strings.TrimSuffix(filepath.Base(path), ".toml"), seed, workers, suffix)
	name := base
	for n := 2; used[name]; n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	used[name] = true
	return filepath.Join(c.o.ReproDir, name)
}

// writeFailureRepro writes scenario.toml, run.trace (seeded mode; the seed
// run again with its trace written) and README.txt, and returns the
// re-run's summary.
func (c *checker) writeFailureRepro(dir string, sc *scenario.Scenario, f *Failure) (summary, error) {
	var again summary
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return again, err
	}
	if err := sim.WriteFileAtomic(filepath.Join(dir, "scenario.toml"), func(w io.Writer) error {
		_, err := w.Write(sc.Source)
		return err
	}); err != nil {
		return again, err
	}
	if !f.Config.Mode.Real() {
		err := sim.WriteFileAtomic(filepath.Join(dir, "run.trace"), func(w io.Writer) error {
			again = runOne(sc, sim.Options{Seed: f.Seed, HasSeed: true, Workers: f.Config.Workers, Trace: w,
				Strategy: f.Config.Strategy, PCTDepth: f.Config.PCTDepth}, c.exec)
			if again.outcome == outcomeError {
				return errors.New(again.failed[0].Detail)
			}
			return nil
		})
		if err != nil {
			return again, err
		}
		c.shrinkSchedule(dir, sc, f)
	}
	var b strings.Builder
	mode := "seeded"
	if f.Config.Mode.Real() {
		mode = "real (no trace: a real-mode run depends on the OS and may not fail again)"
	}
	fmt.Fprintf(&b, "cbcsim check repro\n\nscenario: %s\nfile:     %s\nseed:     %d\nworkers:  %d\nvictim:   %s\nmode:     %s\noutcome:  %s (main %s)\n\nfailed checks:\n",
		f.Scenario, f.Path, f.Seed, f.Config.Workers, f.Config.Victim, mode, f.Outcome, f.Main)
	for _, ch := range f.Checks {
		fmt.Fprintf(&b, "  %s: %s\n", ch.Name, ch.Detail)
	}
	fmt.Fprintf(&b, "\nreproduce:\n  %s\n  %s\n", f.Config.Command(f.Path), f.Config.Command(filepath.Join(dir, "scenario.toml")))
	if !f.Config.Mode.Real() {
		fmt.Fprintf(&b, "\nreplay the trace:\n  cbcsim replay %s\n", sim.ShellQuote(filepath.Join(dir, "run.trace")))
	}
	if f.Schedule != "" {
		fmt.Fprintf(&b, "\n%s\n", f.Schedule)
	}
	return again, sim.WriteFileAtomic(filepath.Join(dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

// shrinkSchedule minimises the schedule of the failure whose run.trace is
// in dir with Options.ShrinkSchedule, if set, and keeps its summary (or
// why it was not shrunk) in f.Schedule.
func (c *checker) shrinkSchedule(dir string, sc *scenario.Scenario, f *Failure) {
	if c.o.ShrinkSchedule == nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.trace"))
	if err == nil {
		f.Schedule, err = c.o.ShrinkSchedule(sc, f.Config.Workers, data, dir)
	}
	if err != nil {
		f.Schedule = "schedule not shrunk: " + err.Error()
	}
}

// writeNondetRepro writes scenario.toml, the two differing traces and
// README.txt.
func writeNondetRepro(dir string, sc *scenario.Scenario, n *Nondeterminism) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"scenario.toml", func(w io.Writer) error { _, err := w.Write(sc.Source); return err }},
		{"first.trace", n.sample.first.copyTo},
		{"second.trace", n.sample.second.copyTo},
	}
	for _, f := range files {
		if err := sim.WriteFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	readme := fmt.Sprintf("cbcsim check repro: nondeterminism\n\nscenario: %s\nfile:     %s\nseed:     %d\nworkers:  %d\nvictim:   %s\n\n%s\n  first:  %s\n  second: %s\n\nthe same run twice gave different traces; compare them:\n  cbcsim diff %s %s\nrun it again:\n  %s --trace a.trace\n  %s --trace b.trace\n",
		n.Scenario, n.Path, n.Seed, n.Workers, n.Victim, n.String(), orEnd(n.First), orEnd(n.Second),
		sim.ShellQuote(filepath.Join(dir, "first.trace")), sim.ShellQuote(filepath.Join(dir, "second.trace")),
		n.Config.Command(n.Path), n.Config.Command(n.Path))
	return sim.WriteFileAtomic(filepath.Join(dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, readme)
		return err
	})
}

// Write prints the report, section by section: the parameters, a table
// per scenario, each kind of failure with the commands that reproduce it,
// the nondeterministic runs, the repro directories and a last line that
// sums it up.
func (r *Report) Write(w io.Writer) error {
	var b bytes.Buffer
	for _, section := range []func(*bytes.Buffer) error{
		r.writeHeader, r.writeTables, r.writeRecorded, r.writeFailures, r.writeNondeterminism, r.writeRepros, r.writeSummary,
	} {
		if err := section(&b); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func (r *Report) writeHeader(b *bytes.Buffer) error {
	o := r.Options
	mode := "seeded"
	switch {
	case o.Mode.Lean():
		mode = "real lean"
	case o.Mode.Real():
		mode = "real"
	}
	ws := make([]string, len(o.Workers))
	for i, n := range o.Workers {
		ws[i] = strconv.Itoa(n)
	}
	if o.Strategy == sim.StrategyPCT {
		mode += " " + sim.StrategyName(o.Strategy, o.PCTDepth)
	}
	if o.Seeds > 0 {
		fmt.Fprintf(b, "check: %d scenario(s) × seeds %d..%d × workers %s, %s mode: %d runs",
			len(r.Scenarios), o.SeedStart, o.SeedStart+uint64(o.Seeds)-1, strings.Join(ws, ","), mode, r.Runs)
	} else {
		fmt.Fprintf(b, "check: %d recorded run(s), no seeded runs (give --seeds for those): %d runs", len(o.Traces), r.Runs)
	}
	if !o.Shard.Whole() {
		fmt.Fprintf(b, " (shard %s)", o.Shard)
	}
	if r.Interrupted {
		fmt.Fprintf(b, " of %d, interrupted", r.Planned)
	}
	if !o.Mode.Real() && o.Seeds > 0 {
		fmt.Fprintf(b, ", %d executed twice to catch nondeterminism", r.Resampled)
	}
	b.WriteString("\n")
	return nil
}

func (r *Report) writeTables(b *bytes.Buffer) error {
	for _, s := range r.Scenarios {
		fmt.Fprintf(b, "\nscenario %q (%s), victim %s\n", s.Name, s.Path, s.Victim)
		t := tablewriter.NewTable(b, tablewriter.WithHeader([]string{"workers", "runs", "passed", "failed", "first failing seed", "mean steps", "max steps", "outcomes", "run twice"}))
		for _, row := range append(append([]Row(nil), s.Rows...), s.Total) {
			if err := t.Append(row.cells(r.Options.Mode.Real())); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) writeFailures(b *bytes.Buffer) error {
	for _, s := range r.Scenarios {
		if s.Total.Failed > 0 {
			b.WriteString("\nFailures\n")
			break
		}
	}
	for _, s := range r.Scenarios {
		for _, row := range s.Rows {
			if row.Failed == 0 {
				continue
			}
			fmt.Fprintf(b, "\n%q (%s), workers %d: %d of %d runs failed; first failing seed %d\n",
				s.Name, s.Path, row.Workers, row.Failed, row.Runs, row.FirstFailSeed)
			shown := 0
			for _, f := range s.Failures {
				if f.Config.Workers != row.Workers {
					continue
				}
				if shown++; shown <= kindsShownMax {
					f.write(b)
				}
			}
			if shown > kindsShownMax {
				fmt.Fprintf(b, "  and %d more kinds of failure\n", shown-kindsShownMax)
			}
		}
	}
	return nil
}

func (r *Report) writeNondeterminism(b *bytes.Buffer) error {
	if len(r.Nondeterminism) > 0 {
		b.WriteString("\nNondeterminism\n")
	}
	for _, n := range r.Nondeterminism {
		fmt.Fprintf(b, "\n%q (%s): %s\n", n.Scenario, n.Path, n.String())
		if n.Line > 0 {
			fmt.Fprintf(b, "  first:  %s\n  second: %s\n", orEnd(n.First), orEnd(n.Second))
		}
		cmd := n.Config.Command(n.Path)
		fmt.Fprintf(b, "  reproduce: %s --trace a.trace; %s --trace b.trace; cbcsim diff a.trace b.trace\n", cmd, cmd)
		if n.ReproDir != "" && n.Line > 0 {
			fmt.Fprintf(b, "  compare:   cbcsim diff %s %s\n",
				sim.ShellQuote(filepath.Join(n.ReproDir, "first.trace")), sim.ShellQuote(filepath.Join(n.ReproDir, "second.trace")))
		}
	}
	return nil
}

func (r *Report) writeRepros(b *bytes.Buffer) error {
	o := r.Options
	if len(r.ReproDirs) > 0 || r.ReproSkipped > 0 || len(r.ReproErrors) > 0 {
		b.WriteString("\n")
	}
	if len(r.ReproDirs) > 0 {
		fmt.Fprintf(b, "repro: %d director%s written under %s\n", len(r.ReproDirs), plural(len(r.ReproDirs), "y", "ies"), o.ReproDir)
	}
	if r.ReproSkipped > 0 {
		fmt.Fprintf(b, "repro: the bound of %d directories was reached; %d more failure(s) have none (rerun them with the commands above)\n",
			o.ReproMax, r.ReproSkipped)
	}
	for _, e := range r.ReproErrors {
		fmt.Fprintf(b, "repro: cannot write %s\n", e)
	}
	return nil
}

func (r *Report) writeSummary(b *bytes.Buffer) error {
	b.WriteString("\n")
	failedScenarios := 0
	for _, s := range r.Scenarios {
		if s.Total.Failed > 0 {
			failedScenarios++
		}
	}
	recorded := ""
	if len(r.Recorded) > 0 {
		failed := 0
		for _, rec := range r.Recorded {
			if rec.Failed() {
				failed++
			}
		}
		recorded = fmt.Sprintf(" and %d of %d recorded run(s)", failed, len(r.Recorded))
	}
	if r.Interrupted {
		fmt.Fprintf(b, "interrupted: %d of %d runs made, the others not run; the figures above are those of the runs made\n", r.Runs, r.Planned)
	}
	switch {
	case r.Failed():
		fmt.Fprintf(b, "FAIL: %d of %d runs failed in %d of %d scenario(s)%s; %d nondeterministic run(s)\n",
			r.FailedRuns, r.Runs, failedScenarios, len(r.Scenarios), recorded, len(r.Nondeterminism))
	case r.Options.Mode.Real():
		fmt.Fprintf(b, "ok: all %d runs passed\n", r.Runs)
	case r.Options.Seeds == 0:
		fmt.Fprintf(b, "ok: all %d recorded runs passed\n", r.Runs)
	default:
		fmt.Fprintf(b, "ok: all %d runs passed; %d run(s) executed twice gave identical traces\n", r.Runs, r.Resampled)
	}
	return nil
}

func (f *Failure) write(b *bytes.Buffer) {
	fmt.Fprintf(b, "  seed %d: outcome %s, main %s", f.Seed, f.Outcome, f.Main)
	if f.Count > 1 {
		fmt.Fprintf(b, " (%d runs failed this way)", f.Count)
	}
	b.WriteString("\n")
	for _, c := range f.Checks {
		fmt.Fprintf(b, "    %s: %s\n", c.Name, c.Detail)
	}
	fmt.Fprintf(b, "    reproduce: %s\n", f.Command())
	if f.Trace != "" {
		fmt.Fprintf(b, "    replay:    cbcsim replay %s\n", sim.ShellQuote(f.Trace))
	}
	if f.ReproDir != "" {
		fmt.Fprintf(b, "    repro:     %s\n", f.ReproDir)
	}
	if f.Schedule != "" {
		fmt.Fprintf(b, "    %s\n", strings.ReplaceAll(f.Schedule, "\n", "\n    "))
	}
	if len(f.Seeds) > 0 {
		seeds := make([]string, len(f.Seeds))
		for i, s := range f.Seeds {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		more := ""
		if n := f.Count - 1 - int64(len(f.Seeds)); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(b, "    also seeds %s%s\n", strings.Join(seeds, ", "), more)
	}
}

// orEnd shows a line that one trace does not have.
func orEnd(line string) string {
	if line == "" {
		return "(end of trace)"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cells is the row as table cells.
func (row Row) cells(real bool) []string {
	workers := "all"
	if row.Workers > 0 {
		workers = strconv.Itoa(row.Workers)
	}
	first, mean := "-", "-"
	if row.Failed > 0 {
		first = strconv.FormatUint(row.FirstFailSeed, 10)
	}
	if row.Runs > 0 {
		mean = i((row.StepsTotal + row.Runs/2) / row.Runs)
	}
	names := make([]string, 0, len(row.Outcomes))
	for k := range row.Outcomes {
		names = append(names, string(k))
	}
	sort.Strings(names)
	for j, k := range names {
		names[j] = k + ":" + i(row.Outcomes[sim.Outcome(k)])
	}
	twice := "-"
	switch {
	case real || row.Resampled == 0:
	case row.Differ == 0:
		twice = strconv.Itoa(row.Resampled) + " same"
	default:
		twice = fmt.Sprintf("%d of %d DIFFER", row.Differ, row.Resampled)
	}
	return []string{workers, i(row.Runs), i(row.Passed), i(row.Failed), first, mean, i(row.StepsMax), strings.Join(names, " "), twice}
}

func i(v int64) string { return strconv.FormatInt(v, 10) }
