package hostile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/internal/testkit"
)

var (
	flagN       = flag.Int("hostile.n", sampleN(), "hostile inputs to run (make hostile runs 5500, make test 200, plain go test 90)")
	flagSeed    = flag.Uint64("hostile.seed", 1, "seed of the mutations: the same seed gives the same inputs")
	flagTimeout = flag.Duration("hostile.timeout", 20*time.Second, "time limit of one run")
	flagRSS     = flag.Int64("hostile.rss", 1<<30, "memory limit of one run, in bytes of resident memory")
	flagJobs    = flag.Int("hostile.jobs", 2, "runs at once")
	flagKeep    = flag.String("hostile.keep", "", "copy the directory of every violating case under this directory")
	flagStrict  = flag.Bool("hostile.strict", false, "fail on violations of known open problems too (known_test.go)")
	flagOnly    = flag.String("hostile.only", "", "run only the cases whose command line, or \"kind:\" and kind, matches this regexp (the same -hostile.n and -hostile.seed reproduce a case)")
)

// sampleN is the default -hostile.n: the sample of 200 under `make test`
// (testkit.Full), 90 in plain `go test ./...` (every kind of case still
// drawn, signals included, in a quarter of the CPU time: its mutated runs
// and its 1.5 s signal cases were the package's cost).
func sampleN() int {
	if testkit.Full() {
		return 200
	}
	return 90
}

// bin is the cbcsim binary under test, built by TestMain; binMutants is
// the same built with the mutants tag, for the cases that need a failure
// found (CBCSIM_MUTANT in a case's env).
var bin, binMutants string

// kept numbers the directories -hostile.keep copies.
var kept atomic.Int64

