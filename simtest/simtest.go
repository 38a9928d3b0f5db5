package simtest

// Design notes. Each run is one sim.RunBody: the body as the root task
// under the seeded driver, single-threaded, its trace captured in memory.
// Runs go one after another on the test's goroutine; a test that wants
// more cores marks itself t.Parallel. Rejected: a pool of goroutines per
// Check, which would hide the order of failures (the smallest failing seed
// must be the one reported) and compete with go test's own parallelism.
//
// Nondeterminism is found by executing every run twice (Repeat) and
// comparing the two traces byte for byte. It is the one check that sees a
// real goroutine, the clock or map order reaching the body's decisions,
// and it costs a second execution of every run; Repeat(1) turns it off.
// A body that blocks on something outside the scheduler (a Go channel fed
// by a goroutine that never sends) would hang the driver, so each
// execution runs under a watchdog that reports a run whose trace has not
// grown for Stall.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/explore"
)

// Defaults of the options.
const (
	DefaultSeeds    = 100
	DefaultRepeat   = 2         // executions per run, compared byte for byte
	DefaultMaxSteps = 1_000_000 // busy steps before a run is a livelock
	// DefaultExploreMaxSteps is the bound under Strategy("explore"), unless
	// MaxSteps sets one: the explorer keeps each run's decisions, about a
	// kilobyte a step with the trace, so a body that spins would hold
	// hundreds of megabytes a schedule at the million steps of the others.
	DefaultExploreMaxSteps = 100_000
	DefaultStall           = 10 * time.Second // no trace progress for this long: blocked outside the scheduler
	traceTailLines         = 12               // trace lines shown with a failure
	diffLineMax            = 200              // bytes of a differing trace line shown
)

// DefaultWorkers returns the worker counts Check runs when none are given.
func DefaultWorkers() []int { return []int{1, 2, 4} }

// The flags a rerun command sets. They are registered on the default flag
// set, which `go test` parses after every package's init.
var (
	flagSeed     = flag.String("simtest.seed", "", "run only this seed (the rerun of a failure)")
	flagWorkers  = flag.Int("simtest.workers", 0, "run only this worker count")
	flagStrategy = flag.String("simtest.strategy", "", "the driver's strategy, portfolio, random, pct or explore (overrides Strategy)")
	flagSeeds    = flag.Int("simtest.seeds", 0, "seeds per worker count (overrides Seeds)")
	flagTrace    = flag.String("simtest.trace", "", "with -simtest.seed: write the run's trace to this file, passing or not")
	flagFailures = flag.String("simtest.failures", "", "directory for the traces of failures (default: simtest-failures under the OS temp directory)")
)

// Option configures Check and CheckScenarios.
type Option func(*config)

type config struct {
	seeds       int
	seedStart   uint64
	workers     []int
	strategy    string
	pctDepth    int
	preemptions int
	repeat      int
	maxSteps    int64
	maxStepsSet bool // MaxSteps was given: explore keeps it
	stall       time.Duration
}

// Seeds sets the number of seeds run per worker count (default 100).
func Seeds(n int) Option { return func(c *config) { c.seeds = n } }

// Workers sets the worker counts (default 1, 2, 4).
func Workers(ws ...int) Option { return func(c *config) { c.workers = append([]int(nil), ws...) } }

// Strategy sets the seeded driver's strategy: "portfolio" (the default),
// "random", "pct" or "explore", as `cbcsim check --strategy` and `cbcsim
// explore` do. The portfolio runs each seed under one of random and pct
// at several depths, chosen by the seed (sim.Portfolio), since no single
// strategy finds every ordering bug (docs/explore.md#which-strategy). pct
// (probabilistic concurrency testing) finds bugs that need a few
// preemptions at the right places with a known probability; each pct run
// executes the body once more to measure it. explore is the systematic
// search of package sim/explore on the body: every schedule with at most
// Preemptions preemptions (default 2), fewest first, up to Seeds
// schedules per worker count, its policy decisions (Select's choice
// among ready cases included) explored too; a failure is shrunk to its
// fewest preemptions and steps before it is reported. The seed (StartSeed)
// is then the one seed every schedule runs with.
func Strategy(name string) Option { return func(c *config) { c.strategy = name } }

