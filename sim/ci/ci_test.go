package ci

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func shard(k int, runs, failed int64, fails ...Failure) Input {
	r := &Report{Format: Format, Sweep: Sweep{Tool: "check", Scenarios: []string{"a.toml"}, ScenarioHashes: []string{"h"}, Seeds: 9, SeedStart: 1, Workers: []int{2}},
		Shards: []int{k}, ShardCount: 3, Runs: runs, Failed: failed,
		Cases: []Case{{Suite: "a.toml", Name: "workers=2", Runs: runs, Failed: failed}}, Failures: fails}
	r.Sort()
	return Input{File: "s" + string(rune('0'+k)) + ".json", Report: r}
}

func fail(seed uint64, kind string, count int64) Failure {
	return Failure{Suite: "a.toml", Case: "workers=2", Kind: kind, Seed: seed, Workers: 2, Count: count, Command: "cbcsim run a.toml --seed " + string(rune('0'+seed))}
}

// TestMergeFolds: counts and cases add up, a kind of failure keeps its
// smallest seed (with that seed's command) and the sum of its counts.
func TestMergeFolds(t *testing.T) {
	t.Parallel()
	m, err := Merge([]Input{shard(2, 3, 2, fail(5, "deadlock", 1), fail(2, "ok|expect.log", 1)), shard(1, 3, 1, fail(4, "deadlock", 1)), shard(3, 3, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := &Report{Format: Format, Sweep: shard(1, 0, 0).Report.Sweep, Shards: []int{1, 2, 3}, ShardCount: 3, Runs: 9, Failed: 3,
		Cases:    []Case{{Suite: "a.toml", Name: "workers=2", Runs: 9, Failed: 3}},
		Failures: []Failure{fail(2, "ok|expect.log", 1), fail(4, "deadlock", 2)}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("merged\n%+v\nwant\n%+v", m, want)
	}
}

// TestMergeInterrupted: the merged report is interrupted when any
// shard's was, and not when none was.
func TestMergeInterrupted(t *testing.T) {
	t.Parallel()
	for i := range 4 {
		in := []Input{shard(1, 3, 0), shard(2, 3, 0), shard(3, 3, 0)}
		if i < 3 {
			in[i].Report.Interrupted = true
		}
		m, err := Merge(in)
		if err != nil {
			t.Fatal(err)
		}
		if m.Interrupted != (i < 3) {
			t.Errorf("shard %d interrupted: merged interrupted %v", i+1, m.Interrupted)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	other := shard(2, 3, 0)
	other.Report.Sweep.ScenarioHashes = []string{"changed"}
	whole := shard(1, 9, 0)
	whole.Report.Shards, whole.Report.ShardCount, whole.File = nil, 0, "whole.json"
	four := shard(2, 3, 0)
	four.Report.ShardCount = 4
	cases := []struct {
		in   []Input
		want string
	}{
		{[]Input{shard(1, 3, 0), other}, "s2.json: not a shard of the sweep of s1.json: sweep.scenario_hashes"},
		{[]Input{shard(1, 3, 0), shard(1, 3, 0)}, "s1.json: shard 1/3 is also in s1.json"},
		{[]Input{whole, shard(2, 3, 0)}, "s2.json: overlaps whole.json"},
		{[]Input{shard(2, 3, 0), whole}, "whole.json: an unsharded report covers every run"},
		{[]Input{shard(1, 3, 0), four}, "s2.json: shards of 4, but s1.json has shards of 3"},
		{nil, "no reports"},
	}
	for _, c := range cases {
		if _, err := Merge(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestParseLocatesErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ data, want string }{
		{"{\n  \"format\": \"cbcsim-report/1\",\n  \"runs\": x\n}", "r.json:3:"},
		{`{"a": 1}`, `r.json: not a cbcsim report: json: unknown field "a"`},
		{`{"format": "other"}`, `r.json: not a cbcsim report: "format" is "other"`},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "run"}}`, `sweep.tool is "run"`},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "runs": 1, "failed": 2}`, "are not counts"},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "shards": [2], "shard_count": 1, "cases": [], "failures": []}`, "increasing numbers in 1..1"},
		// Fields the JSON types let through (issue 28): counts past RunsMax,
		// null or missing lists, empty or null failures and cases.
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "runs": 9223372036854775807, "cases": [], "failures": []}`, "are not counts"},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "cases": null, "failures": []}`, `"cases" is missing or null`},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "cases": []}`, `"failures" is missing or null`},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "runs": 1, "failed": 1, "cases": [], "failures": [{}]}`, "failures[0]: want"},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "runs": 1, "failed": 1, "cases": [], "failures": [null]}`, "failures[0]: want"},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}, "runs": 1, "cases": [{"suite": "s", "name": "n", "runs": 2}], "failures": []}`, "cases[0]: want"},
		// A truncated file is located at its end.
		{"{\n  \"format\": \"cbcsim-report/1\",\n  \"cases\": [", "r.json:3:13: not a cbcsim report: the JSON ends before the report does"},
		{`{"format": "cbcsim-report/1", "sweep": {"tool": "fuzz"}} {}`, "more than one JSON value"},
	}
	for _, c := range cases {
		if _, err := Parse("r.json", []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
}

// TestJSONRoundTrip: what WriteJSON writes, Parse reads back equal.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := shard(2, 3, 1, fail(4, "deadlock", 1)).Report
	var b bytes.Buffer
	if err := in.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	out, err := Parse("r.json", b.Bytes())
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("read back %+v, %v; wrote %+v", out, err, in)
	}
}

// TestJUnitParses: the XML parses, the counts agree with the cases, and
// a failing case carries a <failure> with the rerun command. xmllint,
// when installed, validates it too.
func TestJUnitParses(t *testing.T) {
	t.Parallel()
	r := shard(1, 3, 1, fail(4, "deadlock", 1)).Report
	r.Cases = append(r.Cases, Case{Suite: "b.toml", Name: "workers=1", Runs: 3})
	r.Sort()
	var b bytes.Buffer
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("the JUnit XML does not parse: %v\n%s", err, b.String())
	}
	if got.Tests != 2 || got.Failures != 1 || len(got.Suites) != 2 {
		t.Fatalf("tests %d failures %d suites %d\n%s", got.Tests, got.Failures, len(got.Suites), b.String())
	}
	f := got.Suites[0].Cases[0].Failure
	if f == nil || !strings.Contains(f.Text, "reproduce: cbcsim run a.toml --seed 4") || f.Type != "deadlock" {
		t.Fatalf("failing case: %+v\n%s", f, b.String())
	}
	if got.Suites[1].Cases[0].Failure != nil {
		t.Fatalf("a passing case has a failure\n%s", b.String())
	}
	if lint, err := exec.LookPath("xmllint"); err == nil {
		p := filepath.Join(t.TempDir(), "r.xml")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(lint, "--noout", p).CombinedOutput(); err != nil {
			t.Fatalf("xmllint: %v\n%s", err, out)
		}
	}
	// A fuzz report without failures still has one (passing) test case.
	b.Reset()
	if err := (&Report{Format: Format, Sweep: Sweep{Tool: "fuzz"}, Runs: 300}).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil || got.Tests != 1 || got.Failures != 0 {
		t.Fatalf("fuzz without failures: %+v, %v\n%s", got, err, b.String())
	}
}

// An interrupted sweep's JUnit has a test case in error, so that it never
// reads as a pass; a whole sweep's has none.
func TestJUnitInterrupted(t *testing.T) {
	for _, interrupted := range []bool{false, true} {
		r := &Report{Format: Format, Sweep: Sweep{Tool: "fuzz"}, Runs: 300, Interrupted: interrupted}
		var b bytes.Buffer
		if err := r.WriteJUnit(&b); err != nil {
			t.Fatal(err)
		}
		var got junitSuites
		if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		marked := got.Errors == 1 && strings.Contains(b.String(), `<error message="interrupted by a signal after 300 runs`)
		if marked != interrupted || got.Failures != 0 {
			t.Errorf("interrupted %v: errors %d failures %d\n%s", interrupted, got.Errors, got.Failures, b.String())
		}
	}
}
