package explore

import (
	"slices"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim"
)

// point is one decision of a run. Its fields are ordered to make it 32
// bytes: a run reaching the step bound has 100,000 points or more, and a
// search holds a batch of runs' points (TestPointSize).
type point struct {
	options []uint8 // worker ids, ascending; read-only, often shared (noYes, optionSet)
	pre     int32   // preemptions before this point (at most PreemptionsMax)
	// last is the worker a switch away from costs a preemption: the
	// previous step's worker when it is in the middle of a task, else -1
	// (its task blocked, yielded or ended: a free switch, as in CHESS).
	last   int16
	victim bool  // a steal victim, not the acting worker
	chosen uint8 // the worker id taken
}

// cost is the preemption a choice of o at p costs: 1 when it switches
// away from a worker in the middle of a task.
func (p *point) cost(o uint8) int {
	if !p.victim && p.last >= 0 && int(o) != int(p.last) {
		return 1
	}
	return 0
}

// chooser steers one run: at point i it takes prefix[i], past the prefix
// the default (the last worker while it is in the middle of a task, else
// the lowest-numbered candidate; the lowest-numbered victim with
// something to steal). It records every point.
type chooser struct {
	prefix  []uint8
	points  []point
	workers int
	prev    int // the worker of the previous step, -1 before the first
	prevW   driver.Worker
	prevT   *sched.Task // prevW's task before the previous step
	prevY   int64       // prevT's yields then (sim.Yields)
	pre     int
	useful  []driver.Worker
	ready   []driver.Worker // the last step's unparked workers
	fair    fairness
}

// fairness is the fairness rule of CHESS's fair search, applied to the
// useful workers of each step: a task that yields lets every task then in
// the middle of a run go first. Without it every spin on yields (a task
// polling for another's progress) has a schedule that starves the other
// for ever, a livelock no real scheduler produces. The yielded task may be
// picked up again by its worker or, through the global queue, by any
// worker without a task, so while a worker is owed its turn neither of
// those is a candidate; a worker in the middle of a task of its own still
// is. The chooser and the converter of recorded schedules apply the same
// rule, so that a converted schedule's choices are the chooser's.
type fairness struct {
	// owed are the workers that were in the middle of a task when
	// another task last yielded, and have not acted since.
	owed []driver.Worker
}

// apply returns useful without the workers the rule holds back this step;
// prevW acted on the previous step, in the middle of task prevT, which
// had yielded prevY times before it.
func (f *fairness) apply(useful []driver.Worker, prevW driver.Worker, prevT *sched.Task, prevY int64) []driver.Worker {
	if prevW != nil && sim.Yielded(prevW, prevT, prevY) {
		f.owed = f.owed[:0]
		for _, w := range useful {
			if w != prevW && w.Running() {
				f.owed = append(f.owed, w)
			}
		}
		if len(f.owed) == 0 && len(useful) > 1 {
			// Nobody is in the middle of a task: the yielder's worker
			// lets a worker without one look for other work first.
			return slices.DeleteFunc(useful, func(w driver.Worker) bool { return w == prevW })
		}
	}
	f.owed = slices.DeleteFunc(f.owed, func(w driver.Worker) bool { return !w.Running() || !slices.Contains(useful, w) })
	if len(f.owed) == 0 {
		return useful
	}
	return slices.DeleteFunc(useful, func(w driver.Worker) bool {
		return !w.Running() || w == prevW && !slices.Contains(f.owed, w)
	})
}

// acted records that w acted: if it was owed a turn, it has had it.
func (f *fairness) acted(w driver.Worker) {
	f.owed = slices.DeleteFunc(f.owed, func(o driver.Worker) bool { return o == w })
}

func newChooser(prefix []uint8, workers int) *chooser {
	return &chooser{prefix: prefix, workers: workers, prev: -1}
}

// detach drops what a finished run's chooser holds of the run: the
// workers (prevW, useful, ready, the fairness rule's owed) and a task
// (prevT) reach its scheduler, its tasks and its sink with the trace
// buffer, tens of megabytes for a run that reaches the step bound. A
// search keeps a batch of choosers (64) until it folds them, and needs
// only their points; holding the runs made the GoKer table's explore
// column peak at 3.2 GB (docs/explore.md#memory).
func (c *chooser) detach() {
	c.prevW, c.prevT = nil, nil
	c.useful, c.ready, c.fair.owed = nil, nil, nil
}

// shared option lists, read-only: a policy decision's no and yes, and the
// worker sets of up to 8 workers by bit mask, so that a point does not
// allocate its options (a run of 100,000 steps has as many points or more).
var (
	noYes     = []uint8{0, 1}
	optionSet = func() (sets [256][]uint8) {
		for m := range sets {
			for id := 0; id < 8; id++ {
				if m&(1<<id) != 0 {
					sets[m] = append(sets[m], uint8(id))
				}
			}
		}
		return sets
	}()
)

