package ci

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/cbcsim/cbcsim/internal/outfile"
)

// Format is the value of a report's "format" field: a reader refuses
// any other, so that a file that merely parses as JSON is not taken for
// a report.
const Format = "cbcsim-report/1"

// Report is the JSON report of one sweep, or of some of its shards. Runs
// and Failed are at the top level, where a CI script reads them with one
// jq expression (`jq .failed`).
type Report struct {
	Format string `json:"format"`
	Sweep  Sweep  `json:"sweep"`
	// Shards are the shards this report covers, K of ShardCount each, in
	// increasing order; both are empty for an unsharded sweep.
	Shards     []int `json:"shards,omitempty"`
	ShardCount int   `json:"shard_count,omitempty"`

	Runs           int64 `json:"runs"`   // runs executed
	Failed         int64 `json:"failed"` // of them, runs that failed
	Nondeterminism int64 `json:"nondeterministic,omitempty"`
	// Interrupted says a signal stopped the sweep before its seeds or
	// duration ran out (fuzz, check): Runs are what ran.
	Interrupted bool `json:"interrupted,omitempty"`

	Cases    []Case    `json:"cases"`    // the JUnit test cases, sorted by Suite then Name
	Failures []Failure `json:"failures"` // sorted by Suite, Case, then Seed
}

// Sweep says what was run; the reports of the shards of one sweep have
// equal Sweeps, and Merge compares them field by field.
type Sweep struct {
	Tool      string   `json:"tool"` // "check" or "fuzz"
	Scenarios []string `json:"scenarios,omitempty"`
	// ScenarioHashes are the SHA-256 of each scenario's source, in the
	// order of Scenarios: two shards must have run the same files.
	ScenarioHashes []string `json:"scenario_hashes,omitempty"`
	Traces         []string `json:"traces,omitempty"` // recorded runs replayed (check of a corpus)
	Seeds          int      `json:"seeds"`            // 0: fuzz bounded by Duration
	SeedStart      uint64   `json:"seed_start"`
	Duration       string   `json:"duration,omitempty"`
	Workers        []int    `json:"workers"`
	Strategy       string   `json:"strategy,omitempty"`
	PCTDepth       int      `json:"pct_depth,omitempty"`
	Real           bool     `json:"real,omitempty"`
	Lean           bool     `json:"lean,omitempty"`
}

// Case is one JUnit test case: for check, one scenario under one worker
// count (or one recorded run); for fuzz, one failure, or the whole
// shard when nothing failed.
type Case struct {
	Suite  string `json:"suite"` // check: the scenario file; fuzz: "fuzz"
	Name   string `json:"name"`
	Runs   int64  `json:"runs"`
	Failed int64  `json:"failed"`
}

// Failure is one kind of failure of a case: the runs that failed the same
// way (Kind), with the smallest failing seed's details and command.
type Failure struct {
	Suite    string   `json:"suite"`
	Case     string   `json:"case"`
	Kind     string   `json:"kind"` // the outcome and the broken checks: "deadlock|no-orphan"
	Scenario string   `json:"scenario"`
	Seed     uint64   `json:"seed"`
	Workers  int      `json:"workers"`
	Count    int64    `json:"count"` // runs that failed this way
	Details  []string `json:"details"`
	Command  string   `json:"command"` // reruns the failing run (sim.Config.Command)
	Repro    string   `json:"repro,omitempty"`
	Trace    string   `json:"trace,omitempty"`
}