// PCTDepth sets pct's depth d, the number of preemptions a run makes
// (d-1 change points; default 3, at most 64), as `cbcsim check
// --pct-depth` does. Only with Strategy("pct").
func PCTDepth(d int) Option { return func(c *config) { c.pctDepth = d } }

// Preemptions sets explore's preemption bound (default 2). Only with
// Strategy("explore").
func Preemptions(k int) Option { return func(c *config) { c.preemptions = k } }

// StartSeed sets the first seed: Check runs seeds s, s+1, ... s+Seeds-1
// (default 0). A rerun's -simtest.seed overrides it.
func StartSeed(s uint64) Option { return func(c *config) { c.seedStart = s } }

// Repeat sets how many times each run is executed and its traces compared
// (default 2; 1 turns the nondeterminism check off and halves the cost).
func Repeat(n int) Option { return func(c *config) { c.repeat = n } }

// MaxSteps bounds the busy steps of one run (default 1,000,000); a run
// that passes it is a livelock.
func MaxSteps(n int64) Option { return func(c *config) { c.maxSteps, c.maxStepsSet = n, true } }

// Stall sets how long a run may go without writing to its trace before
// it is reported as blocked outside the scheduler (default 10 s).
func Stall(d time.Duration) Option { return func(c *config) { c.stall = d } }

func newConfig(opts []Option) (*config, error) {
	c := &config{seeds: DefaultSeeds, workers: DefaultWorkers(), strategy: sim.StrategyPortfolio,
		preemptions: explore.DefaultPreemptions, repeat: DefaultRepeat, maxSteps: DefaultMaxSteps, stall: DefaultStall}
	for _, o := range opts {
		o(c)
	}
	if *flagSeeds != 0 {
		c.seeds = *flagSeeds
	}
	if *flagStrategy != "" {
		c.strategy = *flagStrategy
	}
	if c.strategy == sim.StrategyExplore && !c.maxStepsSet {
		c.maxSteps = DefaultExploreMaxSteps
	}
	if *flagWorkers != 0 {
		c.workers = []int{*flagWorkers}
	}
	if *flagSeed != "" {
		s, err := strconv.ParseUint(*flagSeed, 10, 63)
		if err != nil {
			return nil, fmt.Errorf("-simtest.seed=%s: want a seed in 0..%d", *flagSeed, uint64(1<<63-1))
		}
		c.seeds, c.seedStart = 1, s
	} else if *flagTrace != "" {
		return nil, errors.New("-simtest.trace needs -simtest.seed: it writes the trace of one run")
	}
	switch {
	case c.seeds < 1:
		return nil, fmt.Errorf("Seeds(%d): want at least 1", c.seeds)
	case len(c.workers) == 0:
		return nil, errors.New("Workers(): want at least one worker count")
	case c.strategy != sim.StrategyRandom && c.strategy != sim.StrategyPCT && c.strategy != sim.StrategyExplore && c.strategy != sim.StrategyPortfolio:
		return nil, fmt.Errorf("Strategy(%q): want %q, %q, %q or %q", c.strategy, sim.StrategyPortfolio, sim.StrategyRandom, sim.StrategyPCT, sim.StrategyExplore)
	case c.pctDepth != 0 && c.strategy != sim.StrategyPCT:
		return nil, fmt.Errorf("PCTDepth(%d) needs Strategy(%q), not %q", c.pctDepth, sim.StrategyPCT, c.strategy)
	case c.pctDepth < 0 || c.pctDepth > sim.PCTDepthMax:
		return nil, fmt.Errorf("PCTDepth(%d): want 1..%d", c.pctDepth, sim.PCTDepthMax)
	case c.preemptions < 0 || c.preemptions > explore.PreemptionsMax:
		return nil, fmt.Errorf("Preemptions(%d): want 0..%d", c.preemptions, explore.PreemptionsMax)
	case c.seedStart > 1<<63-1 || c.seedStart+uint64(c.seeds)-1 > 1<<63-1:
		return nil, fmt.Errorf("StartSeed(%d) with Seeds(%d): the seeds must stay in 0..%d", c.seedStart, c.seeds, uint64(1<<63-1))
	case c.repeat < 1:
		return nil, fmt.Errorf("Repeat(%d): want at least 1", c.repeat)
	case c.maxSteps < 1:
		return nil, fmt.Errorf("MaxSteps(%d): want at least 1", c.maxSteps)
	case c.stall <= 0:
		return nil, fmt.Errorf("Stall(%v): want a positive duration", c.stall)
	}
	for _, w := range c.workers {
		if w < 1 || w > 256 {
			return nil, fmt.Errorf("Workers: %d out of range 1..256", w)
		}
	}
	return c, nil
}

