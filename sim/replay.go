package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/cbcsim/cbcsim/sched"
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

// CProgramName is the header name of a trace written by a C program
// through the C ABI's deterministic mode (cabi): such a trace embeds no
// scenario, so diff and export read it but replay and check cannot.
const CProgramName = "c-program"

// BadTraceError is a trace that cannot be replayed: it does not parse, its
// header lacks a field, or its embedded scenario does not load.
type BadTraceError struct {
	File    string
	Err     error
	located bool // Err's message starts with File
}

// Error is "FILE: line N: MSG", or the located error itself when it
// already names the file (an error in the embedded scenario).
func (e *BadTraceError) Error() string {
	if e.located {
		return e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}
func (e *BadTraceError) Unwrap() error { return e.Err }

// LoadTrace parses a trace file's bytes and rebuilds the scenario and the
// configuration it was recorded with. Every error is a *BadTraceError whose
// message has a line of the trace: a header value's own line, and for an
// error in the embedded scenario, the trace line that holds it.
func LoadTrace(file string, data []byte) (*trace.Trace, *scenario.Scenario, Config, error) {
	tr, err := trace.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, nil, Config{}, &BadTraceError{File: file, Err: err}
	}
	sc, c, err := loadConfig(file, tr)
	return tr, sc, c, err
}

// loadConfig is LoadTrace's part after the parse.
func loadConfig(file string, tr *trace.Trace) (*scenario.Scenario, Config, error) {
	sc, c, err := traceConfig(tr)
	if err != nil {
		var le *scenario.LoadError
		if errors.As(err, &le) {
			return nil, Config{}, embeddedError(file, tr, le)
		}
		return nil, Config{}, &BadTraceError{File: file, Err: err}
	}
	return sc, c, nil
}

// traceConfig loads the embedded scenario and checks every header value the
// run needs, each error a *trace.ParseError at that value's line (a missing
// value: at "# source: N", where the header fields end).
func traceConfig(tr *trace.Trace) (*scenario.Scenario, Config, error) {
	h := &tr.Header
	at := func(key, format string, args ...any) error {
		line := tr.FieldLine(key)
		if line == 0 {
			line = tr.SourceLine
		}
		return &trace.ParseError{Line: line, Msg: "header: " + fmt.Sprintf(format, args...)}
	}
	if why := notReplayable(h); why != "" {
		return nil, Config{}, at("name", "%s", why)
	}
	sc, err := scenario.Parse("embedded scenario", []byte(h.Source))
	if err != nil {
		return nil, Config{}, err
	}
	// A scenario without a `name` is named after its file, which the
	// trace does not embed: the header's name is the one it ran under.
	if f, ok := h.Get("name"); ok && !f.IsInt {
		sc.Name = f.Str
	}
	want, nums, err := headerValues(h, at)
	if err != nil {
		return nil, Config{}, err
	}
	if sc.SHA256 != want["scenario-sha256"] {
		return nil, Config{}, at("scenario-sha256", "scenario-sha256 %s does not match the embedded source (%s)", want["scenario-sha256"], sc.SHA256)
	}
	// What Resolve would take as "unset" or reject is checked here, so that
	// the message points at the line.
	if w := nums["workers"]; w < 1 || w > sched.WorkersMax {
		return nil, Config{}, at("workers", "workers %d out of range 1..%d", w, sched.WorkersMax)
	}
	if _, ok := sched.ParseVictim(want["victim"]); !ok {
		return nil, Config{}, at("victim", "unknown victim strategy %q (want random, round_robin or least_loaded)", want["victim"])
	}
	if nums["max_steps"] < 1 {
		return nil, Config{}, at("max_steps", "max_steps must be >= 1, not %d", nums["max_steps"])
	}
	so, err := StrategyOptions(h)
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return nil, Config{}, at(fe.Key, "%s", fe.Msg)
	}
	c, err := Resolve(sc, Options{Seed: uint64(nums["seed"]), HasSeed: true, Workers: int(nums["workers"]),
		Victim: want["victim"], MaxSteps: nums["max_steps"], Strategy: so.Strategy, PCTDepth: so.PCTDepth})
	if err != nil {
		return nil, Config{}, at("seed", "%v", err)
	}
	if c.Profile.String() != want["profile"] {
		return nil, Config{}, at("profile", "profile %s disagrees with the embedded scenario (%s)", want["profile"], c.Profile)
	}
	if int64(c.YieldInterval) != nums["yield_interval"] {
		return nil, Config{}, at("yield_interval", "yield_interval %d disagrees with the embedded scenario (%d)", nums["yield_interval"], c.YieldInterval)
	}
	return sc, c, nil
}

