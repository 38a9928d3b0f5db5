package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

// ReplayReport is the result of re-running a trace from the trace alone.
type ReplayReport struct {
	Config    Config
	Schedule  bool   // driven by the recorded decisions, not the PRNG
	Identical bool   // the new trace equals the recorded one byte for byte
	Line      int    // the first line that differs (1-based), 0 if identical
	Want, Got string // that line in the recorded and in the new trace ("<end of file>" past the end)
	Context   []string
	// Decision is set when a recorded decision did not apply (--schedule):
	// which one and why.
	Decision string
	Run      *Run
}

// BadTraceError is a trace that cannot be replayed: it does not parse, its
// header lacks a field, or its embedded scenario does not load.
type BadTraceError struct {
	File string
	Err  error
}

func (e *BadTraceError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *BadTraceError) Unwrap() error { return e.Err }

// LoadTrace parses a trace file's bytes and rebuilds the scenario and the
// configuration it was recorded with.
func LoadTrace(file string, data []byte) (*trace.Trace, *scenario.Scenario, Config, error) {
	bad := func(err error) (*trace.Trace, *scenario.Scenario, Config, error) {
		return nil, nil, Config{}, &BadTraceError{File: file, Err: err}
	}
	tr, err := trace.Parse(bytes.NewReader(data))
	if err != nil {
		return bad(err)
	}
	h := &tr.Header
	sc, err := scenario.Parse(file+" (embedded scenario)", []byte(h.Source))
	if err != nil {
		return bad(err)
	}
	want := map[string]string{}
	for _, key := range []string{"scenario-sha256", "victim", "profile"} {
		f, ok := h.Get(key)
		if !ok || f.IsInt {
			return bad(fmt.Errorf("header: missing or non-text %q", key))
		}
		want[key] = f.Str
	}
	nums := map[string]int64{}
	for _, key := range []string{"seed", "workers", "yield_interval", "max_steps"} {
		f, ok := h.Get(key)
		if !ok || !f.IsInt || f.Int < 0 {
			return bad(fmt.Errorf("header: missing or bad %q", key))
		}
		nums[key] = f.Int
	}
	if sc.SHA256 != want["scenario-sha256"] {
		return bad(fmt.Errorf("header: scenario-sha256 %s does not match the embedded source (%s)", want["scenario-sha256"], sc.SHA256))
	}
	so, err := StrategyOptions(h)
	if err != nil {
		return bad(err)
	}
	c, err := Resolve(sc, Options{Seed: uint64(nums["seed"]), HasSeed: true, Workers: int(nums["workers"]),
		Victim: want["victim"], MaxSteps: nums["max_steps"], Strategy: so.Strategy, PCTDepth: so.PCTDepth})
	if err != nil {
		return bad(err)
	}
	if c.Profile.String() != want["profile"] || int64(c.YieldInterval) != nums["yield_interval"] {
		return bad(fmt.Errorf("header: profile %s / yield_interval %d disagree with the embedded scenario (%s / %d)",
			want["profile"], nums["yield_interval"], c.Profile, c.YieldInterval))
	}
	return tr, sc, c, nil
}

// Replay re-runs the trace in data (named file) and compares the new trace
// with it byte for byte. With schedule, the run follows the decisions
// recorded in the trace instead of the PRNG.
func Replay(file string, data []byte, schedule bool, contextLines int) (*ReplayReport, error) {
	tr, sc, c, err := LoadTrace(file, data)
	if err != nil {
		return nil, err
	}
	if c.Strategy == StrategyExplore && !schedule {
		return nil, &BadTraceError{File: file, Err: ErrExploreNeedsSchedule}
	}
	rep := &ReplayReport{Config: c, Schedule: schedule}
	o := Options{}
	if schedule {
		if o.Schedule, err = ScheduleOf(tr); err != nil {
			return nil, &BadTraceError{File: file, Err: err}
		}
	}
	var buf bytes.Buffer
	o.Trace = &buf
	run, err := Execute(sc, c, o)
	var se *ScheduleError
	switch {
	case errors.As(err, &se):
		rep.Decision = se.Err.Error()
	case err != nil:
		return nil, err
	}
	rep.Run = run
	rep.Line, rep.Want, rep.Got, rep.Context = firstDiff(data, buf.Bytes(), contextLines)
	rep.Identical = rep.Line == 0 && rep.Decision == ""
	return rep, nil
}

const endOfFile = "<end of file>"

// firstDiff finds the first differing line of a and b, with up to n lines
// of shared context before it.
func firstDiff(a, b []byte, n int) (line int, la, lb string, ctx []string) {
	as, bs := bytes.SplitAfter(a, []byte("\n")), bytes.SplitAfter(b, []byte("\n"))
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y []byte
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		if bytes.Equal(x, y) {
			continue
		}
		for j := max(0, i-n); j < i; j++ {
			ctx = append(ctx, string(bytes.TrimSuffix(as[j], []byte("\n"))))
		}
		return i + 1, lineText(x), lineText(y), ctx
	}
	return 0, "", "", nil
}

func lineText(b []byte) string {
	if b == nil {
		return endOfFile
	}
	return string(bytes.TrimSuffix(b, []byte("\n")))
}

// Write prints the report.
func (r *ReplayReport) Write(w io.Writer, file string) error {
	mode := "seeded PRNG"
	if r.Schedule {
		mode = "recorded schedule"
	}
	fmt.Fprintf(w, "replay %s: seed=%d workers=%d victim=%s (%s)\n", file, r.Config.Seed, r.Config.Workers, r.Config.Victim, mode)
	if r.Identical {
		_, err := fmt.Fprintf(w, "identical: %d steps, outcome %s\n", r.Run.Steps, r.Run.Outcome)
		return err
	}
	if r.Decision != "" {
		fmt.Fprintf(w, "a recorded decision no longer applies: %s\n", r.Decision)
	}
	if r.Line > 0 {
		fmt.Fprintf(w, "first divergence at line %d:\n", r.Line)
		for _, l := range r.Context {
			fmt.Fprintf(w, "    %s\n", l)
		}
		fmt.Fprintf(w, "  - recorded: %s\n", r.Want)
		fmt.Fprintf(w, "  + replayed: %s\n", r.Got)
	}
	return nil
}
