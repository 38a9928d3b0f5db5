package explore

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// Defaults of Options.
const (
	DefaultPreemptions  = 2
	DefaultMaxSchedules = 100_000
	// pendingBytesMax bounds the memory of the schedules waiting to be
	// run (branches, and the choices they share): past it the search
	// stops, not exhaustive.
	pendingBytesMax = 128 << 20
	// PreemptionsMax bounds Options.Preemptions (and explore's
	// --preemptions). Nothing is allocated in proportion to the bound:
	// the per-bound counts and queues grow with the preemptions the
	// search meets, which a run's decision points bound far below this.
	PreemptionsMax = 1_000_000
)

// Options configures Run.
type Options struct {
	Workers      int // 0: the scenario's
	Preemptions  int // the bound K; -1 is not allowed, 0 explores the 0-preemption schedules only
	MaxSchedules int // 0: DefaultMaxSchedules
	// Failing names what went wrong in a run; an empty list passes. nil
	// means FailedChecks. The mutation harness passes its own.
	Failing func(*sim.Run) []string
	// Progress receives sweep's progress line while the search runs
	// (nil: none); ProgressTerminal makes it rewrite itself.
	Progress         io.Writer
	ProgressTerminal bool
	// Jobs runs each batch of schedules on this many goroutines (0: 1).
	// The report does not depend on it (see batchSize); Exec and Failing
	// are then called from several goroutines at once.
	Jobs int
	// NoShrink leaves the first failing schedule as found.
	NoShrink bool
	// Context stops the search when done (nil: never): no further
	// schedule starts, those started finish and are counted, and the
	// report says Interrupted. A failure found by then is shrunk and
	// reported as usual.
	Context context.Context

	// Exec runs one schedule (nil: sim.Execute). The fuzzer passes its
	// own, which adds its oracles to the checks.
	Exec Exec

	visit func(ch *chooser, run *sim.Run) // tests: every schedule run by the search
}

// Exec runs sc once under c with o (o.Chooser set, o.Trace maybe).
type Exec func(sc *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error)

// FailedChecks is the default Failing: the names of the checks that did
// not hold, and "outcome:crash" when the scheduler itself panicked. A
// deadlock or a livelock fails only through the scenario's [expect]
// (gen.FailedChecks, for generated programs, counts them itself).
func FailedChecks(run *sim.Run) []string { return sim.FailedChecks(run, sim.OutcomeCrash) }

// Schedule is a run as the explorer sees it: the choices at its decision
// points, the rest being defaults (see chooser).
type Schedule struct {
	Choices     []uint8
	Preemptions int
	Steps       int64
}

// Report is what Run found.
type Report struct {
	Config     sim.Config
	Bound      int     // K
	Max        int     // MaxSchedules
	PerBound   []int64 // schedules executed with exactly b preemptions, b = 0 up to the highest bound the search reached (at most K)
	Schedules  int64
	Exhaustive bool // every schedule with at most K preemptions was executed
	// PendingFull says the search stopped because the schedules waiting
	// to run outgrew their memory bound (long runs, many points).
	PendingFull bool
	// Interrupted says Options.Context stopped the search.
	Interrupted bool
	Outcomes    []Outcome
	Elapsed     time.Duration
	Failure     *Failure // the first failing schedule; nil if none
}

// Outcome is one distinct way the runs ended, with how many did.
type Outcome struct {
	What  string // "ok main=ok:3", "failed main=err:X FAIL expect.log"
	Count int64
}

// Failure is a failing schedule: as found, and shrunk.
type Failure struct {
	Signature string // the sorted failing checks: the same failure keeps the same signature
	Found     Schedule
	Shrunk    Schedule
	Run       *sim.Run // the shrunk schedule's run
	Runs      int      // runs the shrinker made
	// Decisions, when not nil, replays the shrunk run step by step: a
	// recorded run the explorer's choices cannot express is shrunk in
	// the space of its own decisions (shrinkDecisions), and Shrunk.Choices
	// is then empty.
	Decisions *sim.Schedule
}

// Run explores sc's schedules under o. The error is bad input (Resolve)
// or a harness failure; a failing schedule is a Report with Failure.
func Run(sc *scenario.Scenario, o Options) (*Report, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	cfg, err := Resolve(sc, o.Workers)
	if err != nil {
		return nil, err
	}
	return runResolved(sc, o, cfg)
}