// headerValues reads the header values every replay needs, by key: the
// texts (the scenario's hash, victim and profile) and the integers (seed,
// workers, yield_interval, max_steps); and checks run_at, which only a
// story run's header has. at makes an error at a key's line.
func headerValues(h *trace.Header, at func(key, format string, args ...any) error) (map[string]string, map[string]int64, error) {
	want := map[string]string{}
	for _, key := range []string{"scenario-sha256", "victim", "profile"} {
		f, ok := h.Get(key)
		if !ok || f.IsInt {
			return nil, nil, at(key, "missing or non-text %q", key)
		}
		want[key] = f.Str
	}
	nums := map[string]int64{}
	for _, key := range []string{"seed", "workers", "yield_interval", "max_steps"} {
		f, ok := h.Get(key)
		if !ok || !f.IsInt || f.Int < 0 {
			return nil, nil, at(key, "missing or bad %q: want an integer >= 0", key)
		}
		nums[key] = f.Int
	}
	if f, ok := h.Get(trace.KeyRunAt); ok && (f.IsInt || f.Str != trace.RunAtChanged) {
		return nil, nil, at(trace.KeyRunAt, "unknown %s %s (want %s, or no %s line)", trace.KeyRunAt, trace.FormatValue(f), trace.RunAtChanged, trace.KeyRunAt)
	}
	return want, nums, nil
}

// notReplayable says why the trace with header h holds no program to run
// again, "" when it holds one. A C program's trace (cabi's deterministic
// mode) embeds a note and the configuration, a simtest trace the test's
// name: neither embeds the program.
func notReplayable(h *trace.Header) string {
	if f, ok := h.Get("name"); ok && !f.IsInt && f.Str == CProgramName {
		return fmt.Sprintf("a trace of a C program (name %q) is not replayable: the program is not in the trace; rerun it with the same seed and workers; cbcsim diff and cbcsim export read this trace", CProgramName)
	}
	if name, ok := strings.CutPrefix(h.Source, GoTestSourcePrefix); ok {
		return goTestTrace(h, strings.TrimSuffix(name, "\n"))
	}
	return ""
}

// embeddedError moves an error in the embedded scenario to the trace line
// that holds it: source line i is trace line SourceLine+i, its text after
// the "#| " prefix. An error with no line of its own is at "# source: N".
func embeddedError(file string, tr *trace.Trace, le *scenario.LoadError) error {
	moved := *le
	moved.File = file
	moved.Msg += " (in the embedded scenario)"
	if moved.Line > 0 {
		moved.Line += tr.SourceLine
		if moved.Col > 0 {
			moved.Col += len("#| ")
		}
	} else {
		moved.Line, moved.Col = tr.SourceLine, 0
	}
	return &BadTraceError{File: file, Err: &moved, located: true}
}