func TestMain(m *testing.M) {
	flag.Parse()
	// Without -race: the limits are the product's, not the detector's.
	// The two builds at once: each is a link when a source changed, on a
	// core of its own, and nothing when none did (testkit.BuildCbcsim).
	tags := []string{"", "mutants"}
	paths := make([]string, len(tags))
	failed := make([]error, len(tags))
	var wg sync.WaitGroup
	for i, tag := range tags {
		wg.Go(func() { paths[i], failed[i] = testkit.BuildCbcsim(tag) })
	}
	wg.Wait()
	for _, err := range failed {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	bin, binMutants = paths[0], paths[1]
	code := m.Run()
	for _, p := range paths {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

// A kase is one hostile input: files to lay out in a fresh directory, the
// command line, and what the contract allows.
type kase struct {
	kind    string            // the report's category
	args    []string          // cbcsim's arguments, relative to the case's directory
	files   map[string][]byte // written into the directory first
	setup   func(dir string) error
	status  []int  // the exit statuses the case allows
	located string // exit 2: a regexp the message on stderr must match
	// outputs are the paths the run may create or change; a path ending in
	// "/" covers everything under it. Anything else must be left as it was.
	outputs []string
	after   func(dir string) string // more checks once the run ended; "" when fine
	fifo    string                  // a FIFO in the directory that a reader drains
	// notInStdout is text the report must not contain (a false claim).
	notInStdout string
	signal      syscall.Signal // sent after signalAfter, if set
	signalAfter time.Duration
	// inOutput is a regexp stdout or stderr must match (the message the
	// case is about: a located step, a reason, both errors of a failure).
	inOutput string
	env      []string // added to the environment; CBCSIM_MUTANT=... runs binMutants
	// wrap runs the binary under another command: wrap, then the binary
	// and args (unshare for a full disk).
	wrap []string
	// heavy cases (seconds, hundreds of MB) run in make hostile only, not
	// in the CI sample beside the race-detector tests.
	heavy bool
	// prog, when set, is run instead of cbcsim (relative to the case's
	// directory: a C program its setup compiled).
	prog string
}

// outcome is what one run did.
type outcome struct {
	status  int
	stdout  string
	stderr  string
	elapsed time.Duration
	maxRSS  int64 // bytes
	killed  string
}

// stackDump matches what a Go panic or fatal error prints.
var stackDump = regexp.MustCompile(`(?m)^goroutine \d+ \[|^panic: |^fatal error: |\.go:\d+ \+0x[0-9a-f]+`)

// run executes c in dir under the limits.
func run(c *kase, dir string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), *flagTimeout)
	defer cancel()
	exe := bin
	for _, e := range c.env {
		if strings.HasPrefix(e, "CBCSIM_MUTANT=") {
			exe = binMutants
		}
	}
	if c.prog != "" {
		exe = filepath.Join(dir, c.prog)
	}
	args := c.args
	if len(c.wrap) > 0 {
		args = append(append(append([]string(nil), c.wrap[1:]...), exe), c.args...)
		exe = c.wrap[0]
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOTRACEBACK=all"), c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &stdout}, &limited{b: &stderr}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return outcome{status: -1, stderr: err.Error()}
	}
	var killed string
	var maxRSS int64
	var mu sync.Mutex
	done := make(chan struct{})
	go func() { // the memory watchdog
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				rss, peak := rssOf(cmd.Process.Pid)
				mu.Lock()
				maxRSS = max(maxRSS, peak, rss)
				mu.Unlock()
				if rss > *flagRSS {
					mu.Lock()
					killed = fmt.Sprintf("killed at %d MB of RSS", rss>>20)
					mu.Unlock()
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	if c.signal != 0 {
		go func() {
			select {
			case <-time.After(c.signalAfter):
				cmd.Process.Signal(c.signal)
			case <-done:
			}
		}()
	}
	err := cmd.Wait()
	close(done)
	o := outcome{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	// Not the rusage of wait4: Linux carries the parent's peak across
	// fork and exec into it. The samples miss at most the last 10 ms.
	mu.Lock()
	o.killed, o.maxRSS = killed, maxRSS
	mu.Unlock()
	if ctx.Err() != nil {
		o.killed = fmt.Sprintf("killed after %v", *flagTimeout)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		o.status = 0
	case errors.As(err, &ee):
		o.status = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			o.status = 128 + int(ws.Signal())
		}
	default:
		o.status = -1
		o.stderr += err.Error()
	}
	return o
}

// limited keeps the first 1 MiB of an output stream: a run that prints
// without end must not take the harness's memory with it.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 1<<20 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// rssOf reads a process's resident set size and its peak (VmHWM) from
// /proc, in bytes (0 if unknown).
func rssOf(pid int) (rss, peak int64) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		for key, into := range map[string]*int64{"VmRSS:": &rss, "VmHWM:": &peak} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					kb, _ := strconv.ParseInt(f[0], 10, 64)
					*into = kb << 10
				}
			}
		}
	}
	return rss, peak
}

// entry is what a snapshot records of one path.
type entry struct {
	mode fs.FileMode
	link string
	sum  [32]byte
}

// snapshot records every path under dir (FIFOs and devices by type only).
func snapshot(dir string) map[string]entry {
	out := map[string]entry{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := os.Lstat(path)
		if err != nil {
			return nil
		}
		e := entry{mode: fi.Mode()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link, _ = os.Readlink(path)
		case fi.Mode().IsRegular() && fi.Size() <= 64<<20:
			data, _ := os.ReadFile(path)
			e.sum = sha256.Sum256(data)
		case fi.Mode().IsRegular():
			// A huge (sparse) input: its size and time stand for it.
			e.sum = sha256.Sum256([]byte(fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())))
		}
		out[rel] = e
		return nil
	})
	return out
}

// isOutput reports whether rel is one of the paths c may write.
func (c *kase) isOutput(rel string) bool {
	for _, o := range c.outputs {
		if rel == o || (strings.HasSuffix(o, "/") && strings.HasPrefix(rel+"/", o)) {
			return true
		}
	}
	return false
}

