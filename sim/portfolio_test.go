package sim_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// The portfolio runs seed s under arm s mod 5, records that arm in the
// header (a random arm writes no field, as any random run), and every
// run replays from its trace alone, by seed and by schedule.
func TestPortfolioArmsRecordedAndReplay(t *testing.T) {
	t.Parallel()
	path := "../scenarios/bugs/lock_order.toml"
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(0); seed < uint64(2*len(sim.Portfolio)); seed++ {
		arm := sim.PortfolioArm(seed)
		if arm != sim.Portfolio[seed%5] {
			t.Fatalf("seed %d: arm %v", seed, arm)
		}
		o := sim.Options{Seed: seed, HasSeed: true, Workers: 2, Strategy: sim.StrategyPortfolio}
		c, err := sim.Resolve(sc, o)
		if err != nil {
			t.Fatal(err)
		}
		if c.Strategy != arm.Strategy || c.PCTDepth != arm.PCTDepth || !c.Portfolio {
			t.Fatalf("seed %d: resolved %s depth %d portfolio %v, want arm %v", seed, c.Strategy, c.PCTDepth, c.Portfolio, arm)
		}
		_, data := runTrace(t, sc, o)
		want := fmt.Sprintf("# strategy: pct\n# pct_depth: %d\n", arm.PCTDepth)
		if arm.Strategy == sim.StrategyRandom {
			want = ""
		}
		if want != "" && !bytes.Contains(data, []byte(want)) || want == "" && bytes.Contains(data, []byte("# strategy")) {
			t.Fatalf("seed %d: the header does not record arm %v", seed, arm)
		}
		for _, schedule := range []bool{false, true} {
			rep, err := sim.Replay(path, data, schedule, 3)
			if err != nil || !rep.Identical {
				t.Fatalf("seed %d replay (schedule %v): err %v, line %d: %q vs %q", seed, schedule, err, rep.Line, rep.Want, rep.Got)
			}
		}
	}
}

// A depth beside the portfolio is refused: the seed chooses it.
func TestPortfolioRefusesDepth(t *testing.T) {
	if err := sim.CheckStrategy(sim.StrategyPortfolio, 3); err == nil {
		t.Fatal("portfolio with a pct depth accepted")
	}
	if err := sim.CheckStrategy(sim.StrategyPortfolio, 0); err != nil {
		t.Fatal(err)
	}
}

// replay --strategy portfolio confirms a trace whose strategy is its seed's
// arm, and refuses one whose strategy is not.
func TestReplayConfirmsPortfolio(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../scenarios/fail_fast.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, data := runTrace(t, sc, sim.Options{Seed: 4, HasSeed: true, Workers: 2, Strategy: sim.StrategyPortfolio})
	if err := sim.CheckTraceStrategy("a.trace", data, sim.StrategyPortfolio, 0); err != nil {
		t.Errorf("the portfolio's own trace: %v", err)
	}
	_, data = runTrace(t, sc, sim.Options{Seed: 4, HasSeed: true, Workers: 2, Strategy: sim.StrategyRandom})
	if err := sim.CheckTraceStrategy("b.trace", data, sim.StrategyPortfolio, 0); err == nil {
		t.Error("a random trace of seed 4 (whose arm is pct 8) confirmed as the portfolio's")
	}
}