// Replay re-runs the trace in data (named file) and compares the new trace
// with it byte for byte. With schedule, the run follows the decisions
// recorded in the trace instead of the PRNG. The new trace is compared as
// it is written, never held whole.
func Replay(file string, data []byte, schedule bool, contextLines int) (*ReplayReport, error) {
	// The events are checked as they are parsed and only their decisions
	// kept: the recorded trace is in memory once, as bytes.
	var sch *Schedule
	if schedule {
		sch = &Schedule{}
	}
	var seen traceTraits
	tr, err := trace.ParseEach(bytes.NewReader(data), func(e *trace.Event, line int) error {
		seen.add(e)
		if sch != nil {
			return sch.add(e, line)
		}
		return nil
	})
	if err != nil {
		return nil, &BadTraceError{File: file, Err: err}
	}
	sc, c, err := loadConfig(file, tr)
	if err != nil {
		return nil, err
	}
	var legacyCatch bool
	c.Mode, legacyCatch, c.LegacyCancel = versionMode(tr.Version, c.Mode, seen.caught, sc)
	if c.Mode == ModeSeeded {
		c.Mode = storyMode(&tr.Header, seen.story)
	}
	if c.Strategy == StrategyExplore && !schedule {
		return nil, &BadTraceError{File: file, Err: ErrExploreNeedsSchedule}
	}
	rep := &ReplayReport{Config: c, Schedule: schedule}
	o := Options{Schedule: sch}
	cw := &cmpWriter{want: data}
	o.Trace = cw
	var nc *noCatchWriter
	if legacyCatch {
		nc = &noCatchWriter{w: cw}
		o.Trace = nc
	}
	run, err := Execute(sc, c, o)
	if nc != nil && err == nil {
		err = nc.flush()
	}
	var se *ScheduleError
	switch {
	case errors.As(err, &se):
		// The run stopped at the decision. When what it wrote before
		// already left the recorded trace (a decision edited into one
		// that still applies), that first divergence is the finding and
		// the decision that failed later only its consequence; otherwise
		// the written prefix says nothing more, and the decision is the
		// whole report.
		rep.Decision = se.Err.Error()
		if cw.diverged && sch != nil {
			line, want, got, ctx := cw.result(contextLines)
			if se.Step < 0 || se.Step >= int64(len(sch.Steps)) || line < sch.Steps[se.Step].Line {
				rep.Line, rep.Want, rep.Got, rep.Context = line, want, got, ctx
			}
		}
		return rep, nil
	case err != nil:
		return nil, err
	}
	rep.Run = run
	rep.Line, rep.Want, rep.Got, rep.Context = cw.result(contextLines)
	rep.Identical = rep.Line == 0
	return rep, nil
}

// traceTraits is what replay notes of a recorded trace as it is parsed:
// the events of its version that it may lack.
type traceTraits struct {
	caught bool // some nursery open says catch=true
	story  bool // some event tells the story: a chan event, an at= field
}

func (s *traceTraits) add(e *trace.Event) {
	if !s.story && (e.Kind == trace.KindChan || e.Kind == trace.KindLock ||
		(e.Kind == trace.KindRun || e.Kind == trace.KindBlock) && len(e.Fields) > 1 && e.Fields[len(e.Fields)-1].Key == trace.KeyAt) {
		s.story = true
	}
	if e.Kind == trace.KindNursery && !s.caught {
		for i := range e.Fields {
			s.caught = s.caught || e.Fields[i].Key == trace.KeyCatch
		}
	}
}

// versionMode is the mode a trace of format version v replays in (mode
// otherwise), and whether its nursery opens leave catch=true off: a
// version-1 trace was recorded with every task and nursery kept, and the
// ones recorded before nursery opens said catch=true have none (caught:
// some open in it says it); a version-2 trace before the policies were
// decisions; and whether it replays with the cancellation of versions 1
// and 2, recorded before cancel scopes (Config.LegacyCancel).
func versionMode(v int, mode Mode, caught bool, sc *scenario.Scenario) (Mode, bool, bool) {
	switch v {
	case 1:
		return ModeSeededKeep, !caught && scenarioCatches(sc), true
	case 2:
		return ModeSeededV2, false, true
	}
	return mode, false, false
}

// storyMode is the mode a version-3 trace with header h replays in: as
// runs write it now when h says "run_at: changed"; else with the place on
// every run line when some event tells the story (story), and without the
// story when none does: recorded before the story events, or with none
// to tell.
func storyMode(h *trace.Header, story bool) Mode {
	switch f, _ := h.Get(trace.KeyRunAt); {
	case f.Str == trace.RunAtChanged:
		return ModeSeeded
	case story:
		return ModeSeededAtEvery
	}
	return ModeSeededPlain
}

const endOfFile = "<end of file>"

