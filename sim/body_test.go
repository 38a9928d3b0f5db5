package sim

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/trace"
)

// bodyProgram: main opens a fail_fast nursery of yielding children, one of
// which fails once the others have yielded a few times.
func bodyProgram(t *sched.Task) error {
	return t.Nursery(sched.NurseryOptions{Label: "n"}, func(n *sched.Nursery) error {
		for i := 0; i < 6; i++ {
			fail := i == 5
			if err := n.Go("child", func(t *sched.Task) error {
				for j := 0; j < 4; j++ {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				if fail {
					return &sched.SchedError{Code: "boom"}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

func runBody(t *testing.T, seed uint64, workers int) (*BodyRun, []byte) {
	t.Helper()
	var buf bytes.Buffer
	r, err := RunBody(Body{Name: "body", Source: "a Go body\n", Seed: seed, Sched: sched.Config{Workers: workers, Budget: sched.Unlimited}, Trace: &buf}, bodyProgram)
	if err != nil {
		t.Fatal(err)
	}
	return r, buf.Bytes()
}

func TestRunBodyDeterministic(t *testing.T) {
	t.Parallel()
	r1, a := runBody(t, 7, 2)
	_, b := runBody(t, 7, 2)
	if !bytes.Equal(a, b) {
		t.Fatalf("same body, seed and workers: traces differ (%d and %d bytes)", len(a), len(b))
	}
	if r1.Outcome != OutcomeFailed || r1.Result.Kind != nursery.KindErr {
		t.Fatalf("outcome %s result %s, want failed with the child's error", r1.Outcome, r1.Result)
	}
	for _, c := range r1.Checks {
		if !c.OK {
			t.Errorf("invariant %s: %s", c.Name, c.Detail)
		}
	}
	if _, err := trace.Parse(bytes.NewReader(a)); err != nil {
		t.Fatalf("the trace does not parse: %v", err)
	}
	_, c := runBody(t, 8, 4)
	if d := trace.Diff(mustParse(t, a), mustParse(t, c)); d.Equal() {
		t.Fatal("seed 8 on 4 workers wrote the same trace as seed 7 on 2")
	}
}

func TestRunBodyBadSeed(t *testing.T) {
	t.Parallel()
	if _, err := RunBody(Body{Seed: 1 << 63}, bodyProgram); err == nil {
		t.Fatal("seed 2^63 accepted")
	}
}

func mustParse(t *testing.T, b []byte) *trace.Trace {
	t.Helper()
	tr, err := trace.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func runBodyWith(t *testing.T, b Body) (*BodyRun, []byte) {
	t.Helper()
	var buf bytes.Buffer
	b.Name, b.Source, b.Trace = "body", "a Go body\n", &buf
	if b.Sched.Workers == 0 {
		b.Sched.Workers = 2
	}
	b.Sched.Budget = sched.Unlimited
	r, err := RunBody(b, bodyProgram)
	if err != nil {
		t.Fatal(err)
	}
	return r, buf.Bytes()
}

// A body runs under the driver's strategies as a scenario does: pct is
// deterministic per seed, says so in the header, drives other schedules
// than the random walk, and its probe gives the same length a caller can
// pass instead.
func TestRunBodyPCT(t *testing.T) {
	t.Parallel()
	_, random := runBodyWith(t, Body{Seed: 3})
	r1, a := runBodyWith(t, Body{Seed: 3, Strategy: StrategyPCT, PCTDepth: 2})
	_, b := runBodyWith(t, Body{Seed: 3, Strategy: StrategyPCT, PCTDepth: 2})
	if !bytes.Equal(a, b) {
		t.Fatal("pct: same body and seed, traces differ")
	}
	if r1.Config.Strategy != StrategyPCT || r1.Config.PCTDepth != 2 {
		t.Fatalf("config %+v, want pct depth 2", r1.Config)
	}
	h := mustParse(t, a).Header
	if f, ok := h.Get(trace.KeyStrategy); !ok || f.Str != StrategyPCT {
		t.Fatalf("header lacks strategy pct: %v", h.Fields)
	}
	if _, ok := mustParse(t, random).Header.Get(trace.KeyStrategy); ok {
		t.Fatal("a random body's header names a strategy")
	}
	for _, c := range r1.Checks {
		if !c.OK {
			t.Errorf("invariant %s: %s", c.Name, c.Detail)
		}
	}
	probe := &pctProbe{}
	if _, err := RunBody(Body{Seed: 3, Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}, Strategy: StrategyExplore, Chooser: probe}, bodyProgram); err != nil {
		t.Fatal(err)
	}
	_, c := runBodyWith(t, Body{Seed: 3, Strategy: StrategyPCT, PCTDepth: 2, PCTLength: probe.steps})
	if !bytes.Equal(a, c) {
		t.Fatalf("pct with the probe's length %d given: another trace than with the probe run", probe.steps)
	}
	differ := false
	for seed := uint64(1); seed <= 8 && !differ; seed++ {
		_, r := runBodyWith(t, Body{Seed: seed})
		_, p := runBodyWith(t, Body{Seed: seed, Strategy: StrategyPCT})
		differ = !trace.Diff(mustParse(t, r), mustParse(t, p)).Equal()
	}
	if !differ {
		t.Fatal("pct and random drove the same schedules on seeds 1..8")
	}
}

// countingChooser picks the last ready worker and counts its calls.
type countingChooser struct{ calls int }

func (c *countingChooser) Choose(_ int64, ready []driver.Worker) driver.Worker {
	c.calls++
	return ready[len(ready)-1]
}

// An external Chooser (the explorer's) drives a body, and the body's
// step bound counts busy steps, as a scenario's.
func TestRunBodyChooserAndBound(t *testing.T) {
	t.Parallel()
	ch := &countingChooser{}
	r, _ := runBodyWith(t, Body{Strategy: StrategyExplore, Chooser: ch})
	if ch.calls == 0 || int64(ch.calls) < r.Steps {
		t.Fatalf("chooser called %d times for %d steps", ch.calls, r.Steps)
	}
	r, _ = runBodyWith(t, Body{Seed: 1, MaxSteps: 5})
	if r.Outcome != OutcomeLivelock {
		t.Fatalf("max steps 5: outcome %s, want livelock", r.Outcome)
	}
	if _, err := RunBody(Body{Strategy: "nope"}, bodyProgram); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}

// A Go body may take its nursery's error as a value and go on: that is the
// program's choice, not a lost error, so the invariants that read the
// program (propagating ones) do not apply to a body, while every
// scheduler invariant still does.
func TestRunBodyHandlesItsNurseryError(t *testing.T) {
	t.Parallel()
	handled := func(t *sched.Task) error {
		if err := bodyProgram(t); err == nil {
			return &sched.SchedError{Code: "the child's error did not come back"}
		}
		return nil // handled: main ends ok
	}
	r, err := RunBody(Body{Name: "handled", Source: "a Go body\n", Seed: 3, Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}}, handled)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != OutcomeOK {
		t.Fatalf("outcome %s (%s), want ok", r.Outcome, r.Result)
	}
	names := map[string]bool{}
	for _, c := range r.Checks {
		names[c.Name] = true
		if !c.OK {
			t.Errorf("invariant %s: %s", c.Name, c.Detail)
		}
	}
	for _, inv := range invariants {
		if names[inv.name] == inv.propagating {
			t.Errorf("invariant %s (propagating %v) checked on a body: %v", inv.name, inv.propagating, names[inv.name])
		}
	}
}

// A C program's trace (header name c-program, a note for its source) is
// refused by LoadTrace at the header's name line, with a message that says
// why and which commands read it, instead of an error about the note.
func TestLoadTraceCProgram(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	src := "# A C program run through libjanus_sched.so in deterministic mode.\n[scheduler]\nworkers = 2\n"
	if _, err := RunBody(Body{Name: CProgramName, Source: src, Seed: 7, Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}, Trace: &buf}, bodyProgram); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := LoadTrace("c.trace", buf.Bytes())
	var bad *BadTraceError
	if !errors.As(err, &bad) {
		t.Fatalf("LoadTrace: %v, want a *BadTraceError", err)
	}
	for _, want := range []string{"c.trace: line 2: ", "C program", "not replayable", "cbcsim diff", "cbcsim export"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("LoadTrace: %q lacks %q", err, want)
		}
	}
}
