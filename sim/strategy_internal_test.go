package sim

import (
	"path/filepath"
	"testing"

	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// checkedPCT drives a run with pct and checks every choice: an idle
// worker acts only when no worker has anything to do, and only the
// lowest-numbered unparked one.
type checkedPCT struct {
	t      *testing.T
	p      *pctChooser
	idle   int
	useful []driver.Worker
}

func (c *checkedPCT) Choose(step int64, ready []driver.Worker) driver.Worker {
	c.useful = Useful(c.useful[:0], ready)
	decisionsBefore := c.p.decisions
	w, _ := c.p.pick(step, ready)
	if w.Idle() {
		c.idle++
		if len(c.useful) > 0 || w != ready[0] {
			c.t.Fatalf("step %d: idle w%d chosen while %d workers had something to do", step, w.ID(), len(c.useful))
		}
		if c.p.decisions != decisionsBefore {
			c.t.Fatalf("step %d: an idle look counted as a decision", step)
		}
	}
	return w
}

func TestPCTIdleLooksAreNotDecisions(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../scenarios/*.toml")
	idle := 0
	for _, path := range paths {
		sc, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 4} {
			for seed := uint64(0); seed < 5; seed++ {
				c, err := Resolve(sc, Options{Seed: seed, HasSeed: true, Workers: workers, Strategy: StrategyPCT})
				if err != nil {
					t.Fatal(err)
				}
				ch := &checkedPCT{t: t, p: newPCTChooser(c, pctLength(sc, c))}
				if _, err := Execute(sc, c, Options{Chooser: ch}); err != nil {
					t.Fatal(err)
				}
				idle += ch.idle
			}
		}
	}
	if idle == 0 {
		t.Fatalf("no idle step at all: the check above checked nothing")
	}
}