// Write prints the report.
func (r *ReplayReport) Write(w io.Writer, file string) error {
	mode := "seeded PRNG"
	if r.Schedule {
		mode = "recorded schedule"
	}
	switch r.Config.Mode {
	case ModeSeededKeep:
		mode += "; format version 1: every task kept"
	case ModeSeededV2:
		mode += "; format version 2: no policy decisions"
	case ModeSeededPlain:
		mode += "; format version 3 before the story events"
	case ModeSeededAtEvery:
		mode += "; format version 3 with a place on every run line"
	}
	fmt.Fprintf(w, "replay %s: seed=%d workers=%d victim=%s (%s)\n", file, r.Config.Seed, r.Config.Workers, r.Config.Victim, mode)
	if r.Identical {
		fmt.Fprintf(w, "identical: %d steps, outcome %s\n", r.Run.Steps, r.Run.Outcome)
		r.writeChecks(w)
		return nil
	}
	if r.Line > 0 {
		fmt.Fprintf(w, "first divergence at line %d:\n", r.Line)
		for _, l := range r.Context {
			fmt.Fprintf(w, "    %s\n", l)
		}
		fmt.Fprintf(w, "  - recorded: %s\n", r.Want)
		fmt.Fprintf(w, "  + replayed: %s\n", r.Got)
	}
	if r.Decision != "" {
		then := ""
		if r.Line > 0 {
			then = "after it, "
		}
		_, err := fmt.Fprintf(w, "%sa recorded decision no longer applies: %s\nthe replay stopped there\n", then, r.Decision)
		return err
	}
	return nil
}

// Failed reports whether the replayed run broke a check (an invariant or
// the scenario's [expect]): the recorded run failed, and so did this one.
func (r *ReplayReport) Failed() bool { return r.Run != nil && !r.Run.Passed() }

// writeChecks prints the checks the replayed run broke, with the waits of
// a run that did not end, or that every check held.
func (r *ReplayReport) writeChecks(w io.Writer) {
	if !r.Failed() {
		fmt.Fprintf(w, "checks: all %d hold\n", len(r.Run.Checks))
		return
	}
	failed := 0
	for _, c := range r.Run.Checks {
		if !c.OK {
			failed++
		}
	}
	fmt.Fprintf(w, "checks: %d of %d FAIL, as when it was recorded\n", failed, len(r.Run.Checks))
	for _, c := range r.Run.Checks {
		if !c.OK {
			fmt.Fprintf(w, "  FAIL  %-9s %s\n        %s\n", c.Class, c.Name, c.Detail)
		}
	}
	if r.Run.Waits.Stuck() {
		fmt.Fprintln(w)
		r.Run.Waits.Write(w)
	}
}

// GoTestSourcePrefix begins the embedded source of a trace that simtest
// wrote for a Go test body: the body is Go code, so the source names the
// test instead ("go test body TestX\n").
const GoTestSourcePrefix = "go test body "

// goTestTrace is what replay says of a simtest trace: what it is, and the
// go test command that reruns its run.
func goTestTrace(h *trace.Header, name string) string {
	var seed uint64
	workers := 0
	if f, ok := h.Get(trace.KeySeed); ok && f.IsInt {
		seed = uint64(f.Int)
	}
	if f, ok := h.Get(trace.KeyWorkers); ok && f.IsInt {
		workers = int(f.Int)
	}
	strategy := StrategyPortfolio
	so, err := StrategyOptions(h)
	if err == nil {
		arm := Arm{Strategy: so.Strategy, PCTDepth: so.PCTDepth}
		if arm.Strategy == "" {
			arm.Strategy = StrategyRandom
		}
		if arm.Strategy == StrategyPCT && arm.PCTDepth == 0 {
			arm.PCTDepth = PCTDepthDefault
		}
		if arm != PortfolioArm(seed) {
			strategy = arm.Strategy // simtest's pct is depth 3, its only depth
		}
	}
	return fmt.Sprintf("a trace of the Go test body %s (simtest): the body is Go code, which the trace does not hold, so cbcsim cannot run it again; "+
		"rerun it in the test's package directory with: %s (cbcsim diff and cbcsim export read this trace)", name, GoTestRerun(name, seed, workers, strategy))
}

// GoTestRerun is the go test command line, run in the test's package
// directory, that reruns exactly one run of the simtest test named name
// (t.Name()): its seed, worker count and, unless it is the default
// portfolio (whose seed chooses its arm again), its strategy.
func GoTestRerun(name string, seed uint64, workers int, strategy string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	cmd := fmt.Sprintf("go test -run '%s' -simtest.seed=%d -simtest.workers=%d",
		strings.Join(parts, "/"), seed, workers)
	if strategy != "" && strategy != StrategyPortfolio {
		cmd += " -simtest.strategy=" + strategy
	}
	return cmd
}
