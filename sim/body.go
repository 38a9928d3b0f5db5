package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/trace"
)

// Body describes a seeded run of a Go root body instead of a scenario's
// program: the C ABI's deterministic mode runs a C program this way. The
// body runs as the root task main under the same driver as a scenario
// (drive), so its trace reads like a scenario's and `cbcsim diff` and
// `cbcsim export` take it; `cbcsim replay` cannot, since the program is
// not in the trace.
type Body struct {
	Name   string // the trace header's name
	Source string // what ran, for the header's source (and its hash): no paths or addresses
	Seed   uint64 // 0..2^63-1, as a scenario's
	// Sched configures the scheduler: Workers, Profile, YieldInterval,
	// Budget, RootCaps. The driver sets Seed, Sink, Clock,
	// StepCheckpoints and KeepTasks itself.
	Sched    sched.Config
	MaxSteps int64     // the livelock bound; 0 means DefaultBodyMaxSteps
	Trace    io.Writer // nil writes no trace
}

// DefaultBodyMaxSteps bounds a body's run when Body.MaxSteps is 0. It is
// larger than a scenario's default: a program of thousands of tasks takes
// hundreds of thousands of steps.
const DefaultBodyMaxSteps = 100_000_000

// BodyRun is the outcome of RunBody.
type BodyRun struct {
	Outcome string       // ok, failed, cancelled, deadlock, livelock, crash
	Result  sched.Result // main's result
	Steps   int64
	Crash   string
	Checks  []Check // the invariants, checked on the run's events
}

// RunBody runs body as the root task under the seeded driver and checks the
// invariants. The trace, if b.Trace is set, is written as the run goes.
func RunBody(b Body, body sched.Func) (*BodyRun, error) {
	if b.Seed > 1<<63-1 {
		return nil, fmt.Errorf("seed %d out of range 0..%d", b.Seed, int64(1<<63-1))
	}
	if b.MaxSteps == 0 {
		b.MaxSteps = DefaultBodyMaxSteps
	}
	cfg := b.Sched
	cfg.Seed = b.Seed
	// The defaults sched.New would fill in, filled here for the header.
	if cfg.Workers == 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.YieldInterval == 0 {
		cfg.YieldInterval = sched.DefaultYieldInterval(cfg.Profile)
	}
	var tw *trace.Writer
	if b.Trace != nil {
		tw = trace.NewWriter(b.Trace)
		sum := sha256.Sum256([]byte(b.Source))
		h := &trace.Header{
			Fields: []trace.Field{
				trace.S("name", b.Name),
				trace.S("scenario-sha256", hex.EncodeToString(sum[:])),
				trace.I("seed", int64(b.Seed)),
				trace.I("workers", int64(cfg.Workers)),
				trace.S("victim", cfg.Victim.String()),
				trace.S("profile", cfg.Profile.String()),
				trace.I("yield_interval", int64(cfg.YieldInterval)),
				trace.I("max_steps", b.MaxSteps),
			},
			Source: b.Source,
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
	}
	sk := newSink(cfg.Workers, tw)
	cfg.Sink, cfg.Clock, cfg.StepCheckpoints = sk, sk, true
	s, err := sched.New(cfg)
	if err != nil {
		return nil, err
	}
	s.Start("main", body)
	d, err := drive(s, sk, &randomChooser{rng: sched.NewXoshiro(driverSeed(b.Seed))}, b.MaxSteps)
	if err != nil {
		return nil, err
	}
	run := &Run{Outcome: d.outcome, Crash: d.crash, Steps: d.steps}
	if run.Outcome == "" {
		run.Outcome = outcomeOf(s.Root().Result())
	} else {
		s.Abort()
	}
	run.Result = s.Root().Result()
	sk.step = uint64(d.steps)
	sk.Emit(-1, trace.KindOutcome, []trace.Field{trace.S("outcome", run.Outcome), trace.S("result", run.Result.String())})
	if tw != nil {
		if sk.err == nil {
			sk.err = tw.Flush()
		}
		if sk.err != nil {
			return nil, fmt.Errorf("writing trace: %w", sk.err)
		}
	}
	return &BodyRun{Outcome: run.Outcome, Result: run.Result, Steps: run.Steps, Crash: run.Crash,
		Checks: checkInvariants(run, sk.hist)}, nil
}
