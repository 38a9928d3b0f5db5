package explore

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Defaults of Options.
const (
	DefaultPreemptions  = 2
	DefaultMaxSchedules = 100_000
	// pendingBytesMax bounds the memory of the schedules waiting to be
	// run (branches, and the choices they share): past it the search
	// stops, not exhaustive.
	pendingBytesMax = 256 << 20
)

// Options configures Run.
type Options struct {
	Workers      int // 0: the scenario's
	Preemptions  int // the bound K; -1 is not allowed, 0 explores the 0-preemption schedules only
	MaxSchedules int // 0: DefaultMaxSchedules
	// Failing names what went wrong in a run; an empty list passes. nil
	// means FailedChecks. The mutation harness passes its own.
	Failing func(*sim.Run) []string
	// Progress receives a line every second while the search runs (nil:
	// none).
	Progress io.Writer
	// NoShrink leaves the first failing schedule as found.
	NoShrink bool

	// Exec runs one schedule (nil: sim.Execute). The fuzzer passes its
	// own, which adds its oracles to the checks.
	Exec Exec

	visit func(ch *chooser, run *sim.Run) // tests: every schedule run by the search
}

// Exec runs sc once under c with o (o.Chooser set, o.Trace maybe).
type Exec func(sc *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error)

// FailedChecks is the default Failing: the names of the checks that did
// not hold, and "outcome:crash" when the scheduler itself panicked.
func FailedChecks(run *sim.Run) []string {
	var out []string
	for _, c := range run.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	if run.Outcome == sim.OutcomeCrash {
		out = append(out, "outcome:crash")
	}
	return out
}

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
	PerBound   []int64 // schedules executed with exactly b preemptions, b = 0..K
	Schedules  int64
	Exhaustive bool // every schedule with at most K preemptions was executed
	// PendingFull says the search stopped because the schedules waiting
	// to run outgrew their memory bound (long runs, many points).
	PendingFull bool
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
}

// Run explores sc's schedules under o. The error is bad input (Resolve)
// or a harness failure; a failing schedule is a Report with Failure.
func Run(sc *scenario.Scenario, o Options) (*Report, error) {
	if o.Preemptions < 0 {
		return nil, fmt.Errorf("preemption bound %d must be at least 0", o.Preemptions)
	}
	if o.MaxSchedules == 0 {
		o.MaxSchedules = DefaultMaxSchedules
	}
	if o.MaxSchedules < 1 {
		return nil, fmt.Errorf("max schedules %d must be at least 1", o.MaxSchedules)
	}
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Exec == nil {
		o.Exec = sim.Execute
	}
	cfg, err := Resolve(sc, o.Workers)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	rep := &Report{Config: cfg, Bound: o.Preemptions, Max: o.MaxSchedules, PerBound: make([]int64, o.Preemptions+1)}
	outcomes := map[string]int64{}
	lastProgress := began

	// pending[b] holds the schedules with exactly b preemptions not yet
	// run, as branches off the runs that queued them. Every branch is a
	// distinct schedule: a run's alternatives are taken only at points
	// past its own prefix, so each point of the tree is expanded by
	// exactly one run.
	pending := make([][]branch, o.Preemptions+1)
	pending[0] = []branch{{at: -1}}
	npending, pendingBytes := 1, branchBytes
	exhaustive := true
search:
	for b := 0; b <= o.Preemptions; b++ {
		for len(pending[b]) > 0 {
			if rep.Schedules >= int64(o.MaxSchedules) {
				exhaustive = false
				break search
			}
			br := pending[b][len(pending[b])-1]
			pending[b] = pending[b][:len(pending[b])-1]
			npending--
			pendingBytes -= br.release()
			prefix := br.prefix()
			run, ch, err := execute(o.Exec, sc, cfg, prefix, nil)
			if err != nil {
				return nil, err
			}
			rep.Schedules++
			rep.PerBound[b]++
			if o.visit != nil {
				o.visit(ch, run)
			}
			if o.Progress != nil && time.Since(lastProgress) >= time.Second {
				// Time only paces this line; it never decides what runs.
				lastProgress = time.Now()
				fmt.Fprintf(o.Progress, "explore: %s: bound %d, %d schedules (%s), %d pending\n",
					time.Since(began).Truncate(time.Second), b, rep.Schedules, perBound(rep.PerBound[:b+1]), npending)
			}
			failed := o.Failing(run)
			outcomes[outcomeKey(run, failed)]++
			if len(failed) > 0 {
				sig := signature(failed)
				f := &Failure{Signature: sig, Found: Schedule{Choices: ch.choices(), Preemptions: ch.pre, Steps: run.Steps}}
				f.Shrunk, f.Run = f.Found, run
				if !o.NoShrink {
					if o.Progress != nil {
						fmt.Fprintf(o.Progress, "explore: schedule %d failed (%s, %s); shrinking it\n", rep.Schedules, sig, f.Found.Size())
					}
					if err := shrink(o.Exec, sc, cfg, f, o.Failing); err != nil {
						return nil, err
					}
				}
				rep.Failure = f
				exhaustive = false
				break search
			}
			var base *shared // this run's choices, made once it queues a branch
			for i := len(ch.points) - 1; i >= len(prefix); i-- {
				p := &ch.points[i]
				for _, opt := range p.options {
					if opt == p.chosen {
						continue
					}
					cost := p.pre + p.cost(opt)
					if cost > o.Preemptions {
						continue
					}
					if base == nil {
						base = &shared{choices: ch.choices()}
						pendingBytes += len(base.choices)
					}
					if pendingBytes+branchBytes > pendingBytesMax {
						rep.PendingFull = true
						exhaustive = false
						break search
					}
					base.refs++
					pending[cost] = append(pending[cost], branch{base: base, at: int32(i), opt: opt})
					npending++
					pendingBytes += branchBytes
				}
			}
		}
	}
	rep.Exhaustive = exhaustive
	rep.Elapsed = time.Since(began)
	for k, n := range outcomes {
		rep.Outcomes = append(rep.Outcomes, Outcome{What: k, Count: n})
	}
	sort.Slice(rep.Outcomes, func(i, j int) bool { return rep.Outcomes[i].What < rep.Outcomes[j].What })
	return rep, nil
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

// branchBytes is what one pending branch costs, for the memory bound.
const branchBytes = 24

func (br branch) prefix() []uint8 {
	if br.at < 0 {
		return nil
	}
	p := make([]uint8, br.at+1)
	copy(p, br.base.choices[:br.at])
	p[br.at] = br.opt
	return p
}

// release drops br's hold on its base and returns the bytes freed.
func (br branch) release() int {
	n := branchBytes
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
	if err != nil {
		return nil, nil, err
	}
	return run, ch, nil
}

func outcomeKey(run *sim.Run, failed []string) string {
	k := run.Outcome + " main=" + run.Result.String()
	if len(failed) > 0 {
		k += " FAIL " + signature(failed)
	}
	return k
}

func signature(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	out := s[:0]
	for i, n := range s {
		if i == 0 || n != s[i-1] {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// perBound formats schedules per preemption count: "0:12 1:40".
func perBound(n []int64) string {
	parts := make([]string, len(n))
	for b, k := range n {
		parts[b] = fmt.Sprintf("%d:%d", b, k)
	}
	return strings.Join(parts, " ")
}
