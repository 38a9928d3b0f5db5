package sim

import (
	"math"
	"sort"
	"sync"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// pctChooser is PCT (Burckhardt et al., ASPLOS 2010) with the tasks as
// PCT's threads: each task gets a random priority when the driver first
// sees it running, and the driver steps the worker whose current task has
// the highest priority. A worker between tasks (its task blocked, yielded
// or ended, and it has work to take) goes first: taking a task runs no
// task code, and the task it takes then competes by its own priority. A
// decision is a step at which more than one worker has something to do;
// idle workers' looks for work are not decisions and consume no change
// point. At each of the D-1 change points the task the previous step ran
// (or took) drops below every other. When no worker has anything to do, the
// lowest-numbered unparked worker takes its idle step (it parks) without
// a draw.
type pctChooser struct {
	rng       *driver.Xoshiro
	prio      map[uint64]int64 // by task id, for ids from denseMax on; looked up, never iterated
	dense     []pctPrio        // by task id under denseMax
	low       int64            // the priority the next lowered task gets
	changes   []int64          // decision indices at which the last task is lowered, ascending
	decisions int64
	prevW     driver.Worker // the worker of the previous step
	prevT     *sched.Task   // its task before that step, nil if it was between tasks
	prevY     int64         // prevT's yields before that step (Yields)
	useful    []driver.Worker
}

// pctSeed derives the strategy's PRNG seed from the run seed, apart from
// the random walk's and the workers' victim draws.
func pctSeed(seed uint64) uint64 {
	s := seed ^ 0x7063745f73656564 // "pct_seed"
	return driver.SplitMix64(&s)
}

// newPCTChooser draws the change points: d-1 distinct decisions in
// [1, length), length being the working steps of a probe run.
func newPCTChooser(c Config, length int64) *pctChooser {
	rng := driver.NewXoshiro(pctSeed(c.Seed))
	p := &pctChooser{rng: rng, prio: map[uint64]int64{}, low: -1}
	n := min(int64(c.PCTDepth-1), length-1)
	seen := map[int64]bool{}
	for int64(len(p.changes)) < n {
		k := 1 + int64(rng.Intn(int(length-1)))
		if !seen[k] {
			seen[k] = true
			p.changes = append(p.changes, k)
		}
	}
	sort.Slice(p.changes, func(i, j int) bool { return p.changes[i] < p.changes[j] })
	return p
}

// pctPrio is a task's priority in pctChooser.dense; set is false until
// the task has one.
type pctPrio struct {
	r   int64
	set bool
}

// rank is w's priority: its current task's, or the highest when it is
// between tasks.
func (p *pctChooser) rank(w driver.Worker) int64 {
	id := w.CurrentID()
	if id == 0 {
		return math.MaxInt64
	}
	r, ok := p.get(id)
	if !ok {
		r = int64(p.rng.Uint64() >> 2) // distinct from every other with overwhelming odds; ties go to the lower worker
		p.set(id, r)
	}
	return r
}

// get is task id's priority, if it has one. The seeded scheduler's task
// ids are small, so most are found in a slice: the map lookup of every
// useful worker's task at every step was a fifth of a step under pct
// (docs/performance.md#the-seeded-step).
func (p *pctChooser) get(id uint64) (int64, bool) {
	if id < uint64(len(p.dense)) {
		d := p.dense[id]
		return d.r, d.set
	}
	r, ok := p.prio[id]
	return r, ok
}

// set gives task id the priority r.
func (p *pctChooser) set(id uint64, r int64) {
	if id >= denseMax {
		p.prio[id] = r
		return
	}
	for uint64(len(p.dense)) <= id {
		p.dense = append(p.dense, pctPrio{})
	}
	p.dense[id] = pctPrio{r: r, set: true}
}

func (p *pctChooser) pick(_ int64, ready []driver.Worker) (driver.Worker, error) {
	if Yielded(p.prevW, p.prevT, p.prevY) {
		// As Shuttle does: a task that yields drops below every other, or
		// a task spinning on yields while it waits for a lower one would
		// starve it for ever (explicit_cancel's spinner).
		p.set(p.prevT.ID(), p.low)
		p.low--
	}
	p.useful = Useful(p.useful[:0], ready)
	if len(p.useful) == 0 {
		p.prevW, p.prevT = ready[0], nil
		return ready[0], nil
	}
	if len(p.useful) > 1 {
		if len(p.changes) > 0 && p.changes[0] == p.decisions {
			// The task the previous step ran, or the one it took.
			if t := p.lastTask(); t != 0 {
				p.set(t, p.low)
				p.low--
			}
			p.changes = p.changes[1:]
		}
		p.decisions++
	}
	best, bestRank := p.useful[0], p.rank(p.useful[0])
	for _, w := range p.useful[1:] {
		if r := p.rank(w); r > bestRank {
			best, bestRank = w, r
		}
	}
	p.prevW, p.prevT = best, best.Current()
	p.prevY = Yields(p.prevT)
	return best, nil
}

// lastTask is the id of the task the previous step ran, or, when that
// step took a task, of the task it took; 0 if none.
func (p *pctChooser) lastTask() uint64 {
	switch {
	case p.prevT != nil:
		return p.prevT.ID()
	case p.prevW != nil:
		return p.prevW.CurrentID()
	}
	return 0
}

func (*pctChooser) done(int64) error { return nil }

func (*pctChooser) inTask() bool { return true }

// pctProbe is the probe run's chooser: the lowest-numbered useful worker
// acts. It counts the steps that did something (steps with a useful
// worker), not the decisions: a run that keeps one worker busy has few
// decisions, while the runs PCT is after, with every worker busy, have
// about as many decisions as the work has steps. The work's steps are
// nearly the same under every schedule, so they bound the decisions of
// any run, as PCT's k wants.
type pctProbe struct {
	steps  int64
	useful []driver.Worker
}

func (p *pctProbe) Choose(_ int64, ready []driver.Worker) driver.Worker {
	p.useful = Useful(p.useful[:0], ready)
	if len(p.useful) == 0 {
		return ready[0]
	}
	p.steps++
	return p.useful[0]
}

// pctLength is the number of decisions PCT draws its change points from:
// the working steps of one probe run of the scenario under the same
// configuration, with fixed priorities and no change points. As Shuttle
// does with its first iteration, the probe learns the run's length
// instead of asking the user for it; unlike Shuttle, every run repeats
// the same probe (cached), so a seed alone reproduces a run. The length
// is at least 2 so that a change point can always be drawn.
func pctLength(sc *scenario.Scenario, c Config) int64 {
	key := pctKey{sha: sc.SHA256, workers: c.Workers, victim: c.Victim, profile: c.Profile,
		yield: c.YieldInterval, maxSteps: c.MaxSteps, mode: c.Mode}
	pctCache.mu.Lock()
	n, ok := pctCache.m[key]
	pctCache.mu.Unlock()
	if ok {
		return n
	}
	pc := c
	pc.Seed, pc.Strategy, pc.PCTDepth = 0, StrategyExplore, 0
	probe := &pctProbe{}
	if _, err := Execute(sc, pc, Options{Chooser: probe}); err != nil {
		// The real run will meet and report the same error.
		return 2
	}
	n = max(probe.steps, 2)
	pctCache.mu.Lock()
	if len(pctCache.m) >= pctCacheMax {
		clear(pctCache.m) // a bound on memory; entries are recomputed exactly
	}
	pctCache.m[key] = n
	pctCache.mu.Unlock()
	return n
}

type pctKey struct {
	sha      string
	workers  int
	victim   sched.Victim
	profile  sched.Profile
	yield    int
	maxSteps int64
	mode     Mode // seeded-v2 runs another scheduler, so another length
}

const pctCacheMax = 4096

var pctCache = struct {
	mu sync.Mutex
	m  map[pctKey]int64
}{m: map[pctKey]int64{}}