// Sort puts the cases and failures in their canonical order, so that a
// report does not depend on the order anything finished in.
func (r *Report) Sort() {
	sort.SliceStable(r.Cases, func(i, j int) bool {
		a, b := r.Cases[i], r.Cases[j]
		if a.Suite != b.Suite {
			return a.Suite < b.Suite
		}
		return a.Name < b.Name
	})
	sort.SliceStable(r.Failures, func(i, j int) bool {
		a, b := r.Failures[i], r.Failures[j]
		switch {
		case a.Suite != b.Suite:
			return a.Suite < b.Suite
		case a.Case != b.Case:
			return a.Case < b.Case
		case a.Seed != b.Seed:
			return a.Seed < b.Seed
		}
		return a.Kind < b.Kind
	})
	if r.Cases == nil {
		r.Cases = []Case{}
	}
	if r.Failures == nil {
		r.Failures = []Failure{}
	}
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJSONFile writes r to path atomically (package outfile).
func WriteJSONFile(path string, r *Report) error {
	return outfile.WriteFile(path, r.WriteJSON)
}

// reportFileMax bounds a report read by ReadFile, and mergeInputMax all
// the reports one merge reads: a report holds about 100 bytes per case
// and 300 per failure, so this is hundreds of thousands of them. Memory
// is about six times the JSON read (docs/reliability.md#limits measures
// it): the decoded reports, the merged one and its encoding.
const (
	reportFileMax = 64 << 20
	mergeInputMax = 128 << 20
)

// ReadFile reads a JSON report. Every error names the file, and a
// syntax error its line and column.
func ReadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device: read it whole, as much as the limit allows.
		data, err := io.ReadAll(io.LimitReader(f, reportFileMax+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(data) > reportFileMax {
			return nil, tooLarge(path)
		}
		return Parse(path, data)
	}
	if fi.Size() > reportFileMax {
		return nil, tooLarge(path)
	}
	// Decoded from the file, not from a copy of it in memory; a syntax
	// error reads the file again to say where.
	r, err := decode(path, io.LimitReader(bufio.NewReader(f), reportFileMax+1))
	if err != nil {
		var located *jsonError
		if errors.As(err, &located) {
			data, rerr := os.ReadFile(path)
			if rerr != nil {
				return nil, fmt.Errorf("%s: %w", path, rerr)
			}
			return nil, locate(path, data, located.err)
		}
		return nil, err
	}
	return r, nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s: larger than %d bytes (%d MiB), the limit of a report: not a cbcsim report", path, reportFileMax, reportFileMax>>20)
}

// Parse reads a JSON report from data, named file in errors.
func Parse(file string, data []byte) (*Report, error) {
	r, err := decode(file, bytes.NewReader(data))
	var located *jsonError
	if errors.As(err, &located) {
		return nil, locate(file, data, located.err)
	}
	return r, err
}

// jsonError is a decoding error that locate places at a line and column.
type jsonError struct{ err error }

func (e *jsonError) Error() string { return e.err.Error() }

// decode reads one report from rd and checks every field.
func decode(file string, rd io.Reader) (*Report, error) {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, &jsonError{err}
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value: not a cbcsim report", file)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	r.Sort()
	return &r, nil
}

// validate checks what the JSON's types do not: the format, counts that
// are counts, and every case and failure complete, so that a report with
// a null list or an empty failure is refused, not merged as seed 0.
func (r *Report) validate() error {
	switch {
	case r.Format != Format:
		return fmt.Errorf("not a cbcsim report: \"format\" is %q, want %q", r.Format, Format)
	case r.Sweep.Tool != "check" && r.Sweep.Tool != "fuzz":
		return fmt.Errorf("sweep.tool is %q, want check or fuzz", r.Sweep.Tool)
	case r.Runs < 0 || r.Runs > RunsMax || r.Failed < 0 || r.Failed > r.Runs || r.Nondeterminism < 0 || r.Nondeterminism > r.Runs:
		return fmt.Errorf("runs %d, failed %d and nondeterministic %d are not counts of at most %d runs", r.Runs, r.Failed, r.Nondeterminism, int64(RunsMax))
	case len(r.Sweep.ScenarioHashes) != len(r.Sweep.Scenarios):
		return fmt.Errorf("sweep has %d scenarios but %d hashes", len(r.Sweep.Scenarios), len(r.Sweep.ScenarioHashes))
	case r.Cases == nil:
		return errors.New(`"cases" is missing or null: want a list (maybe empty)`)
	case r.Failures == nil:
		return errors.New(`"failures" is missing or null: want a list (maybe empty)`)
	}
	for i, c := range r.Cases {
		if c.Suite == "" || c.Name == "" || c.Runs < 0 || c.Runs > r.Runs || c.Failed < 0 || c.Failed > c.Runs {
			return fmt.Errorf("cases[%d]: want a suite, a name and 0 <= failed <= runs <= the report's %d runs, got %+v", i, r.Runs, c)
		}
	}
	for i, f := range r.Failures {
		if f.Suite == "" || f.Case == "" || f.Kind == "" || f.Command == "" || f.Count < 1 || f.Count > r.Runs || f.Workers < 0 {
			return fmt.Errorf("failures[%d]: want a suite, a case, a kind, a command and 1 <= count <= the report's %d runs, got %+v", i, r.Runs, f)
		}
	}
	return checkShards(r.Shards, r.ShardCount)
}

// RunsMax bounds the runs a report may count, and so the sums Merge
// makes: 2^62, far past any sweep, so that no sum of reports overflows
// an int64 unnoticed.
const RunsMax = 1 << 62

func checkShards(ks []int, n int) error {
	if len(ks) == 0 && n == 0 {
		return nil
	}
	if n < 1 || len(ks) == 0 {
		return fmt.Errorf("shards %v of shard_count %d: want both or neither", ks, n)
	}
	for i, k := range ks {
		if k < 1 || k > n || (i > 0 && k <= ks[i-1]) {
			return fmt.Errorf("shards %v: want increasing numbers in 1..%d", ks, n)
		}
	}
	return nil
}

// locate turns a JSON error into "FILE:LINE:COL: what".
func locate(file string, data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		off = int64(len(data)) // truncated: located at its end
		err = errors.New("the JSON ends before the report does (a truncated file?)")
	}
	if off < 0 {
		return fmt.Errorf("%s: not a cbcsim report: %v", file, err)
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%s:%d:%d: not a cbcsim report: %v", file, line, col, err)
}
