package simtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cbcsim/cbcsim/internal/testkit"
)

// TestFreshModule is the user's view: a module of its own that requires
// cbcsim (through a replace directive to this tree) and tests bodies with
// simtest. Each bug must fail within the default seeds and print a rerun
// command that, pasted into a shell in the module, fails the same run
// again; the fixed versions and a body of the module's own must pass, and
// the racy body must be reported as nondeterministic. It builds a module
// and runs go test four times under `make test` (testkit.Full), the three
// reruns at once, and twice in plain go test (one rerun); about 20 s of
// CPU on a cold cache, so -short skips it.
func TestFreshModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and tests a module of its own")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(gomod)
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module example.com/fresh\n\n"+string(goLine)+"\n\nrequire github.com/cbcsim/cbcsim v0.0.0\n\nreplace github.com/cbcsim/cbcsim => "+root+"\n"))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	src, err := os.ReadFile("testdata/fresh/bugs_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	write("bugs_test.go", src)
	failures := filepath.Join(dir, "failures")

	goTest := func(args ...string) (string, bool) {
		cmd := exec.Command(goBin, append([]string{"test"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}

	out, ok := goTest("-v", "-count=1", ".", "-simtest.failures="+failures)
	if ok {
		t.Fatalf("go test passed with the bugs in:\n%s", out)
	}
	if !strings.Contains(out, "=== RUN") {
		t.Fatalf("the module's tests did not run (a build error?):\n%s", out)
	}
	// The reruns are independent go test commands: they run at once.
	var wg sync.WaitGroup
	for _, tc := range []struct{ test, want string }{
		{"TestLockOrderBug", "deadlock"},
		{"TestLostMessageBug", "results: "},
		{"TestBoundedBufferBug", "livelock"},
		{"TestRacyGoroutineBug", "nondeterministic"},
	} {
		part := section(out, tc.test)
		if !strings.Contains(part, "--- FAIL: "+tc.test) || !strings.Contains(part, tc.want) {
			t.Errorf("%s: want a failure naming %q:\n%s", tc.test, tc.want, part)
			continue
		}
		if tc.test == "TestRacyGoroutineBug" {
			continue // a nondeterministic run has nothing to rerun
		}
		m := rerunRe.FindStringSubmatch(part)
		s := seedRe.FindString(part)
		if m == nil || s == "" {
			t.Errorf("%s: no rerun command or seed:\n%s", tc.test, part)
			continue
		}
		if tc.test != "TestLostMessageBug" && !testkit.Full() {
			// Each printed its rerun command (checked above); plain go
			// test runs one of them, the failure at a seed other than 0
			// on 4 workers, and make test all three.
			continue
		}
		args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(m[1], "go test "), "'", ""))
		wg.Go(func() {
			// t.Errorf and t.Logf only: t.Fatal would end this goroutine, not the test.
			again, ok := goTest(append(args, "-count=1", "-simtest.failures="+failures)...)
			if ok || !strings.Contains(again, s+",") || !strings.Contains(again, tc.want) {
				t.Errorf("%s: the rerun %q did not fail the same run (%s):\n%s", tc.test, m[1], s, again)
				return
			}
			t.Logf("%s: %s, rerun with %s: reproduced", tc.test, s, m[1])
		})
	}
	wg.Wait()
	for _, name := range []string{"TestFixed", "TestOwnPipeline"} {
		if part := section(out, name); !strings.Contains(part, "--- PASS: "+name) {
			t.Errorf("%s did not pass:\n%s", name, part)
		}
	}
}

// section is the part of go test -v output about one top-level test.
func section(out, test string) string {
	i := strings.Index(out, "=== RUN   "+test+"\n")
	if i < 0 {
		return ""
	}
	rest := out[i+1:]
	if j := regexp.MustCompile(`(?m)^=== RUN   Test[^/\n]*\n`).FindStringIndex(rest[len("=== RUN   "+test):]); j != nil {
		return rest[:len("=== RUN   "+test)+j[0]]
	}
	return rest
}
