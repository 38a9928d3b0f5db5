package explore

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// converter replays a recorded schedule (any strategy's) step by step and
// notes the choices the explorer's chooser would need to make the same
// run: it mirrors the chooser's candidates at every step (idle looks are
// no decision, the chooser's fairness, one blank worker stands
// for all), and notes the recorded actor or victim where the chooser would
// have a decision. Blank workers are interchangeable, so when the
// recorded run used another blank worker than the chooser's
// representative, the two swap names from then on (perm maps a recorded
// worker id to the explorer's). A recorded step the chooser cannot make
// (the worker that just yielded going on, a steal attempt on an empty
// deque) is not noted; the explorer's run may then differ, and
// ShrinkRecorded checks that it still fails the same way. It also counts
// the recorded run's preemptions by the explorer's definition.
type converter struct {
	rec     *sim.Schedule
	workers int
	step    int64
	next    int // next victim index within the step
	nextD   int // next policy decision within the step
	choices []uint8
	pre     int
	perm    []int
	// The last worker that acted, and the last the chooser would have
	// chosen (idle looks aside) with its task before that step.
	prevW, exPrevW driver.Worker
	exPrevT        *sched.Task
	exPrevY        int64
	ready, cands   []driver.Worker
	fair           fairness
	mismatch       error
}

func newConverter(rec *sim.Schedule, workers int) *converter {
	c := &converter{rec: rec, workers: workers, perm: make([]int, workers)}
	for i := range c.perm {
		c.perm[i] = i
	}
	return c
}

func (c *converter) Choose(step int64, ready []driver.Worker) driver.Worker {
	c.step, c.next, c.nextD = step, 0, 0
	c.ready = append(c.ready[:0], ready...)
	if step >= int64(len(c.rec.Steps)) {
		c.fail(fmt.Errorf("step %d: the recorded run had ended", step))
		return ready[0]
	}
	actor := c.rec.Steps[step].Actor
	var w driver.Worker
	for _, r := range ready {
		if r.ID() == actor {
			w = r
		}
	}
	if w == nil {
		c.fail(fmt.Errorf("step %d: recorded worker w%d is parked", step, actor))
		return ready[0]
	}
	if c.prevW != nil && c.prevW != w && c.prevW.Running() {
		c.pre++
	}
	c.prevW = w
	if w.Idle() {
		return w // the chooser takes idle looks only when nobody has work: no decision
	}
	c.cands = c.fair.apply(sim.Useful(c.cands[:0], ready), c.exPrevW, c.exPrevT, c.exPrevY)
	c.fair.acted(w)
	if !slices.Contains(c.cands, w) {
		c.exPrevW, c.exPrevT, c.exPrevY = w, w.Current(), sim.Yields(w.Current())
		return w // the chooser's fairness would let another go first: not expressible
	}
	// One blank worker stands for all: the one with the lowest explorer
	// id, unless the recorded actor is blank, which then takes its name.
	var rep driver.Worker
	for _, v := range c.cands {
		if blank(v) && (rep == nil || c.perm[v.ID()] < c.perm[rep.ID()]) {
			rep = v
		}
	}
	if rep != nil && blank(w) && w != rep {
		c.perm[w.ID()], c.perm[rep.ID()] = c.perm[rep.ID()], c.perm[w.ID()]
		rep = w
	}
	n := 0
	for _, v := range c.cands {
		if !blank(v) || v == rep {
			n++
		}
	}
	if n > 1 {
		c.choices = append(c.choices, uint8(c.perm[w.ID()]))
	}
	c.exPrevW, c.exPrevT, c.exPrevY = w, w.Current(), sim.Yields(w.Current())
	return w
}

// blank reports whether w has no task and an empty deque.
func blank(w driver.Worker) bool { return !w.Running() && w.QueueLen() == 0 }

// NextVictim implements driver.VictimSource.
func (c *converter) NextVictim(w int) int {
	d := c.rec.Steps[c.step]
	if c.next >= len(d.Victims) {
		c.fail(fmt.Errorf("step %d: more steal attempts than recorded", c.step))
		return (w + 1) % c.workers
	}
	v := d.Victims[c.next]
	c.next++
	holding, found := 0, false
	for _, r := range c.ready {
		if r.ID() != w && r.QueueLen() > 0 {
			holding++
			found = found || r.ID() == v
		}
	}
	if holding > 1 && found {
		c.choices = append(c.choices, uint8(c.perm[v]))
	}
	return v
}

// Decide implements driver.DecisionSource: the recorded decision, noted
// as the chooser's choice at its decision point (0 no, 1 yes); a no
// counts a preemption, as the chooser counts it.
func (c *converter) Decide(_ int, d driver.Decision) bool {
	ds := c.rec.Steps[c.step].Decisions
	if c.nextD >= len(ds) || ds[c.nextD].Decision != d {
		c.fail(fmt.Errorf("step %d: a %s decision the recorded run did not make", c.step, d))
		c.nextD++
		c.choices = append(c.choices, 1)
		return true
	}
	yes := ds[c.nextD].Yes
	c.nextD++
	if yes {
		c.choices = append(c.choices, 1)
	} else {
		c.choices = append(c.choices, 0)
		c.pre++
	}
	return yes
}

func (c *converter) fail(err error) {
	if c.mismatch == nil {
		c.mismatch = err
	}
}