// judge checks the contract; it returns the violations.
func judge(c *kase, o outcome, before, after map[string]entry) []string {
	var bad []string
	if o.killed != "" {
		bad = append(bad, o.killed)
	}
	if o.elapsed > *flagTimeout {
		bad = append(bad, fmt.Sprintf("took %v", o.elapsed.Round(time.Millisecond)))
	}
	if o.maxRSS > *flagRSS {
		bad = append(bad, fmt.Sprintf("peak RSS %d MB", o.maxRSS>>20))
	}
	if !contains(c.status, o.status) {
		bad = append(bad, fmt.Sprintf("exit status %d, want one of %v", o.status, c.status))
	}
	if c.inOutput != "" && !regexp.MustCompile(c.inOutput).MatchString(o.stdout+o.stderr) {
		bad = append(bad, fmt.Sprintf("the output does not match %q:\n%s%s", c.inOutput, o.stdout, o.stderr))
	}
	if c.notInStdout != "" && strings.Contains(o.stdout, c.notInStdout) {
		bad = append(bad, fmt.Sprintf("the report says %q:\n%s", c.notInStdout, o.stdout))
	}
	if stackDump.MatchString(o.stderr) || stackDump.MatchString(o.stdout) {
		bad = append(bad, "a Go stack dump")
	}
	if o.status == 2 {
		first := strings.SplitN(strings.TrimSpace(o.stderr), "\n", 2)[0]
		if c.located == "" || !regexp.MustCompile(c.located).MatchString(first) {
			bad = append(bad, fmt.Sprintf("exit 2 without a located message (want %s): %q", c.located, first))
		}
	}
	var names []string
	for rel := range before {
		names = append(names, rel)
	}
	for rel := range after {
		if _, ok := before[rel]; !ok {
			names = append(names, rel)
		}
	}
	sort.Strings(names)
	for _, rel := range names {
		b, inB := before[rel]
		a, inA := after[rel]
		switch {
		case strings.Contains(filepath.Base(rel), ".tmp"):
			bad = append(bad, "temporary file left behind: "+rel)
		case c.isOutput(rel):
			if inB && inA && b.mode.Type() != a.mode.Type() {
				bad = append(bad, fmt.Sprintf("%s was a %v, is a %v", rel, b.mode.Type(), a.mode.Type()))
			}
			if inB && inA && b.mode.Perm() != a.mode.Perm() && b.mode.Type() == 0 {
				bad = append(bad, fmt.Sprintf("%s had mode %v, has %v", rel, b.mode.Perm(), a.mode.Perm()))
			}
			if inB && !inA {
				bad = append(bad, rel+" was removed")
			}
		case inB && !inA:
			bad = append(bad, rel+" was removed")
		case !inB && inA:
			bad = append(bad, rel+" was created")
		case b != a:
			bad = append(bad, rel+" was changed")
		}
	}
	return bad
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// result is one case's verdict.
type result struct {
	c   *kase
	o   outcome
	bad []string
}

// runCase lays out a fresh directory, runs c and judges it. It runs on a
// goroutine of TestHostile's, where t.Fatal would end only that goroutine:
// a harness failure (laying out the directory) is returned as a violation
// that says so.
func runCase(c *kase) result {
	harness := func(err error) result {
		return result{c: c, o: outcome{status: -1}, bad: []string{"harness: laying out the case: " + err.Error()}}
	}
	dir, err := os.MkdirTemp("", "hostile-case")
	if err != nil {
		return harness(err)
	}
	defer os.RemoveAll(dir)
	for name, data := range c.files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return harness(err)
		}
	}
	if c.setup != nil {
		if err := c.setup(dir); err != nil {
			return harness(fmt.Errorf("setup: %w", err))
		}
	}
	var fifoGot chan []byte
	if c.fifo != "" {
		fifoGot = make(chan []byte, 1)
		path := filepath.Join(dir, c.fifo)
		go func() {
			data, _ := os.ReadFile(path)
			fifoGot <- data
		}()
	}
	before := snapshot(dir)
	o := run(c, dir)
	var fifoData []byte
	if fifoGot != nil {
		// Unblock a reader whose writer never came.
		if w, err := os.OpenFile(filepath.Join(dir, c.fifo), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		fifoData = <-fifoGot
	}
	after := snapshot(dir)
	bad := judge(c, o, before, after)
	if c.after != nil && len(bad) == 0 {
		if msg := c.after(dir); msg != "" {
			bad = append(bad, msg)
		}
	}
	if c.fifo != "" && o.status == 0 && len(bad) == 0 && !looksLikeOutput(fifoData) {
		bad = append(bad, fmt.Sprintf("the FIFO's reader got %d bytes, not the output", len(fifoData)))
	}
	if len(bad) > 0 && *flagKeep != "" {
		os.MkdirAll(*flagKeep, 0o755)
		exec.Command("cp", "-r", dir, filepath.Join(*flagKeep, fmt.Sprintf("case-%d", kept.Add(1)))).Run()
		os.WriteFile(filepath.Join(*flagKeep, fmt.Sprintf("case-%d", kept.Load()), "COMMAND"), []byte("cbcsim "+quoteArgs(c.args)+"\n"), 0o644)
	}
	return result{c: c, o: o, bad: bad}
}