// usefulOptions are the ids of c.useful, ascending, as a shared list when
// every id is below 8.
func (c *chooser) usefulOptions() []uint8 {
	mask, ascending := 0, true
	for i, w := range c.useful {
		id := w.ID()
		if id >= 8 || i > 0 && id <= int(c.useful[i-1].ID()) {
			ascending = false
			break
		}
		mask |= 1 << id
	}
	if ascending {
		return optionSet[mask]
	}
	opts := make([]uint8, len(c.useful))
	for i, w := range c.useful {
		opts[i] = uint8(w.ID())
	}
	return opts
}

// Choose implements sim.Chooser.
func (c *chooser) Choose(_ int64, ready []driver.Worker) driver.Worker {
	c.ready = append(c.ready[:0], ready...)
	c.useful = sim.Useful(c.useful[:0], ready)
	c.useful = c.fair.apply(c.useful, c.prevW, c.prevT, c.prevY)
	c.useful = dropTwins(c.useful)
	if len(c.useful) == 0 {
		// Nobody has anything to do: the lowest-numbered idle worker
		// looks for work and parks. Not a decision.
		c.prevW, c.prevT = ready[0], nil
		return ready[0]
	}
	if len(c.useful) == 1 {
		// One candidate: not a decision.
		w := c.useful[0]
		c.fair.acted(w)
		c.prev, c.prevW, c.prevT = w.ID(), w, w.Current()
		c.prevY = sim.Yields(c.prevT)
		return w
	}
	p := point{last: -1, pre: int32(c.pre), options: c.usefulOptions()}
	for _, w := range c.useful {
		if w.ID() == c.prev && w.Running() {
			p.last = int16(c.prev)
		}
	}
	p.chosen = c.pick(&p)
	c.pre += p.cost(p.chosen)
	c.points = append(c.points, p)
	c.prev = int(p.chosen)
	for _, w := range c.useful {
		if w.ID() == int(p.chosen) {
			c.prevW, c.prevT = w, w.Current()
			c.prevY = sim.Yields(c.prevT)
			c.fair.acted(w)
			return w
		}
	}
	panic("explore: Choose: chosen worker is not useful")
}

// pick returns the prefix's choice at the next point if there is one and
// it applies, else the default.
func (c *chooser) pick(p *point) uint8 {
	if i := len(c.points); i < len(c.prefix) {
		for _, o := range p.options {
			if o == c.prefix[i] {
				return o
			}
		}
		// Not an option here: the run left the path the prefix was
		// recorded on; the default takes over.
	}
	if p.last >= 0 {
		return uint8(p.last)
	}
	return p.options[0]
}

// NextVictim implements driver.VictimSource: only the workers with
// something to steal are options. A parked worker's deque is empty (it
// parked because it found nothing, and only its own tasks push onto it),
// so the last step's unparked workers are the candidates.
func (c *chooser) NextVictim(w int) int {
	var opts []uint8
	for _, v := range c.ready {
		if v.ID() != w && v.QueueLen() > 0 {
			opts = append(opts, uint8(v.ID()))
		}
	}
	switch len(opts) {
	case 0:
		return (w + 1) % c.workers // the attempt fails whichever it is
	case 1:
		return int(opts[0])
	}
	p := point{victim: true, options: opts, last: -1, pre: int32(c.pre)}
	p.chosen = c.pick(&p)
	c.points = append(c.points, p)
	return int(p.chosen)
}

// Decide implements driver.DecisionSource: a policy decision is a point
// with the options no (0) and yes (1), whose default is yes, real mode's
// answer; taking no costs a preemption, as switching away from a running
// worker does, so that the preemption bound bounds the policy
// deviations too.
func (c *chooser) Decide(_ int, _ driver.Decision) bool {
	p := point{options: noYes, last: 1, pre: int32(c.pre)}
	p.chosen = c.pick(&p)
	c.pre += p.cost(p.chosen)
	c.points = append(c.points, p)
	return p.chosen == 1
}

// choices is the list of choices taken at the points of a run.
func (c *chooser) choices() []uint8 {
	out := make([]uint8, len(c.points))
	for i, p := range c.points {
		out[i] = p.chosen
	}
	return out
}

// dropTwins keeps, of the blank workers in useful (no current task, an
// empty deque: they could only take work from the global queue or a
// victim), only the lowest-numbered. Blank workers differ in nothing a task
// can observe, only in their ids, so the schedules that start with one or
// another are the same up to renaming the workers: symmetry reduction.
// Without it, k blank workers multiply every free choice by k.
func dropTwins(useful []driver.Worker) []driver.Worker {
	seen := false
	return slices.DeleteFunc(useful, func(w driver.Worker) bool {
		if w.Running() || w.QueueLen() > 0 {
			return false
		}
		if seen {
			return true
		}
		seen = true
		return false
	})
}
