package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/internal/testkit"
)

// TestInterruptReports: the built binary, signalled while fuzz, explore
// and check run, stops, prints its report of the runs made, writes its
// JSON report (fuzz, check) whole, and exits 128+signal; the directory holds no
// temporary file. One signal each, once the progress line shows that
// runs are under way. Plain go test signals check only, make test
// (testkit.Full) all three.
func TestInterruptReports(t *testing.T) {
	t.Parallel()
	dir := recipeDir(t)
	for _, c := range []struct {
		name   string
		args   []string
		sig    syscall.Signal
		code   int
		report string // what stdout must say
	}{
		{"fuzz SIGINT", []string{"fuzz", "--duration", "10m", "--jobs", "1", "--json", "r.json"}, syscall.SIGINT, 130, ", interrupted\n"},
		{"explore SIGTERM", []string{"explore", "../../bench/testdata/twenty.toml", "--preemptions", "6", "--jobs", "1"}, syscall.SIGTERM, 143, "schedules, not exhaustive"},
		{"check SIGINT", []string{"check", "../../scenarios/lifo_cleanup.toml", "--seeds", "100000000", "--workers", "1", "--jobs", "1", "--json", "r.json"},
			syscall.SIGINT, 130, " of 100000000 runs made, the others not run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.args[0] != "check" && !testkit.Full() {
				// A signalled run costs a second of CPU time: plain go
				// test signals check, make test all three commands
				// (internal/hostile's signal cases send both signals to each).
				t.Skip("plain go test signals check only; make test (CBCSIM_TEST_FULL=1) signals fuzz and explore too")
			}
			t.Parallel()
			work := t.TempDir()
			args := c.args
			if args[0] != "fuzz" {
				abs, err := filepath.Abs(args[1])
				if err != nil {
					t.Fatal(err)
				}
				args = append([]string{args[0], abs}, args[2:]...)
			}
			cmd := exec.Command(filepath.Join(dir, "bin", "cbcsim"), args...)
			// The runs before the signal only fill the second until the
			// first progress line: at the lowest priority they take the
			// CPU time the other tests leave (nice execs cbcsim in its
			// place, so the signal still reaches cbcsim).
			if nice, err := exec.LookPath("nice"); err == nil {
				cmd = exec.Command(nice, append([]string{"-n", "19", filepath.Join(dir, "bin", "cbcsim")}, args...)...)
			}
			cmd.Dir = work
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first progress line comes after a second of runs.
			line := make([]byte, 4096)
			deadline := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
			defer deadline.Stop()
			var seen bytes.Buffer
			for !strings.Contains(seen.String(), " runs, ") {
				n, err := stderr.Read(line)
				if err != nil {
					t.Fatalf("stderr ended before a progress line: %v\n%s", err, seen.String())
				}
				seen.Write(line[:n])
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			restb, _ := io.ReadAll(stderr) // to its end: the pipe closes when the process exits
			rest := string(restb)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("exit %v, want status %d\nstdout:\n%s\nstderr:\n%s%s", err, c.code, stdout.String(), seen.String(), rest)
			}
			if !strings.Contains(stdout.String(), c.report) || !strings.Contains(rest, "interrupted: the report above covers the runs made before the signal") {
				t.Fatalf("want %q in the report and the interruption said\nstdout:\n%s\nstderr:\n%s%s", c.report, stdout.String(), seen.String(), rest)
			}
			entries, err := os.ReadDir(work)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("a temporary file was left: %s", e.Name())
				}
			}
			if c.args[0] == "explore" {
				return
			}
			data, err := os.ReadFile(filepath.Join(work, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Runs        int64 `json:"runs"`
				Interrupted bool  `json:"interrupted"`
			}
			if err := json.Unmarshal(data, &rep); err != nil || rep.Runs < 1 || !rep.Interrupted {
				t.Fatalf("the JSON report: %v, %+v\n%s", err, rep, data)
			}
		})
	}
}
