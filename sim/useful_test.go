package sim_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// usefulChecker is a Chooser that, at every step, compares sim.Useful
// with the workers that are not Idle (what Useful answered before it asked
// WorkQueued once and Vacant of each instead), and then picks among the
// useful ones in turn.
type usefulChecker struct {
	t             *testing.T
	name          string
	useful, slow  []driver.Worker
	steps, picked int
}

func (c *usefulChecker) Choose(step int64, ready []driver.Worker) driver.Worker {
	c.useful = sim.Useful(c.useful[:0], ready)
	c.slow = c.slow[:0]
	for _, w := range ready {
		if !w.Idle() {
			c.slow = append(c.slow, w)
		}
	}
	if !slices.Equal(c.useful, c.slow) {
		c.t.Fatalf("%s step %d: Useful gives %v, the workers not Idle are %v", c.name, step, ids(c.useful), ids(c.slow))
	}
	c.steps++
	if len(c.useful) == 0 {
		return ready[0]
	}
	c.picked++
	return c.useful[c.steps%len(c.useful)]
}

func ids(ws []driver.Worker) []int {
	out := make([]int, len(ws))
	for i, w := range ws {
		out[i] = w.ID()
	}
	return out
}

// Useful leaves out exactly the Idle workers, at every step of every
// bundled scenario on 1 to 8 workers: asking WorkQueued once and Vacant
// of each worker changes no decision of any strategy.
func TestUsefulIsNotIdle(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatal(paths, err)
	}
	for _, path := range paths {
		sc, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3, 8} {
			c, err := sim.Resolve(sc, sim.Options{Seed: 1, HasSeed: true, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			ch := &usefulChecker{t: t, name: fmt.Sprintf("%s on %d workers", filepath.Base(path), workers)}
			if _, err := sim.Execute(sc, c, sim.Options{Chooser: ch}); err != nil {
				t.Fatal(err)
			}
			if ch.picked == 0 {
				t.Fatalf("%s: no step had a useful worker", ch.name)
			}
		}
	}
}

// countingWorker is a worker of a fake scheduler that counts the
// questions asked of it; any other method is nil's and panics.
type countingWorker struct {
	driver.Worker
	id             int
	vacant, queued bool
	asked          *questions
}

type questions struct{ idle, vacant, queued int }

func (w *countingWorker) ID() int { return w.id }

func (w *countingWorker) Idle() bool {
	w.asked.idle++
	return w.vacant && !w.queued
}

func (w *countingWorker) Vacant() bool {
	w.asked.vacant++
	return w.vacant
}

func (w *countingWorker) WorkQueued() bool {
	w.asked.queued++
	return w.queued
}

// Useful, called at every step, asks each worker an O(1) question at
// most and the question that takes a pass over the workers once:
// its cost a step stays linear in the workers. Asking each worker's Idle
// (a pass over the workers each) made a livelock of a million steps at
// 256 workers take 108 s under pct (docs/reliability.md). The count of
// questions is the measure, not the time, so the test is exact.
func TestUsefulLinear(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		busy   []int // the workers that are not vacant
		queued bool
		want   []int
	}{
		{"one busy worker, nothing queued (a main that yields for ever)", []int{0}, false, []int{0}},
		{"one busy worker, work queued", []int{3}, true, nil},
		{"none busy, nothing queued", nil, false, []int{}},
		{"all busy", []int{-1}, false, nil},
	} {
		const workers = 256
		asked := &questions{}
		ready := make([]driver.Worker, workers)
		for i := range ready {
			busy := slices.Contains(c.busy, i) || slices.Contains(c.busy, -1)
			ready[i] = &countingWorker{id: i, vacant: !busy, queued: c.queued, asked: asked}
		}
		got := ids(sim.Useful(nil, ready))
		want := c.want
		if want == nil {
			want = ids(ready)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Useful gives %v, want %v", c.name, got, want)
		}
		if asked.idle != 0 || asked.vacant > workers || asked.queued > 1 {
			t.Errorf("%s: Useful asked Idle %d, Vacant %d and WorkQueued %d times of %d workers: want 0, at most %d, at most 1",
				c.name, asked.idle, asked.vacant, asked.queued, workers, workers)
		}
	}
}
