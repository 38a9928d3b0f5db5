package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/trace"
)

// Golden compares got with the golden file at path or, when update (the
// package's -update flag) is set, rewrites the file. A difference fails
// the test with the first line that differs and how to regenerate.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs at %s\nrerun with -update and review the diff", path, FirstDiff(got, want))
	}
}

// FirstDiff describes the first line at which got and want differ.
func FirstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var x, y string
		if i < len(g) {
			x = g[i]
		}
		if i < len(w) {
			y = w[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + x + "\n  want: " + y
		}
	}
	return "(no line differs)"
}

// ReproDir checks what every repro directory of a seeded run holds:
// scenario.toml is src, and run.trace parses, recorded with seed and
// workers. It returns README.txt, for the caller's own checks.
func ReproDir(t testing.TB, dir, src string, seed uint64, workers int) string {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, "scenario.toml"))
	if err != nil || string(got) != src {
		t.Errorf("%s/scenario.toml: %q, %v; want the scenario's source", dir, got, err)
	}
	f, err := os.Open(filepath.Join(dir, "run.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Parse(f)
	f.Close()
	if err != nil {
		t.Fatalf("%s/run.trace: %v", dir, err)
	}
	s, _ := tr.Header.Get(trace.KeySeed)
	w, _ := tr.Header.Get(trace.KeyWorkers)
	if s.Int != int64(seed) || w.Int != int64(workers) {
		t.Errorf("%s/run.trace: header seed %d workers %d, want %d and %d", dir, s.Int, w.Int, seed, workers)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(readme)
}

// FirstErrorRace is a scenario that passes on some seeds and fails on
// others: it expects A's error, and a schedule in which B's error reaches
// the collect_all nursery first fails it.
const FirstErrorRace = `version = 1
name = "first error race"
[task.main]
ops = [ { nursery = "n", mode = "collect_all", body = [ { spawn = "a" }, { spawn = "b" } ] } ]
[task.a]
ops = [ { compute = 3 }, { fail = "A" } ]
[task.b]
ops = [ { compute = 3 }, { fail = "B" } ]
[expect]
error = "A"
`

// FullEnv is the environment variable that asks the tests for their full
// counts; `make test` sets it (CBCSIM_TEST_FULL=1).
const FullEnv = "CBCSIM_TEST_FULL"

// Full reports whether the tests run their full counts: the fixed GoKer
// kernels' seeds, the hostile sample, the leak test's runs. Plain `go
// test ./...` runs the smaller counts, each still large enough to find
// what its test is for (docs/contributing.md#the-test-suite); `make test`
// sets CBCSIM_TEST_FULL=1 and runs them all.
func Full() bool { return os.Getenv(FullEnv) == "1" }
