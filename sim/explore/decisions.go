package explore

import (
	"io"
	"slices"

	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// follower steers a run along recorded decisions (a sim.Schedule's steps)
// as far as each one applies, and by a default where it does not: the
// worker that acted last if it can do something, else the first that
// can, else the first ready one (an idle look). A recorded steal victim
// that does not apply (the thief itself, a worker that does not exist, a
// steal attempt the recording did not make) is replaced by the first other
// worker with a queued task, else the next worker. Past the recorded
// steps every step is the default, so a shortened list ends the run with
// no preemption more. It notes the decisions the run took, which replay
// it exactly, and counts its preemptions as the converter does.
//
// The explorer's chooser cannot express every recorded run (it takes no
// idle look while a worker has work, and its fairness and symmetry rules
// leave other steps out); the follower can, which is what lets
// shrinkDecisions shrink such a run.
type follower struct {
	steps   []sim.StepDecision
	workers int
	step    int64
	next    int // next victim index within the step
	nextD   int // next policy decision within the step
	ready   []driver.Worker
	prev    driver.Worker
	pre     int
	taken   []sim.StepDecision
}

func newFollower(steps []sim.StepDecision, workers int) *follower {
	return &follower{steps: steps, workers: workers, taken: make([]sim.StepDecision, 0, len(steps))}
}

// Choose implements sim.Chooser.
func (f *follower) Choose(step int64, ready []driver.Worker) driver.Worker {
	f.step, f.next, f.nextD = step, 0, 0
	f.ready = append(f.ready[:0], ready...)
	var w driver.Worker
	if step < int64(len(f.steps)) {
		actor := f.steps[step].Actor
		for _, r := range ready {
			if r.ID() == actor {
				w = r
			}
		}
	}
	if w == nil {
		w = f.fallback(ready)
	}
	if f.prev != nil && f.prev != w && f.prev.Running() {
		f.pre++
	}
	f.prev = w
	f.taken = append(f.taken, sim.StepDecision{Actor: w.ID()})
	return w
}

// fallback is the default actor: the last one if it can do something,
// else the first that can, else the first ready one.
func (f *follower) fallback(ready []driver.Worker) driver.Worker {
	if f.prev != nil && !f.prev.Idle() && slices.Contains(ready, f.prev) {
		return f.prev
	}
	for _, r := range ready {
		if !r.Idle() {
			return r
		}
	}
	return ready[0]
}

// NextVictim implements driver.VictimSource.
func (f *follower) NextVictim(w int) int {
	v := -1
	if f.step < int64(len(f.steps)) {
		if d := f.steps[f.step]; f.next < len(d.Victims) {
			v = d.Victims[f.next]
		}
	}
	f.next++
	if v == w || v < 0 || v >= f.workers {
		v = (w + 1) % f.workers
		for _, r := range f.ready {
			if r.ID() != w && r.QueueLen() > 0 {
				v = r.ID()
				break
			}
		}
	}
	t := &f.taken[len(f.taken)-1]
	t.Victims = append(t.Victims, v)
	return v
}

// Decide implements driver.DecisionSource: the recorded decision when the
// step has one of this kind at this place, else real mode's answer, yes
// (which costs no preemption).
func (f *follower) Decide(_ int, d driver.Decision) bool {
	yes := true
	if f.step < int64(len(f.steps)) {
		if ds := f.steps[f.step].Decisions; f.nextD < len(ds) && ds[f.nextD].Decision == d {
			yes = ds[f.nextD].Yes
		}
	}
	f.nextD++
	if !yes {
		f.pre++
	}
	t := &f.taken[len(f.taken)-1]
	t.Decisions = append(t.Decisions, sim.PolicyDecision{Decision: d, Yes: yes})
	return yes
}

// shrinkDecisions minimises a recorded failing run in the space of its
// own decisions, for a run the explorer's choices cannot express (shrink
// found neither its conversion nor a schedule up to searchBoundMax
// preemptions failing the same way). It keeps f.Signature, and orders
// candidates as shrink does: fewer preemptions, then fewer steps. At each
// switch of actor in the best run so far, from the last to the first, it
// tries three edits of the decisions (editDecisions); a better candidate
// becomes the best and the walk goes on from the same place in it. The
// walks repeat until one improves nothing or the shrink's runs run out.
// The result is f.Shrunk with f.Decisions, the shrunk run's decisions;
// f.Run stays nil when even the recorded decisions, followed, do not
// fail the same way.
func (sh *shrinker) shrinkDecisions(rec *sim.Schedule, f *Failure) error {
	best, err := sh.tryDecisions(rec.Steps)
	if err != nil || best == nil {
		return err
	}
	for improved := true; improved && sh.runs < shrinkRunsMax; {
		improved = false
		for k := len(best.decisions) - 1; k > 0 && sh.runs < shrinkRunsMax; k-- {
			steps := best.decisions
			if k >= len(steps) || steps[k].Actor == steps[k-1].Actor {
				continue
			}
			for edit := range editKinds {
				c, err := sh.tryDecisions(editDecisions(steps, k, edit))
				if err != nil {
					return err
				}
				if c != nil && c.better(&best.candidate) {
					best, improved = c, true
					break
				}
			}
		}
	}
	f.Shrunk, f.Run, f.Runs = best.s, best.run, sh.runs
	f.Decisions = &sim.Schedule{Steps: best.decisions}
	return nil
}

// decided is a candidate of shrinkDecisions: a run and the decisions that
// replay it.
type decided struct {
	candidate
	decisions []sim.StepDecision
}

// tryDecisions runs the recorded decisions steps as the follower applies
// them; nil when the run does not fail the same way.
func (sh *shrinker) tryDecisions(steps []sim.StepDecision) (*decided, error) {
	sh.runs++
	fol := newFollower(steps, sh.cfg.Workers)
	run, err := sh.exec(sh.sc, sh.cfg, sim.Options{Chooser: fol})
	if err != nil || sim.Signature(sh.failing(run)) != sh.sig {
		return nil, err
	}
	return &decided{candidate: candidate{s: Schedule{Preemptions: fol.pre, Steps: run.Steps}, run: run}, decisions: fol.taken}, nil
}

// The edits shrinkDecisions tries at a switch of actor, at index k.
const (
	editCut   = iota // the decisions up to k only: the defaults from then on
	editMerge        // the steps from k to the next switch given to the actor before k: a switch fewer
	editDrop         // those steps dropped
	editKinds
)

// editDecisions returns a new list: steps with the edit made at the
// switch at index k.
func editDecisions(steps []sim.StepDecision, k, edit int) []sim.StepDecision {
	end := k + 1
	for end < len(steps) && steps[end].Actor == steps[k].Actor {
		end++
	}
	switch edit {
	case editCut:
		return slices.Clone(steps[:k])
	case editMerge:
		out := slices.Clone(steps)
		for i := k; i < end; i++ {
			out[i] = sim.StepDecision{Actor: steps[k-1].Actor, Victims: steps[i].Victims}
		}
		return out
	}
	return slices.Concat(steps[:k], steps[end:])
}

// writeDecisions runs f's decisions (shrinkDecisions) with the trace
// written to tw.
func writeDecisions(exec Exec, sc *scenario.Scenario, cfg sim.Config, f *Failure, tw io.Writer) error {
	_, err := exec(sc, cfg, sim.Options{Chooser: newFollower(f.Decisions.Steps, cfg.Workers), Trace: tw})
	return err
}