// looksLikeOutput: a trace or a chrome export.
func looksLikeOutput(b []byte) bool {
	return bytes.HasPrefix(b, []byte("# cbcsim-trace")) || bytes.HasPrefix(b, []byte("{")) || bytes.HasPrefix(b, []byte("[")) ||
		bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) // cbcsim report
}

// TestHostile runs -hostile.n hostile inputs and fails on any violation of
// the contract in the package doc.
func TestHostile(t *testing.T) {
	cases := buildCases(t, *flagN, *flagSeed)
	if *flagOnly != "" {
		re := regexp.MustCompile(*flagOnly)
		var only []*kase
		for _, c := range cases {
			if re.MatchString(quoteArgs(c.args)) || re.MatchString("kind:"+c.kind) {
				only = append(only, c)
			}
		}
		cases = only
	}
	results := make([]result, len(cases))
	sem := make(chan struct{}, max(1, *flagJobs))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = runCase(cases[i])
		}()
	}
	wg.Wait()

	type tally struct {
		n, violations int
		known         int // violations of a known open problem
		statuses      map[int]int
		slowest       time.Duration
		peak          int64
	}
	kinds := map[string]*tally{}
	var order []string
	violations := 0
	knownCount := map[string]int{}
	for _, r := range results {
		k := kinds[r.c.kind]
		if k == nil {
			k = &tally{statuses: map[int]int{}}
			kinds[r.c.kind] = k
			order = append(order, r.c.kind)
		}
		k.n++
		k.statuses[r.o.status]++
		k.slowest = max(k.slowest, r.o.elapsed)
		k.peak = max(k.peak, r.o.maxRSS)
		if len(r.bad) == 0 {
			continue
		}
		if why := knownWhy(r.c, r.bad); why != "" && !*flagStrict {
			k.known++
			knownCount[why]++
			continue
		}
		k.violations++
		violations++
		if violations <= 40 {
			t.Errorf("cbcsim %s\n  %s\n  stderr: %.400s", quoteArgs(r.c.args), strings.Join(r.bad, "\n  "), r.o.stderr)
		}
	}
	sort.Strings(order)
	var b strings.Builder
	total := 0
	for _, n := range knownCount {
		total += n
	}
	fmt.Fprintf(&b, "%d hostile inputs in %v (seed %d), %d violations, %d of known open problems\n", len(results), time.Since(start).Round(time.Second), *flagSeed, violations, total)
	for _, k := range known {
		if n := knownCount[k.why]; n > 0 {
			fmt.Fprintf(&b, "  known, %d: %s\n", n, k.why)
		}
	}
	fmt.Fprintf(&b, "%-22s %6s %10s %6s %-28s %9s %8s\n", "kind", "inputs", "violations", "known", "exit statuses", "slowest", "peak RSS")
	for _, name := range order {
		k := kinds[name]
		var st []string
		for _, s := range sortedKeys(k.statuses) {
			st = append(st, fmt.Sprintf("%d:%d", s, k.statuses[s]))
		}
		fmt.Fprintf(&b, "%-22s %6d %10d %6d %-28s %9v %6d MB\n", name, k.n, k.violations, k.known, strings.Join(st, " "), k.slowest.Round(time.Millisecond), k.peak>>20)
	}
	t.Log("\n" + b.String())
}

func sortedKeys(m map[int]int) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func quoteArgs(args []string) string {
	var out []string
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$") {
			a = strconv.Quote(a)
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}
