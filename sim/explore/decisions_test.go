package explore

import (
	"bytes"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// recordedFailure runs sc from seed under strategy on workers and
// returns its recorded decisions and failure signature ("" if it passed).
func recordedFailure(t testing.TB, sc *scenario.Scenario, seed uint64, workers int, strategy string) (*sim.Schedule, string) {
	run, rec := recordRun(t, sc, seed, workers, strategy)
	return rec, sim.Signature(FailedChecks(run))
}

// recordRun runs sc from seed under strategy on workers, with its trace,
// and returns the run and the decisions its trace recorded.
func recordRun(t testing.TB, sc *scenario.Scenario, seed uint64, workers int, strategy string) (*sim.Run, *sim.Schedule) {
	t.Helper()
	o := sim.Options{Seed: seed, HasSeed: true, Workers: workers, Strategy: strategy}
	c, err := sim.Resolve(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	o.Trace = &buf
	run, err := sim.Execute(sc, c, o)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, _, err := sim.LoadTrace("run.trace", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sim.ScheduleOf(tr)
	if err != nil {
		t.Fatal(err)
	}
	return run, rec
}

// Shrinking a recorded run in the space of its own decisions, whatever
// the seed and strategy: the result fails the same way, is no larger than
// the recording (preemptions, then steps), and its decisions replay it
// exactly under the recorded-schedule driver (every step's actor and
// every steal victim applies: a decision that did not would be an error).
func TestShrinkDecisions(t *testing.T) {
	t.Parallel()
	sc := load(t, filepath.Join("..", "..", "scenarios", "bugs", "run_ahead_order.toml"))
	cfg, err := Resolve(sc, 2)
	if err != nil {
		t.Fatal(err)
	}
	shrunk := 0
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64Range(0, 300).Draw(rt, "seed")
		strategy := rapid.SampledFrom([]string{sim.StrategyRandom, sim.StrategyPCT}).Draw(rt, "strategy")
		rec, sig := recordedFailure(t, sc, seed, 2, strategy)
		if sig == "" {
			return
		}
		found := &Failure{Signature: sig}
		sh := &shrinker{exec: sim.Execute, sc: sc, cfg: cfg, sig: sig, failing: FailedChecks, jobs: 1}
		if err := sh.shrinkDecisions(rec, found); err != nil {
			rt.Fatal(err)
		}
		if found.Run == nil || found.Decisions == nil {
			rt.Fatalf("seed %d %s: the recorded decisions, followed, do not fail as recorded (%s)", seed, strategy, sig)
		}
		if got := sim.Signature(FailedChecks(found.Run)); got != sig {
			rt.Fatalf("shrunk run fails with %q, want %q", got, sig)
		}
		if found.Shrunk.Steps > int64(len(rec.Steps)) || found.Runs > shrinkRunsMax+1 {
			rt.Fatalf("shrunk to %s from %d steps in %d runs", found.Shrunk.Size(), len(rec.Steps), found.Runs)
		}
		if found.Shrunk.Steps < int64(len(rec.Steps)) || found.Shrunk.Preemptions > 0 {
			shrunk++
		}
		replayed, err := sim.Execute(sc, cfg, sim.Options{Schedule: found.Decisions})
		if err != nil {
			rt.Fatalf("the shrunk decisions do not replay: %v", err)
		}
		if replayed.Steps != found.Shrunk.Steps || sim.Signature(FailedChecks(replayed)) != sig {
			rt.Fatalf("replayed: %d steps, %q; shrunk: %d steps, %q", replayed.Steps, sim.Signature(FailedChecks(replayed)), found.Shrunk.Steps, sig)
		}
	})
	if shrunk == 0 {
		t.Fatal("no failing seed was drawn: the property checked nothing")
	}
}

// The follower, given a recorded run's decisions, makes that run: the
// decisions it took are the recorded ones, and it counts the preemptions
// as the converter does.
func TestFollowerReplaysRecording(t *testing.T) {
	t.Parallel()
	sc := load(t, filepath.Join("..", "..", "scenarios", "bugs", "dining_philosophers.toml"))
	cfg, err := Resolve(sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rec, _ := recordedFailure(t, sc, seed, 3, sim.StrategyRandom)
		fol := newFollower(rec.Steps, 3)
		if _, err := sim.Execute(sc, cfg, sim.Options{Chooser: fol}); err != nil {
			t.Fatal(err)
		}
		conv := newConverter(rec, 3)
		if _, err := sim.Execute(sc, cfg, sim.Options{Chooser: conv}); err != nil {
			t.Fatal(err)
		}
		if len(fol.taken) != len(rec.Steps) || fol.pre != conv.pre {
			t.Fatalf("seed %d: %d steps taken of %d recorded, %d preemptions against the converter's %d", seed, len(fol.taken), len(rec.Steps), fol.pre, conv.pre)
		}
		for i, d := range fol.taken {
			r := rec.Steps[i]
			if d.Actor != r.Actor || len(d.Victims) != len(r.Victims) {
				t.Fatalf("seed %d step %d: took w%d victims %v, recorded w%d victims %v", seed, i, d.Actor, d.Victims, r.Actor, r.Victims)
			}
			for j := range d.Victims {
				if d.Victims[j] != r.Victims[j] {
					t.Fatalf("seed %d step %d: victims %v, recorded %v", seed, i, d.Victims, r.Victims)
				}
			}
		}
	}
}

// With a failure every schedule has (a predicate that always fails), the
// smallest failing run is the default one: shrinking any random walk's
// recording, with its many preemptions, must reach no preemption and no
// more steps than the default run, in few runs.
func TestShrinkDecisionsReachesDefault(t *testing.T) {
	t.Parallel()
	sc := load(t, filepath.Join("..", "..", "scenarios", "lifo_cleanup.toml"))
	always := func(*sim.Run) []string { return []string{"always"} }
	preempted := 0
	for _, workers := range []int{2, 4} {
		cfg, err := Resolve(sc, workers)
		if err != nil {
			t.Fatal(err)
		}
		def, err := sim.Execute(sc, cfg, sim.Options{Chooser: newFollower(nil, workers)})
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 10; seed++ {
			rec, _ := recordedFailure(t, sc, seed, workers, sim.StrategyRandom)
			conv := newConverter(rec, workers)
			if _, err := sim.Execute(sc, cfg, sim.Options{Chooser: conv}); err != nil {
				t.Fatal(err)
			}
			if conv.pre > 0 {
				preempted++
			}
			f := &Failure{Signature: "always"}
			sh := &shrinker{exec: sim.Execute, sc: sc, cfg: cfg, sig: "always", failing: always, jobs: 1}
			if err := sh.shrinkDecisions(rec, f); err != nil {
				t.Fatal(err)
			}
			if f.Run == nil || f.Shrunk.Preemptions != 0 || f.Shrunk.Steps > def.Steps || f.Runs > 4*len(rec.Steps) {
				t.Fatalf("workers %d seed %d: %d preemptions, %d steps recorded; shrunk to %s in %d runs; the default run has %d steps",
					workers, seed, conv.pre, len(rec.Steps), f.Shrunk.Size(), f.Runs, def.Steps)
			}
		}
	}
	if preempted < 10 {
		t.Fatalf("only %d of 20 random walks had a preemption: the test shrinks too little", preempted)
	}
}