// runResolved is Run under cfg, resolved, with o normalized.
func runResolved(sc *scenario.Scenario, o Options, cfg sim.Config) (*Report, error) {
	s := newSearch(sc, o, cfg)
	exhaustive, err := s.run()
	if err != nil {
		return nil, err
	}
	if s.failure != nil {
		if err := s.fail(s.failure); err != nil {
			return nil, err
		}
	}
	return s.finish(exhaustive), nil
}

// normalize checks the bounds and fills the defaults.
func (o *Options) normalize() error {
	if o.Preemptions < 0 || o.Preemptions > PreemptionsMax {
		return fmt.Errorf("preemption bound %d is out of range 0..%d", o.Preemptions, PreemptionsMax)
	}
	if o.MaxSchedules == 0 {
		o.MaxSchedules = DefaultMaxSchedules
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.MaxSchedules < 1 {
		return fmt.Errorf("max schedules %d must be at least 1", o.MaxSchedules)
	}
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Exec == nil {
		o.Exec = sim.Execute
	}
	if o.Jobs < 0 {
		return fmt.Errorf("jobs %d must be at least 1", o.Jobs)
	}
	o.Jobs = max(o.Jobs, 1)
	return nil
}

// batchSize is how many pending schedules of one bound run as one batch
// of sweep jobs. It is a constant, not a function of Jobs, so that which
// schedules run, in what order, is the same on any number of goroutines.
// A batch is the top of the bound's stack, so the search stays close to
// depth first; 64 runs (about 5 ms) keep two goroutines busy for far
// longer than a batch's start and fold take.
const batchSize = 64

// search is one Run under way: the report it fills and the schedules
// waiting to run.
type search struct {
	o        Options
	sc       *scenario.Scenario
	rep      *Report
	outcomes map[string]int64
	began    time.Time
	failure  *result // the first failing schedule, not yet shrunk

	// pending[b] holds the schedules with exactly b preemptions not yet
	// run, as branches off the runs that queued them. Every branch is a
	// distinct schedule: a run's alternatives are taken only at points
	// past its own prefix, so each point of the tree is expanded by
	// exactly one run.
	pending      [][]branch
	npending     int
	pendingBytes int

	status atomic.Pointer[string] // the progress line's tail, set after each batch
}

// result is one schedule's run, made by a sweep job and folded in by
// the search in job order.
type result struct {
	run    *sim.Run // kept only when it failed (or for Options.visit)
	key    string   // outcomeKey of the run
	ch     *chooser
	prefix []uint8
	failed []string
	err    error
}

func newSearch(sc *scenario.Scenario, o Options, cfg sim.Config) *search {
	s := &search{o: o, sc: sc, outcomes: map[string]int64{}, began: time.Now(),
		rep:     &Report{Config: cfg, Bound: o.Preemptions, Max: o.MaxSchedules, PerBound: make([]int64, 1)},
		pending: make([][]branch, 1), npending: 1}
	s.pending[0] = []branch{{at: -1}}
	s.setStatus(0)
	return s
}

// run runs the pending schedules, every one with 0 preemptions first,
// then 1, up to the bound, in batches on one sweep session. It reports
// whether all were run: not when one failed, or a bound (schedules,
// pending memory) stopped the search.
func (s *search) run() (bool, error) {
	sess := sweep.Start(s.o.Context, int64(s.o.MaxSchedules), sweep.Options{Jobs: s.o.Jobs, Name: "explore",
		Progress: s.o.Progress, Terminal: s.o.ProgressTerminal, Status: func() string { return *s.status.Load() }})
	defer sess.Close()
	// pending grows as queue meets higher bounds (never past K), so the
	// loop ends at the highest bound a schedule was queued for.
	for b := 0; b < len(s.pending); b++ {
		for len(s.pending[b]) > 0 {
			if s.rep.Schedules >= int64(s.o.MaxSchedules) {
				return false, nil
			}
			stop, err := s.batch(sess, b)
			if err != nil || stop {
				return false, err
			}
		}
	}
	return true, nil
}

// batch runs the top of the pending schedules with b preemptions as one
// batch of sweep jobs, then folds their results in, in job order, as a
// sequential search would: counts, outcomes, and the alternatives each
// queues. stop says the search ends here (a failure, a harness error, the
// pending memory bound).
func (s *search) batch(sess *sweep.Session, b int) (stop bool, err error) {
	stack := s.pending[b]
	n := min(batchSize, len(stack), s.o.MaxSchedules-int(s.rep.Schedules))
	results := make([]result, n)
	for j := range results {
		br := stack[len(stack)-1-j] // job 0 is the top: the one popped first
		results[j].prefix = br.prefix()
		s.pendingBytes -= br.release()
	}
	s.pending[b] = stack[:len(stack)-n]
	if len(s.pending[b]) == 0 {
		s.pendingBytes -= cap(stack) * branchSize // an empty queue gives its memory back
		s.pending[b] = nil
	}
	s.npending -= n
	st := sess.Batch(int64(n), func(j int64) sweep.Verdict {
		r := &results[j]
		r.run, r.ch, r.err = execute(s.o.Exec, s.sc, s.rep.Config, r.prefix, nil)
		if r.err == nil {
			r.failed = s.o.Failing(r.run)
			r.key = outcomeKey(r.run, r.failed)
			if len(r.failed) == 0 && s.o.visit == nil {
				// A batch holds 64 results until its fold: a passing
				// run's history (a long run's can be tens of MB) is
				// dropped at once, its choices (ch) are all the fold needs.
				r.run = nil
			}
		}
		if r.err != nil || len(r.failed) > 0 {
			return sweep.Stop // the fold stops at the lowest such job
		}
		return sweep.Passed
	})
	for j := range st.Handed {
		if stop, err := s.fold(b, &results[j]); stop || err != nil {
			return true, err
		}
		results[j] = result{}
	}
	s.setStatus(b)
	return st.Handed < int64(n), nil // fewer: the sweep was cancelled
}

// fold counts one schedule's run and queues its alternatives; stop says
// the search ends with it.
func (s *search) fold(b int, r *result) (stop bool, err error) {
	if r.err != nil {
		return true, r.err
	}
	s.rep.Schedules++
	for len(s.rep.PerBound) <= b {
		s.rep.PerBound = append(s.rep.PerBound, 0)
	}
	s.rep.PerBound[b]++
	if s.o.visit != nil {
		s.o.visit(r.ch, r.run)
	}
	s.outcomes[r.key]++
	if len(r.failed) > 0 {
		s.failure = r
		return true, nil
	}
	return s.queue(r.ch, len(r.prefix)), nil
}

// setStatus is the progress line's tail: the bound under way, the
// schedules per bound so far, and how many wait.
func (s *search) setStatus(b int) {
	st := fmt.Sprintf("bound %d (%s), %d pending", b, perBound(s.rep.PerBound[:min(b+1, len(s.rep.PerBound))], b), s.npending)
	s.status.Store(&st)
}

// fail records the failing run as the report's Failure, shrunk unless
// NoShrink. It runs after the sweep session closed, so its line on
// Progress follows the progress line's last.
func (s *search) fail(r *result) error {
	sig := sim.Signature(r.failed)
	f := &Failure{Signature: sig, Found: Schedule{Choices: r.ch.choices(), Preemptions: r.ch.pre, Steps: r.run.Steps}}
	f.Shrunk, f.Run = f.Found, r.run
	if !s.o.NoShrink {
		if s.o.Progress != nil {
			fmt.Fprintf(s.o.Progress, "explore: schedule %d failed (%s, %s); shrinking it\n", s.rep.Schedules, sig, f.Found.Size())
		}
		// Every schedule with fewer preemptions ran before this bound's
		// (run: bound by bound, and a cap or the pending bound ends the
		// search before the next bound), and none failed.
		if err := shrink(s.o, s.sc, s.rep.Config, f, true); err != nil {
			return err
		}
	}
	s.rep.Failure = f
	return nil
}

// queue queues the alternatives at ch's points from index from on (past
// the run's own prefix) that stay within the preemption bound. It reports
// true when the pending schedules outgrew their memory bound.
func (s *search) queue(ch *chooser, from int) bool {
	var base *shared // this run's choices, made once it queues a branch
	for i := len(ch.points) - 1; i >= from; i-- {
		p := &ch.points[i]
		for _, opt := range p.options {
			if opt == p.chosen {
				continue
			}
			cost := int(p.pre) + p.cost(opt)
			if cost > s.o.Preemptions {
				continue
			}
			if base == nil {
				base = &shared{choices: ch.choices()}
				s.pendingBytes += len(base.choices)
			}
			if s.pendingBytes+branchSize > pendingBytesMax {
				s.rep.PendingFull = true
				return true
			}
			base.refs++
			for len(s.pending) <= cost {
				s.pending = append(s.pending, nil)
			}
			// The bound counts what the queues hold, capacity included
			// (append doubles it): the memory, not the branches' count.
			was := cap(s.pending[cost])
			s.pending[cost] = append(s.pending[cost], branch{base: base, at: int32(i), opt: opt})
			s.npending++
			s.pendingBytes += (cap(s.pending[cost]) - was) * branchSize
		}
	}
	return false
}

// finish completes the report: the verdict, the time taken and the
// outcomes in name order.
func (s *search) finish(exhaustive bool) *Report {
	rep := s.rep
	rep.Exhaustive = exhaustive
	rep.Interrupted = !exhaustive && s.o.Context.Err() != nil
	rep.Elapsed = time.Since(s.began)
	for k, n := range s.outcomes {
		rep.Outcomes = append(rep.Outcomes, Outcome{What: k, Count: n})
	}
	sort.Slice(rep.Outcomes, func(i, j int) bool { return rep.Outcomes[i].What < rep.Outcomes[j].What })
	return rep
}

// branch is a schedule waiting to run: the choices of the run that
// queued it, up to point at, then opt (at -1: the empty prefix).
type branch struct {
	base *shared
	at   int32
	opt  uint8
}

// shared is a run's choices, shared by the branches it queued.
type shared struct {
	choices []uint8
	refs    int
}

// branchSize is the size of one pending branch in its queue.
const branchSize = int(unsafe.Sizeof(branch{}))

func (br branch) prefix() []uint8 {
	if br.at < 0 {
		return nil
	}
	p := make([]uint8, br.at+1)
	copy(p, br.base.choices[:br.at])
	p[br.at] = br.opt
	return p
}

// release drops br's hold on its base and returns the bytes freed (the
// queue's capacity is counted until the queue shrinks: see batch).
func (br branch) release() int {
	n := 0
	if br.base != nil {
		br.base.refs--
		if br.base.refs == 0 {
			n += len(br.base.choices)
		}
	}
	return n
}

// Resolve is the configuration every schedule of sc runs under: the
// scenario's, with workers overridden when not 0, and strategy explore.
func Resolve(sc *scenario.Scenario, workers int) (sim.Config, error) {
	return sim.Resolve(sc, sim.Options{Workers: workers, Strategy: sim.StrategyExplore})
}

// execute runs one schedule; the trace goes to tw when it is not nil.
func execute(exec Exec, sc *scenario.Scenario, cfg sim.Config, prefix []uint8, tw io.Writer) (*sim.Run, *chooser, error) {
	ch := newChooser(prefix, cfg.Workers)
	run, err := exec(sc, cfg, sim.Options{Chooser: ch, Trace: tw})
	ch.detach()
	if err != nil {
		return nil, nil, err
	}
	return run, ch, nil
}

func outcomeKey(run *sim.Run, failed []string) string {
	k := string(run.Outcome) + " main=" + run.Result.String()
	if len(failed) > 0 {
		k += " FAIL " + sim.Signature(failed)
	}
	return k
}

// perBound is "0:8 1:16 2:0" for the counts n of bounds 0..k; the bounds
// past n ran nothing, written one by one up to a few and as a range past
// that ("3..1000000:0"), so a huge K prints one line, not a million.
func perBound(n []int64, k int) string {
	parts := make([]string, 0, len(n)+perBoundZerosMax)
	for b, c := range n {
		parts = append(parts, fmt.Sprintf("%d:%d", b, c))
	}
	switch zeros := k + 1 - len(n); {
	case zeros > perBoundZerosMax:
		parts = append(parts, fmt.Sprintf("%d..%d:0", len(n), k))
	case zeros > 0:
		for b := len(n); b <= k; b++ {
			parts = append(parts, fmt.Sprintf("%d:0", b))
		}
	}
	return strings.Join(parts, " ")
}

// perBoundZerosMax is how many bounds that ran nothing perBound writes
// one by one.
const perBoundZerosMax = 8
