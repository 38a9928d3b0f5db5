package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/ci"
)

// shardsThenMerge runs args under --shard K/3 for K = 1, 2, 3 and
// unsharded, each with --json, merges the three shards' reports with
// cbcsim merge, and returns the merged report, the unsharded one, and
// the sum of the shards' "runs".
func shardsThenMerge(t *testing.T, args ...string) (merged, whole *ci.Report, runs int64) {
	t.Helper()
	dir := t.TempDir()
	var parts []string
	for k := 0; k <= 3; k++ {
		name := filepath.Join(dir, fmt.Sprintf("shard%d.json", k))
		a := append(append([]string(nil), args...), "--json", name, "--out", filepath.Join(dir, "out"))
		if k > 0 {
			a = append(a, "--shard", fmt.Sprintf("%d/3", k))
			parts = append(parts, name)
		}
		if code, out, errOut := runCLI(a...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", a, code, out, errOut)
		}
		r, err := ci.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			whole = r
		} else {
			runs += r.Runs
		}
	}
	out := filepath.Join(dir, "merged.json")
	if code, stdout, errOut := runCLI(append([]string{"merge", "--json", out}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, errOut)
	}
	merged, err := ci.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return merged, whole, runs
}

// TestCheckShardsMergeToTheWhole: the shards of a check run its runs
// between them (their "runs" add up), and cbcsim merge of their reports
// is the unsharded report: counts, cases and failures.
func TestCheckShardsMergeToTheWhole(t *testing.T) {
	t.Parallel()
	merged, whole, runs := shardsThenMerge(t, "check", "../../scenarios", "--seeds", "3", "--workers", "1,3")
	if runs != whole.Runs || merged.Runs != whole.Runs || merged.Failed != whole.Failed || whole.Runs == 0 {
		t.Fatalf("shards ran %d, merged %d/%d failed, whole %d/%d", runs, merged.Runs, merged.Failed, whole.Runs, whole.Failed)
	}
	if !reflect.DeepEqual(merged.Cases, whole.Cases) || !reflect.DeepEqual(merged.Failures, whole.Failures) {
		t.Fatalf("merged cases/failures differ from the whole check's:\n%+v\n%+v", merged.Cases, whole.Cases)
	}
	if !reflect.DeepEqual(merged.Shards, []int{1, 2, 3}) || !reflect.DeepEqual(merged.Sweep, whole.Sweep) {
		t.Fatalf("merged shards %v sweep %+v", merged.Shards, merged.Sweep)
	}
}

func TestFuzzShardsMergeToTheWhole(t *testing.T) {
	t.Parallel()
	merged, whole, runs := shardsThenMerge(t, "fuzz", "--seeds", "40")
	if runs != 40 || whole.Runs != 40 || merged.Runs != 40 || merged.Failed != whole.Failed {
		t.Fatalf("shards ran %d, merged %d/%d failed, whole %d/%d", runs, merged.Runs, merged.Failed, whole.Runs, whole.Failed)
	}
}

// junitDoc is what a JUnit consumer reads.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestCheckJUnitHasTheFailingScenario: a known-bad scenario under pct
// fails, and the JUnit file parses and holds a failing test case for it
// with the command that reruns the failing seed; the passing scenario
// beside it has a passing case.
func TestCheckJUnitHasTheFailingScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junit, js := filepath.Join(dir, "check.xml"), filepath.Join(dir, "check.json")
	code, out, errOut := runCLI("check", "../../scenarios/bugs/run_ahead_order.toml", "../../scenarios/bugs/run_ahead_order_fixed.toml",
		"--strategy", "pct", "--seeds", "10", "--workers", "2", "--out", filepath.Join(dir, "repro"), "--junit", junit, "--json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, data)
	}
	if doc.Tests != 2 || doc.Failures != 1 || len(doc.Suites) != 2 {
		t.Fatalf("tests %d failures %d suites %d\n%s", doc.Tests, doc.Failures, len(doc.Suites), data)
	}
	bad, good := doc.Suites[0], doc.Suites[1]
	if !strings.HasSuffix(bad.Name, "run_ahead_order.toml") || bad.Cases[0].Failure == nil ||
		!strings.Contains(bad.Cases[0].Failure.Text, "reproduce: cbcsim run ../../scenarios/bugs/run_ahead_order.toml --seed ") {
		t.Fatalf("no failing case with its command for run_ahead_order.toml\n%s", data)
	}
	if good.Cases[0].Failure != nil {
		t.Fatalf("the fixed scenario's case fails\n%s", data)
	}
	r, err := ci.ReadFile(js)
	if err != nil || r.Failed == 0 || r.Runs != 20 || len(r.Failures) == 0 || r.Failures[0].Command == "" {
		t.Fatalf("JSON report %+v, %v", r, err)
	}
}

// TestMergeBadInputExits2: a file that is not a report, and reports
// that do not belong together, are bad input with the file named.
func TestMergeBadInputExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for i, p := range []string{a, b} {
		if code, out, errOut := runCLI("check", "../../scenarios/fail_fast.toml", "--seeds", "2", "--workers", "1", "--out", "",
			"--shard", fmt.Sprintf("%d/2", i+1), "--json", p); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	}
	c := filepath.Join(dir, "c.json")
	if code, out, errOut := runCLI("check", "../../scenarios/lifo_cleanup.toml", "--seeds", "2", "--workers", "1", "--out", "",
		"--shard", "2/2", "--json", c); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	notReport := writeFile(t, "x.json", "{\n  \"runs\": 3,\n  \"failed\": \"no\"\n}\n")
	out := filepath.Join(dir, "m.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{a, a}, a + ": shard 1/2 is also in " + a},
		{[]string{a, c}, c + ": not a shard of the sweep of " + a + ": sweep.scenarios"},
		{[]string{a, notReport}, notReport + ":3:"},
		{[]string{a, filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
	}
	for _, k := range cases {
		code, _, errOut := runCLI(append([]string{"merge", "--json", out}, k.args...)...)
		if code != 2 || !strings.Contains(errOut, k.want) {
			t.Errorf("merge %v: exit %d, %q; want 2 and %q", k.args, code, errOut, k.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a refused merge wrote %s", out)
	}
	if code, stdout, errOut := runCLI("merge", "--json", out, a, b); code != 0 || !strings.Contains(stdout, "2 runs, 0 failed") {
		t.Fatalf("merge a b: exit %d\n%s\n%s", code, stdout, errOut)
	}
}
