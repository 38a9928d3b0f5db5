package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportFile is the part of the Chrome trace-event JSON the CLI tests read;
// package trace checks the structure in full.
type exportFile struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Ts   *uint64        `json:"ts"`
		Dur  *uint64        `json:"dur"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
}

// exportTrace runs a bundled scenario and returns the path of its trace.
func exportTrace(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "run.trace")
	if code, out, errOut := runCLI("run", "../../scenarios/fail_fast.toml", "--seed", "5", "--workers", "3", "--trace", p); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	return p
}

func TestExportChrome(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tracePath := exportTrace(t, dir)
	outPath := filepath.Join(dir, "run.json")
	code, out, errOut := runCLI("export", tracePath, "--format", "chrome", "-o", outPath)
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var f exportFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	var lanes []string
	var process string
	var steps float64
	for _, e := range f.TraceEvents {
		switch {
		case e.Name == "process_name":
			process, _ = e.Args["name"].(string)
		case e.Name == "thread_name":
			lanes = append(lanes, e.Args["name"].(string))
		case e.Ph == "X":
			if e.Ts == nil || e.Dur == nil || *e.Dur == 0 {
				t.Errorf("slice without ts or dur: %+v", e)
			}
			steps += e.Args["steps"].(float64)
		}
	}
	if process != "cbcsim: fail-fast cancels siblings" {
		t.Errorf("process name %q", process)
	}
	if got := strings.Join(lanes, ","); got != "worker 0,worker 1,worker 2,driver" {
		t.Errorf("lanes %s", got)
	}
	text, _ := os.ReadFile(tracePath)
	if runs := strings.Count(string(text), " run task="); runs == 0 || float64(runs) != steps {
		t.Errorf("the slices cover %v run steps, the trace has %d", steps, runs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// stdout, "-o -" and stdin give the same bytes.
	code, out, errOut = runCLI("export", tracePath, "--format=chrome")
	if code != 0 || out != string(data) {
		t.Fatalf("stdout: exit %d, differs from the file: %s", code, errOut)
	}
	if code, out, _ = runCLI("export", tracePath, "--format", "chrome", "--output", "-"); code != 0 || out != string(data) {
		t.Fatalf("-o -: exit %d, differs from the file", code)
	}
	root := newRootCmd(new(bytes.Buffer), new(bytes.Buffer))
	var stdout bytes.Buffer
	root.SetOut(&stdout)
	root.SetIn(bytes.NewReader(text))
	root.SetArgs([]string{"export", "-", "--format", "chrome"})
	if err := root.Execute(); err != nil || stdout.String() != string(data) {
		t.Fatalf("stdin: %v, differs from the file", err)
	}
}

func TestExportBadInputExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := exportTrace(t, dir)
	bad := filepath.Join(dir, "bad.trace")
	src := "# cbcsim-trace 1\n# source: 0\n# end\n0 0 w0 run task=1\n1 1 w0 bogus\n"
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(dir, "out.json")
	cases := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"no format", []string{"export", good}, []string{"--format", "chrome"}},
		{"unknown format", []string{"export", good, "--format", "json", "-o", outPath}, []string{`"json"`, "the formats are chrome"}},
		{"malformed trace", []string{"export", bad, "--format", "chrome", "-o", outPath}, []string{bad + ": line 5:", "bogus"}},
		{"missing trace", []string{"export", filepath.Join(dir, "nope.trace"), "--format", "chrome"}, []string{"nope.trace"}},
		{"no trace", []string{"export", "--format", "chrome"}, []string{"arg"}},
		{"two traces", []string{"export", good, good, "--format", "chrome"}, []string{"arg"}},
		{"unwritable output", []string{"export", good, "--format", "chrome", "-o", filepath.Join(dir, "no", "such", "dir.json")}, []string{"dir.json"}},
		{"unknown flag", []string{"export", good, "--format", "chrome", "--frobnicate"}, []string{"frobnicate"}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, errOut)
			continue
		}
		if out != "" {
			t.Errorf("%s: wrote to stdout: %q", c.name, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q: %s", c.name, w, errOut)
			}
		}
		if strings.Contains(errOut, "goroutine ") {
			t.Errorf("%s: stack trace printed: %s", c.name, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a failed export left files behind: %v", entries)
	}
}