// Check runs body as the root task under the seeded driver for every seed
// and worker count and fails t (t.Error, then it returns) at the first run
// that fails, in the order seed by seed, each seed on every worker count.
// The message names the seed and worker count, says what failed, shows
// the end of the trace, names the file the trace was written to and the
// command that reruns exactly that run.
func Check(t testing.TB, body func(*sched.Task) error, opts ...Option) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Errorf("simtest: %v", err)
		return
	}
	if c.strategy == sim.StrategyExplore {
		for _, w := range c.workers {
			rep, f, err := c.explore(t.Name(), body, w, nil)
			if err != nil {
				t.Errorf("simtest: workers %d, strategy explore: %v", w, err)
				return
			}
			if f != nil {
				t.Error(f.message(t.Name(), c))
				return
			}
			t.Logf("simtest: workers %d, strategy explore: %d schedules, none failed%s", w, rep.Schedules, exhaustiveNote(rep))
		}
		return
	}
	once := false // one worker, and the first seed's run made no decision
	for i := 0; i < c.seeds; i++ {
		seed := c.seedStart + uint64(i)
		for _, w := range c.workers {
			if w == 1 && once {
				continue
			}
			f, tr, decisions := c.run(t.Name(), body, seed, w, true)
			if w == 1 && i == 0 && f == nil && decisions == 0 && c.seeds > 1 {
				// At one worker a seed changes only the policy
				// decisions; a run that made none is every seed's run.
				once = true
				t.Logf("simtest: workers 1: run once (seed %d): the run made no policy decision, "+
					"and at one worker the decisions are all a seed changes, so every seed gives the same run", seed)
			}
			c.keepTrace(t, tr, seed, w)
			if f != nil {
				t.Error(f.message(t.Name(), c))
				return
			}
		}
	}
}

// keepTrace writes a run's trace where -simtest.trace says.
func (c *config) keepTrace(t testing.TB, tr []byte, seed uint64, w int) {
	if *flagTrace == "" || tr == nil {
		return
	}
	path := *flagTrace
	if len(c.workers) > 1 {
		path = fmt.Sprintf("%s.w%d", path, w)
	}
	if err := writeFile(path, tr); err != nil {
		t.Errorf("simtest: %v", err)
	} else {
		t.Logf("simtest: seed %d workers %d: trace written to %s", seed, w, path)
	}
}

// failure is a run that failed.
type failure struct {
	seed     uint64
	workers  int
	strategy string
	schedule string   // explore: which schedule, its preemptions and steps
	what     string   // one line: what failed
	details  []string // more lines: main's result, broken invariants, trace lines
	traces   []string // files written
	rerun    bool     // the rerun command reproduces it (false for a stall)
}

// run executes one (seed, workers) run c.repeat times and judges it. It
// returns the failure, if any, the first execution's trace (nil if it
// did not finish) and its policy decisions. Its trace is saved to a file
// when it fails and save is set.
func (c *config) run(name string, body func(*sched.Task) error, seed uint64, workers int, save bool) (*failure, []byte, int64) {
	var first *sim.BodyRun
	var firstTrace []byte
	for i := 0; i < c.repeat; i++ {
		r, tr, err := c.execute(c.body(name, seed, workers), body)
		if err != nil {
			f := &failure{seed: seed, workers: workers, strategy: c.strategy, what: err.Error(), rerun: !errors.Is(err, errStall)}
			return f, nil, 0
		}
		if i == 0 {
			first, firstTrace = r, tr
			continue
		}
		if line, a, b, differ := diffLine(firstTrace, tr); differ {
			f := &failure{seed: seed, workers: workers, strategy: c.strategy,
				what: "nondeterministic: two executions of the same seed wrote different traces; " +
					"the body used something the simulator does not control (a real goroutine, the clock, " +
					"map iteration order, a global random source), so no seed can replay it",
				details: []string{fmt.Sprintf("first difference at trace line %d:", line),
					"  first:  " + a, "  second: " + b}}
			if save {
				f.save(name, firstTrace, "first")
				f.save(name, tr, "second")
			}
			return f, firstTrace, 0
		}
	}
	f := judge(first, firstTrace, seed, workers)
	if f != nil {
		f.rerun, f.strategy = true, c.strategy
		if save {
			f.save(name, firstTrace, "")
		}
	}
	return f, firstTrace, first.Decisions
}

