package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/trace"
)

// Schedule is the list of decisions a recorded run made: for every step,
// the worker the driver chose, the victims of its steal attempts and its
// policy decisions.
// Driving a run from a Schedule instead of the PRNG keeps a trace
// replayable after the generator or its seeding changes.
type Schedule struct {
	Steps []StepDecision
}

// StepDecision is what was decided at one step.
type StepDecision struct {
	Actor   int   // the worker that acted
	Victims []int // its steal victims, in attempt order
	// Decisions are its policy decisions, in order (decide events).
	Decisions []PolicyDecision
	Line      int // the trace line of the step's first event
}

// PolicyDecision is one recorded policy decision: which, and its answer.
type PolicyDecision struct {
	Decision driver.Decision
	Yes      bool
}

// ScheduleOf extracts the decisions from a parsed trace.
func ScheduleOf(t *trace.Trace) (*Schedule, error) {
	s := &Schedule{}
	for i := range t.Events {
		if err := s.add(&t.Events[i], t.Lines[i]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// add takes the decision one event records (at line of the trace).
func (s *Schedule) add(e *trace.Event, line int) error {
	if e.Actor == "sim" {
		return nil
	}
	w, err := workerIndex(e.Actor)
	if err != nil {
		return fmt.Errorf("line %d: %v", line, err)
	}
	if e.Step > uint64(len(s.Steps)) {
		// Checked here, not at the end: a step number far ahead must not
		// allocate a decision for every step it skips.
		return fmt.Errorf("line %d: an event at step %d, but step %d has no events", line, e.Step, len(s.Steps))
	}
	if e.Step == uint64(len(s.Steps)) {
		s.Steps = append(s.Steps, StepDecision{Actor: w, Line: line})
	}
	d := &s.Steps[e.Step]
	if d.Actor != w {
		return fmt.Errorf("line %d: step %d has two actors, w%d and w%d", line, e.Step, d.Actor, w)
	}
	if e.Kind == trace.KindDecide {
		pd, err := policyDecisionOf(e)
		if err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		d.Decisions = append(d.Decisions, pd)
		return nil
	}
	if e.Kind == trace.KindSteal && hasField(e, trace.KeySlot) {
		return nil // a next slot's task, taken on a policy decision: no victim drawn
	}
	if e.Kind == trace.KindSteal || e.Kind == trace.KindStealFail {
		f, ok := field(e, "victim")
		if !ok || !f.IsInt {
			return fmt.Errorf("line %d: %s without an integer victim", line, e.Kind)
		}
		d.Victims = append(d.Victims, int(f.Int))
	}
	return nil
}

// policyDecisionOf reads a decide event: its first field names the
// decision, its value yes or no.
func policyDecisionOf(e *trace.Event) (PolicyDecision, error) {
	if len(e.Fields) == 0 || e.Fields[0].IsInt {
		return PolicyDecision{}, fmt.Errorf("decide without a decision")
	}
	f := e.Fields[0]
	d, ok := driver.ParseDecision(f.Key)
	if !ok {
		return PolicyDecision{}, fmt.Errorf("decide: unknown decision %q", f.Key)
	}
	if f.Str != "yes" && f.Str != "no" {
		return PolicyDecision{}, fmt.Errorf("decide: %s=%q, want yes or no", f.Key, f.Str)
	}
	return PolicyDecision{Decision: d, Yes: f.Str == "yes"}, nil
}

// hasField reports whether e has a field named key.
func hasField(e *trace.Event, key string) bool {
	_, ok := field(e, key)
	return ok
}

func workerIndex(actor string) (int, error) {
	if !strings.HasPrefix(actor, "w") {
		return 0, fmt.Errorf("unknown actor %q", actor)
	}
	n, err := strconv.Atoi(actor[1:])
	if err != nil || n < 0 || n >= sched.WorkersMax {
		return 0, fmt.Errorf("unknown actor %q", actor)
	}
	return n, nil
}

// chooser decides which worker acts at each step.
type chooser interface {
	// pick returns the worker for step among the unparked ones, or an
	// error when a recorded decision cannot be applied.
	pick(step int64, ready []driver.Worker) (driver.Worker, error)
	// done checks, after the step, that the step used exactly its
	// recorded decisions.
	done(step int64) error
	// inTask reports whether pick and done may run on a task's fiber,
	// between two steps decided inside the task (sink.NextStep).
	inTask() bool
}

// randomChooser is the seeded driver: one Xoshiro256** draw per step.
type randomChooser struct{ rng *driver.Xoshiro }

func (c *randomChooser) pick(_ int64, ready []driver.Worker) (driver.Worker, error) {
	return ready[c.rng.Intn(len(ready))], nil
}

func (c *randomChooser) done(int64) error { return nil }

func (*randomChooser) inTask() bool { return true }

// scheduleChooser replays recorded decisions. It is also the scheduler's
// VictimSource during the replay.
type scheduleChooser struct {
	s       *Schedule
	workers int
	step    int64
	next    int   // next victim index within the step
	nextD   int   // next policy decision within the step
	err     error // the first decision that did not apply
}

func (c *scheduleChooser) pick(step int64, ready []driver.Worker) (driver.Worker, error) {
	if step >= int64(len(c.s.Steps)) {
		return nil, fmt.Errorf("step %d: the recorded run had ended, this one goes on", step)
	}
	d := c.s.Steps[step]
	c.step, c.next, c.nextD = step, 0, 0
	if d.Actor >= c.workers {
		return nil, fmt.Errorf("step %d (line %d): recorded worker w%d does not exist with %d workers", step, d.Line, d.Actor, c.workers)
	}
	for _, w := range ready {
		if w.ID() == d.Actor {
			return w, nil
		}
	}
	return nil, fmt.Errorf("step %d (line %d): recorded decision w%d does not apply: w%d is parked (no work) in this run", step, d.Line, d.Actor, d.Actor)
}

// NextVictim implements driver.VictimSource.
func (c *scheduleChooser) NextVictim(w int) int {
	d := c.s.Steps[c.step]
	if c.next >= len(d.Victims) {
		if c.err == nil {
			c.err = fmt.Errorf("step %d (line %d): w%d makes steal attempt %d, the recorded run made %d", c.step, d.Line, w, c.next+1, len(d.Victims))
		}
		return (w + 1) % c.workers
	}
	v := d.Victims[c.next]
	c.next++
	if v == w || v < 0 || v >= c.workers {
		if c.err == nil {
			c.err = fmt.Errorf("step %d (line %d): recorded victim w%d does not apply to w%d", c.step, d.Line, v, w)
		}
		return (w + 1) % c.workers
	}
	return v
}

// Decide implements driver.DecisionSource: the step's next recorded
// policy decision, which must be of the same kind.
func (c *scheduleChooser) Decide(w int, d driver.Decision) bool {
	sd := c.s.Steps[c.step]
	if c.nextD >= len(sd.Decisions) {
		if c.err == nil {
			c.err = fmt.Errorf("step %d (line %d): w%d makes %s decision %d, the recorded run made %d", c.step, sd.Line, w, d, c.nextD+1, len(sd.Decisions))
		}
		return false
	}
	pd := sd.Decisions[c.nextD]
	c.nextD++
	if pd.Decision != d && c.err == nil {
		c.err = fmt.Errorf("step %d (line %d): w%d decides %s, the recorded run decided %s", c.step, sd.Line, w, d, pd.Decision)
	}
	return pd.Yes
}

func (*scheduleChooser) inTask() bool { return true }

func (c *scheduleChooser) done(step int64) error {
	if c.err != nil {
		return c.err
	}
	d := c.s.Steps[step]
	if c.next != len(d.Victims) {
		return fmt.Errorf("step %d (line %d): the recorded run made %d steal attempts, this one %d", step, d.Line, len(d.Victims), c.next)
	}
	if c.nextD != len(d.Decisions) {
		return fmt.Errorf("step %d (line %d): the recorded run made %d policy decisions, this one %d", step, d.Line, len(d.Decisions), c.nextD)
	}
	return nil
}