// ErrNotConverted is a recorded schedule whose failure neither the
// explorer's version of it (no idle looks, no steal attempts on empty
// deques, the chooser's fairness), nor a bounded search up to
// searchBoundMax preemptions, nor its own decisions followed step by step
// reproduce (the last only if the run is not deterministic); it is then
// left as recorded.
var ErrNotConverted = errors.New("neither the explorer's version of the recorded schedule, nor a search up to 2 preemptions, nor its own decisions fail the same way")

// ShrinkRecorded minimises a failing schedule recorded by any strategy
// (rec, from sim.ScheduleOf of the failing run's trace) of sc on workers:
// it converts it into the explorer's choices, checks that they fail with
// the same checks as want (a signature made by Signature), and shrinks
// them. When neither they nor a bounded search fail that way, it shrinks
// the recorded decisions themselves (shrinkDecisions; the Failure's
// Decisions replay the result). The Failure's Found is the recorded run's
// size (its preemptions by the explorer's definition, its steps), Shrunk
// the result.
func ShrinkRecorded(sc *scenario.Scenario, workers int, rec *sim.Schedule, want string, o Options) (*Failure, error) {
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Exec == nil {
		o.Exec = sim.Execute
	}
	cfg, err := Resolve(sc, workers)
	if err != nil {
		return nil, err
	}
	conv := newConverter(rec, cfg.Workers)
	if _, err := o.Exec(sc, cfg, sim.Options{Chooser: conv}); err != nil {
		return nil, err
	}
	// The converted choices are shrink's start; when they do not fail the
	// same way (a step the chooser cannot make), shrink searches for the
	// failure by iterative bounding instead.
	f := &Failure{Signature: want, Found: Schedule{Choices: conv.choices, Preemptions: conv.pre, Steps: int64(len(rec.Steps))}}
	if err := shrink(o, sc, cfg, f, false); err != nil {
		return nil, err
	}
	if f.Run == nil {
		sh := &shrinker{exec: o.Exec, sc: sc, cfg: cfg, sig: want, failing: o.Failing, jobs: o.Jobs, runs: f.Runs}
		if err := sh.shrinkDecisions(rec, f); err != nil {
			return nil, err
		}
	}
	if f.Run == nil {
		if conv.mismatch != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotConverted, conv.mismatch)
		}
		return nil, ErrNotConverted
	}
	return f, nil
}

// WriteShrunk runs the shrunk schedule of f with its trace written to
// path (atomically), for a repro directory.
func WriteShrunk(path string, sc *scenario.Scenario, workers int, f *Failure, exec Exec) error {
	if exec == nil {
		exec = sim.Execute
	}
	cfg, err := Resolve(sc, workers)
	if err != nil {
		return err
	}
	return sim.WriteFileAtomic(path, func(w io.Writer) error {
		if f.Decisions != nil {
			return writeDecisions(exec, sc, cfg, f, w)
		}
		_, _, err := execute(exec, sc, cfg, f.Shrunk.Choices, w)
		return err
	})
}

// MaxShrinkTrace bounds the size of a trace ShrinkTrace takes: 8 MiB,
// about 180,000 events, parsed into about 120 MB.
const MaxShrinkTrace = 8 << 20

// ErrTraceTooLong is a trace over MaxShrinkTrace: its run is reported as
// found, not shrunk.
var ErrTraceTooLong = errors.New("the trace is too long to shrink its schedule")

// ShrinkTrace shrinks the failing run recorded in data (the bytes of the
// trace file named file, of any strategy) and writes the shrunk
// schedule's trace to out. o's Failing and Exec decide what failing the
// same way means and how a run is made.
//
// A trace longer than MaxShrinkTrace is not shrunk (ErrTraceTooLong): the
// shrinker holds the parsed trace and its schedule, hundreds of bytes an
// event, and a run at the event limit would take gigabytes.
func ShrinkTrace(file string, data []byte, out string, o Options) (*Failure, error) {
	if len(data) > MaxShrinkTrace {
		return nil, fmt.Errorf("%w: %s is %.1f MB, over the shrinker's bound of %d MB", ErrTraceTooLong, file, float64(len(data))/(1<<20), MaxShrinkTrace>>20)
	}
	f, sc, workers, err := shrinkTraceData(file, data, o)
	if err != nil {
		return nil, err
	}
	return f, WriteShrunk(out, sc, workers, f, o.Exec)
}

func shrinkTraceData(file string, data []byte, o Options) (*Failure, *scenario.Scenario, int, error) {
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Exec == nil {
		o.Exec = sim.Execute
	}
	tr, sc, c, err := sim.LoadTrace(file, data)
	if err != nil {
		return nil, nil, 0, err
	}
	rec, err := sim.ScheduleOf(tr)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	run, err := o.Exec(sc, c, sim.Options{Schedule: rec})
	if err != nil {
		return nil, nil, 0, err
	}
	want := sim.Signature(o.Failing(run))
	if want == "" {
		return nil, nil, 0, fmt.Errorf("%s: the recorded run passes", file)
	}
	f, err := ShrinkRecorded(sc, c.Workers, rec, want, o)
	return f, sc, c.Workers, err
}

// Summary is the report's line for a shrunk schedule written to path.
func (f *Failure) Summary(path string) string {
	return fmt.Sprintf("schedule shrunk: %s -> %s (%d runs)\nreplay it:  cbcsim replay --schedule %s", f.Found.Size(), f.Shrunk.Size(), f.Runs, path)
}