// judge returns the failure of a finished run, or nil if it passed.
func judge(r *sim.BodyRun, tr []byte, seed uint64, workers int) *failure {
	var broken []string
	for _, ch := range r.Checks {
		if !ch.OK {
			broken = append(broken, fmt.Sprintf("invariant %s broken: %s", ch.Name, ch.Detail))
		}
	}
	if r.Outcome == sim.OutcomeOK && len(broken) == 0 {
		return nil
	}
	f := &failure{seed: seed, workers: workers}
	switch r.Outcome {
	case sim.OutcomeOK:
		f.what = "an invariant of the scheduler broke"
	case sim.OutcomeFailed, sim.OutcomeCancelled:
		f.what = fmt.Sprintf("the body %s: %s", r.Outcome, r.Result)
	case sim.OutcomeDeadlock:
		f.what = "deadlock: every task is blocked and none can wake another"
	case sim.OutcomeLivelock:
		f.what = fmt.Sprintf("livelock: the run passed %d busy steps without ending", r.Config.MaxSteps)
	case sim.OutcomeCrash:
		f.what = "the scheduler itself panicked: " + r.Crash
	default:
		f.what = string(r.Outcome)
	}
	f.details = append(f.details, broken...)
	f.details = append(f.details, fmt.Sprintf("steps %d, main's result %s", r.Steps, r.Result))
	if r.Waits.Stuck() {
		// Who waits on what, by task name and Go line: what a deadlock
		// needs explained, which the trace's tail rarely shows.
		f.details = append(f.details, r.Waits.Lines()...)
	}
	lines := strings.Split(strings.TrimRight(string(tr), "\n"), "\n")
	if len(lines) > traceTailLines {
		f.details = append(f.details, fmt.Sprintf("the last %d of %d trace lines:", traceTailLines, len(lines)))
		lines = lines[len(lines)-traceTailLines:]
	} else {
		f.details = append(f.details, "the trace:")
	}
	for _, l := range lines {
		f.details = append(f.details, "  "+l)
	}
	return f
}

// errStall is a run that stopped making progress outside the scheduler.
var errStall = errors.New("stall")

type stallError struct {
	d     time.Duration
	steps int64
}

func (e *stallError) Error() string {
	return fmt.Sprintf("blocked outside the scheduler: the run wrote nothing to its trace for %v "+
		"(after %d bytes); the body waits on something the simulator does not drive (a Go channel, "+
		"a sync lock, a real goroutine, I/O, time.Sleep)", e.d, e.steps)
}
func (e *stallError) Is(target error) bool { return target == errStall }

// progressBuffer is the run's trace, with its length readable by the
// watchdog while the run writes.
type progressBuffer struct {
	buf   bytes.Buffer
	n     atomic.Int64 // written by the run's goroutine, read by the watchdog
	watch *goroutineWatch
}

// Write is called by the run's goroutine when the trace writer flushes,
// between two steps of the body.
func (p *progressBuffer) Write(b []byte) (int, error) {
	p.n.Add(int64(len(b)))
	p.watch.look(false)
	return p.buf.Write(b)
}

// errGoroutine is a run whose body started a real goroutine.
type goroutineError struct{ stack string }

func (e *goroutineError) Error() string {
	return "nondeterministic: the body started a real goroutine (" + e.stack + "); it runs when the OS " +
		"schedules it, not when the seed says, so no seed can replay the run: start a task instead (Nursery.Go)"
}

// body is the sim.Body of one run of the strategy portfolio, random or
// pct.
func (c *config) body(name string, seed uint64, workers int) sim.Body {
	b := sim.Body{Name: name, Source: sim.GoTestSourcePrefix + name + "\n", Seed: seed,
		Sched:    sched.Config{Workers: workers, Budget: sched.Unlimited},
		MaxSteps: c.maxSteps, Sites: true}
	switch c.strategy {
	case sim.StrategyPCT:
		b.Strategy, b.PCTDepth = sim.StrategyPCT, c.pctDepth
	case sim.StrategyPortfolio:
		b.Strategy = sim.StrategyPortfolio
	}
	return b
}

