package sim_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

func runTrace(t interface{ Fatal(...any) }, sc *scenario.Scenario, o sim.Options) (*sim.Run, []byte) {
	var buf bytes.Buffer
	o.Trace = &buf
	c, err := sim.Resolve(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Execute(sc, c, o)
	if err != nil {
		t.Fatal(err)
	}
	return run, buf.Bytes()
}

// A pct run replays byte for byte from its trace alone, by seed and by
// recorded schedule, for any bundled scenario, seed, worker count and
// depth; its header names the strategy and the depth.
func TestPCTReplays(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatal(paths, err)
	}
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.SampledFrom(paths).Draw(t, "scenario")
		sc, err := scenario.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		o := sim.Options{Seed: rapid.Uint64Range(0, 1<<40).Draw(t, "seed"), HasSeed: true,
			Workers: rapid.IntRange(1, 8).Draw(t, "workers"), Strategy: sim.StrategyPCT,
			PCTDepth: rapid.IntRange(1, 5).Draw(t, "depth")}
		_, data := runTrace(t, sc, o)
		if !bytes.Contains(data, []byte("# strategy: pct\n")) {
			t.Fatalf("the header does not name pct")
		}
		for _, schedule := range []bool{false, true} {
			rep, err := sim.Replay(path, data, schedule, 3)
			if err != nil || !rep.Identical {
				t.Fatalf("replay (schedule %v): err %v, line %d: %q vs %q %s", schedule, err, rep.Line, rep.Want, rep.Got, rep.Decision)
			}
		}
	})
}

// A random run's header has no strategy field: traces recorded before
// strategies existed and after are the same.
func TestRandomHeaderUnchanged(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../scenarios/fail_fast.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, data := runTrace(t, sc, sim.Options{Seed: 3, HasSeed: true, Workers: 2})
	if bytes.Contains(data, []byte("# strategy")) || bytes.Contains(data, []byte("# pct_depth")) {
		t.Fatalf("a random trace names its strategy")
	}
}

// pct finds the run-ahead bug of scenarios/bugs within 100 seeds, where
// the random walk does not in 1000.
func TestPCTFindsRunAhead(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../scenarios/bugs/run_ahead_order.toml")
	if err != nil {
		t.Fatal(err)
	}
	first := func(strategy string, seeds uint64) (uint64, bool) {
		for s := uint64(0); s < seeds; s++ {
			o := sim.Options{Seed: s, HasSeed: true, Workers: 2, Strategy: strategy}
			c, err := sim.Resolve(sc, o)
			if err != nil {
				t.Fatal(err)
			}
			run, err := sim.Execute(sc, c, o)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Passed() {
				return s, true
			}
		}
		return 0, false
	}
	if s, ok := first(sim.StrategyPCT, 100); !ok {
		t.Errorf("pct did not find the run-ahead bug in 100 seeds")
	} else {
		t.Logf("pct: first failing seed %d", s)
	}
	if s, ok := first(sim.StrategyRandom, 1000); ok {
		t.Errorf("random found the run-ahead bug at seed %d: the scenario no longer measures what it should", s)
	}
}

func TestStrategyBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		strategy string
		depth    int
		want     string
	}{
		{"dfs", 0, `unknown strategy "dfs"`},
		{"", 3, "pct depth 3 given with strategy random"},
		{"pct", 65, "pct depth 65 out of range 1..64"},
		{"pct", -1, "out of range"},
		{"explore", 0, "cbcsim explore is its own command"},
	}
	for _, c := range cases {
		err := sim.CheckStrategy(c.strategy, c.depth)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckStrategy(%q, %d) = %v, want %q", c.strategy, c.depth, err, c.want)
		}
	}
	if err := sim.CheckStrategy("pct", 0); err != nil {
		t.Errorf("pct with the default depth: %v", err)
	}
}

// replay --strategy may only confirm the header's strategy.
func TestReplayStrategyMustMatch(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load("../scenarios/fail_fast.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, data := runTrace(t, sc, sim.Options{Seed: 3, HasSeed: true, Workers: 2, Strategy: sim.StrategyPCT, PCTDepth: 2})
	if err := sim.CheckTraceStrategy("t.trace", data, "pct", 2); err != nil {
		t.Errorf("the right strategy was refused: %v", err)
	}
	for _, c := range []struct {
		s string
		d int
	}{{"random", 0}, {"pct", 3}, {"pct", 0}} {
		err := sim.CheckTraceStrategy("t.trace", data, c.s, c.d)
		if err == nil || !strings.Contains(err.Error(), "recorded with strategy pct (depth 2)") {
			t.Errorf("%s/%d: %v", c.s, c.d, err)
		}
	}
}