// execute runs the body once as b says and returns the run and its
// trace (b.Trace, if set, gets a copy). The run goes on a goroutine of its
// own so that a run blocked outside the scheduler can be reported; that
// goroutine is then left behind, blocked, since nothing can stop it.
func (c *config) execute(b sim.Body, body func(*sched.Task) error) (*sim.BodyRun, []byte, error) {
	watch, labels := newGoroutineWatch()
	pb := &progressBuffer{watch: watch}
	out := b.Trace
	b.Trace = pb
	type result struct {
		r   *sim.BodyRun
		err error
	}
	done := make(chan result, 1)
	go pprof.Do(context.Background(), labels, func(context.Context) {
		watch.start()
		r, err := sim.RunBody(b, body)
		if err == nil {
			watch.look(true) // a goroutine that outlives the run
		}
		done <- result{r, err}
	})
	tick := time.NewTicker(c.stall / 10)
	defer tick.Stop()
	last, since := int64(-1), time.Now()
	for {
		select {
		case res := <-done:
			if res.err != nil {
				return nil, nil, fmt.Errorf("the run could not execute: %w", res.err)
			}
			if watch.found != "" {
				return nil, nil, &goroutineError{watch.found}
			}
			if out != nil {
				if _, err := out.Write(pb.buf.Bytes()); err != nil {
					return nil, nil, err
				}
			}
			return res.r, pb.buf.Bytes(), nil
		case now := <-tick.C:
			if n := pb.n.Load(); n != last {
				last, since = n, now
			} else if now.Sub(since) >= c.stall {
				return nil, nil, &stallError{d: c.stall, steps: n}
			}
		}
	}
}

// save writes a trace of the failure to the failures directory.
func (f *failure) save(name string, tr []byte, suffix string) {
	dir := failuresDir()
	base := fmt.Sprintf("%s-%s-seed%d-w%d", fileSafe(name), f.strategy, f.seed, f.workers)
	if suffix != "" {
		base += "-" + suffix
	}
	path := filepath.Join(dir, base+".trace")
	if err := writeFile(path, tr); err != nil {
		f.details = append(f.details, "the trace could not be written: "+err.Error())
		return
	}
	f.traces = append(f.traces, path)
}

// failuresDir is where traces of failures go: a directory that outlives
// the test (t.TempDir is removed when the test ends).
func failuresDir() string {
	if *flagFailures != "" {
		return *flagFailures
	}
	return filepath.Join(os.TempDir(), "simtest-failures")
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return sim.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func fileSafe(s string) string { return unsafeFileChars.ReplaceAllString(s, "_") }

func (f *failure) message(name string, c *config) string {
	var b strings.Builder
	strategy := c.strategy
	if strategy == sim.StrategyPortfolio {
		arm := sim.PortfolioArm(f.seed)
		strategy += ", this seed's arm " + sim.StrategyName(arm.Strategy, arm.PCTDepth)
	}
	fmt.Fprintf(&b, "simtest: seed %d, workers %d, strategy %s%s: %s", f.seed, f.workers, strategy, f.schedule, f.what)
	for _, d := range f.details {
		b.WriteString("\n    " + d)
	}
	for _, p := range f.traces {
		b.WriteString("\n    trace: " + p)
	}
	b.WriteString("\n    rerun: " + RerunCommand(name, f.seed, f.workers, c.strategy))
	if !f.rerun {
		b.WriteString("\n    (the rerun will stall the same way only if the body blocks the same way)")
	}
	return b.String()
}

// RerunCommand is the go test command line, run in the test's package
// directory, that reruns exactly one run of the test named name (t.Name()).
// It is sim.GoTestRerun, which cbcsim replay prints for a simtest trace.
func RerunCommand(name string, seed uint64, workers int, strategy string) string {
	return sim.GoTestRerun(name, seed, workers, strategy)
}

// diffLine finds the first line where a and b differ.
func diffLine(a, b []byte) (line int, la, lb string, differ bool) {
	if bytes.Equal(a, b) {
		return 0, "", "", false
	}
	as := strings.Split(string(a), "\n")
	bs := strings.Split(string(b), "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if x != y || i >= len(as) || i >= len(bs) {
			return i + 1, clip(x), clip(y), true
		}
	}
}

func clip(s string) string {
	if len(s) > diffLineMax {
		return s[:diffLineMax] + "..."
	}
	if s == "" {
		return "(end of trace)"
	}
	return s
}
