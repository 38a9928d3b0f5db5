package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// The second adversarial pass (issue 28): explore, the reports over their
// inputs, output paths checked before the work, merge's fields, special
// files in a corpus, a full disk, C programs misusing the ABI. Each case
// is the command that once broke the contract, scaled down where the
// original took minutes; the kinds are issue2-*.

// mutant runs the binary built with the mutants tag under lost-wakeup: a
// bug fuzz finds at seed 16 in 0.1 s, so that a case has a failure found.
var mutant = []string{"CBCSIM_MUTANT=lost-wakeup"}

// fuzzFinds is fuzz finding, shrinking and writing the mutant's failure
// under out.
func fuzzFinds(out string, more ...string) []string {
	return append([]string{"fuzz", "--seeds", "200", "--jobs", "1", "--shrink-budget", "300", "--out", out}, more...)
}

// failingCheck is fail_fast with an expectation no run meets: check and
// explore fail at once.
func failingCheck(c *corpus) []byte {
	return bytes.Replace(c.scenarios["fail_fast.toml"], []byte(`outcome = "failed"`), []byte(`outcome = "ok"`), 1)
}

// fullDisk runs the binary in a mount namespace where full/ is a 16 KiB
// tmpfs already full (unshare -rm: no privilege needed where user
// namespaces are on; canFillDisk says whether they are).
var fullDisk = []string{"unshare", "-rm", "sh", "-c",
	`mount -t tmpfs -o size=16k tmpfs full && dd if=/dev/zero of=full/fill bs=1k count=16 2>/dev/null; exec "$0" "$@"`}

func canFillDisk() bool {
	return exec.Command("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt").Run() == nil
}

func mkdirFull(dir string) error { return os.Mkdir(filepath.Join(dir, "full"), 0o755) }

func issue28Cases(c *corpus) []*kase {
	ff := c.scenarios["fail_fast.toml"]
	tr := c.traces[0]
	var cases []*kase
	add := func(k *kase) { cases = append(cases, k) }

	// 1. --preemptions bounded, nothing allocated in proportion to it.
	for _, v := range []string{"100000000", "1000000000", "9223372036854775807", "-1"} {
		add(&kase{kind: "issue2-explore", args: []string{"explore", "s.toml", "--preemptions", v}, files: map[string][]byte{"s.toml": []byte(manySchedules)},
			status: bad, located: `--preemptions`})
	}
	add(&kase{kind: "issue2-explore", args: []string{"explore", "s.toml", "--preemptions", "1000000", "--max-schedules", "300"},
		files: map[string][]byte{"s.toml": []byte(manySchedules)}, status: ok, inOutput: `\.\.1000000:0`})

	// 2. An output never replaces an input, nor the other output.
	merged := func(dir string) error { return twoShards(dir, "a.json", "b.json") }
	for _, k := range []*kase{
		{args: []string{"check", "s.toml", "--seeds", "2", "--json", "s.toml"}, located: `output s\.toml is the input s\.toml`},
		{args: []string{"check", "s.toml", "--seeds", "2", "--junit", "./s.toml"}, located: `is the input`},
		{args: []string{"check", "s.toml", "--seeds", "2", "--json", "r", "--junit", "r"}, located: `the outputs r and r are the same file`},
		{args: []string{"check", "corpus", "--json", "corpus/x.trace"}, located: `is the input`},
		{args: []string{"merge", "a.json", "b.json", "--json", "a.json"}, located: `is the input`, setup: merged},
		{args: []string{"run", "s.toml", "--trace", "s.toml"}, located: `--trace: the output s\.toml is the input`},
		{args: []string{"export", "t.trace", "--format", "chrome", "-o", "t.trace"}, located: `-o: the output t\.trace is the input`},
	} {
		k.kind, k.status = "issue2-overwrite", bad
		k.files = map[string][]byte{"s.toml": ff, "t.trace": tr, "corpus/x.trace": tr}
		add(k)
	}

	// 3. Unwritable outputs refused before the work.
	dangling := func(dir string) error { return os.Symlink("missing/r.json", filepath.Join(dir, "dl")) }
	loop := func(dir string) error {
		os.Symlink("l2", filepath.Join(dir, "l1"))
		return os.Symlink("l1", filepath.Join(dir, "l2"))
	}
	regular := func(dir string) error { return os.WriteFile(filepath.Join(dir, "f"), []byte("x\n"), 0o644) }
	nameFile := func(dir string) error {
		os.Mkdir(filepath.Join(dir, "eo"), 0o755)
		return os.WriteFile(filepath.Join(dir, "eo", "s-w3"), []byte("x\n"), 0o644)
	}
	for _, k := range []*kase{
		{args: []string{"check", "s.toml", "--seeds", "100000", "--json", "dl"}, setup: dangling, located: `dl`},
		{args: []string{"check", "s.toml", "--seeds", "100000", "--json", "l1"}, setup: loop, located: `l1`},
		{args: []string{"fuzz", "--seeds", "100000", "--junit", "dl"}, setup: dangling, located: `dl`},
		{args: []string{"explore", "s.toml", "--out", "f"}, setup: regular, located: `--out: .*f is not a directory`},
		{args: []string{"explore", "s.toml", "--out", "dl"}, setup: dangling, located: `--out: .*dangling`},
		{args: []string{"explore", "s.toml", "--out", "eo"}, setup: nameFile, located: `--out: .*eo/s-w3 is not a directory`},
		{args: []string{"fuzz", "--seeds", "1", "--corpus", "f"}, setup: regular, located: `--corpus: .*f is not a directory`},
		{args: []string{"fuzz", "--seeds", "1", "--out", "f"}, setup: regular, located: `--out: .*f is not a directory`},
		{args: []string{"check", "s.toml", "--seeds", "1", "--out", "f"}, setup: regular, located: `--out: .*f is not a directory`},
	} {
		k.kind, k.status = "issue2-outputs-first", bad
		k.files = map[string][]byte{"s.toml": []byte(manySchedules)}
		add(k)
	}

	// 4. replay --schedule names the edited decision's step.
	// The edited step is the first divergence, or the decision that no
	// longer applies is at that step (the edit moved it to a worker with
	// nothing to do); never a step far past it, as it once was.
	if edited, line, step := editDecision(c.traces[1]); edited != nil { // 2 workers
		add(&kase{kind: "issue2-replay", args: []string{"replay", "--schedule", "t.trace"}, files: map[string][]byte{"t.trace": edited},
			status: failed, inOutput: fmt.Sprintf(`first divergence at line %d:|step %s \(line %d\)`, line, step, line)})
	}

	// 5. Header errors at their own line; a field given twice refused.
	pct := func(edit func(lines []string) []string) func(dir string) error {
		return func(dir string) error {
			p := filepath.Join(dir, "t.trace")
			exec.Command(bin, "run", filepath.Join(dir, "s.toml"), "--seed", "3", "--strategy", "pct", "--trace", p).Run()
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Join(edit(strings.SplitAfter(string(data), "\n")), "")), 0o644)
		}
	}
	replace := func(prefix, with string) func([]string) []string {
		return func(lines []string) []string {
			for i, l := range lines {
				if strings.HasPrefix(l, prefix) {
					lines[i] = with + "\n"
				}
			}
			return lines
		}
	}
	for _, e := range []struct {
		edit    func([]string) []string
		located string
	}{
		{replace("# strategy: ", "# strategy: bogus"), `t\.trace: line 10: header: unknown strategy "bogus"`},
		{replace("# pct_depth: ", "# pct_depth: 0"), `t\.trace: line 11: header: bad pct_depth`},
		{func(l []string) []string { return append(l[:4:4], append([]string{"# seed: 9\n"}, l[4:]...)...) }, `t\.trace: line 5: header field "seed" given twice \(line 4 first\)`},
	} {
		add(&kase{kind: "issue2-header", args: []string{"replay", "t.trace"}, files: map[string][]byte{"s.toml": ff}, setup: pct(e.edit),
			status: bad, located: e.located})
	}
	add(&kase{kind: "issue2-header", args: []string{"replay", "t.trace"}, files: map[string][]byte{"s.toml": ff},
		setup: pct(replace("# pct_depth: ", "# pct_depth: 0")), status: bad, located: `line 11: header: bad`})

	// 6. merge validates every field; 7. its input is bounded, its memory
	// measured; minor: truncated JSON located.
	report := func(edit func(map[string]any)) func(dir string) error {
		return func(dir string) error {
			if err := twoShards(dir, "r.json", "b.json"); err != nil {
				return err
			}
			var r map[string]any
			data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			edit(r)
			out, _ := json.Marshal(r)
			return os.WriteFile(filepath.Join(dir, "r.json"), out, 0o644)
		}
	}
	for _, e := range []struct {
		edit    func(map[string]any)
		located string
	}{
		{func(r map[string]any) { r["runs"] = json.Number("9223372036854775807") }, `r\.json: runs 9223372036854775807`},
		{func(r map[string]any) { r["cases"] = nil }, `r\.json: "cases" is missing or null`},
		{func(r map[string]any) { r["failures"] = []any{map[string]any{}} }, `r\.json: failures\[0\]`},
		{func(r map[string]any) { r["failures"] = []any{nil} }, `r\.json: failures\[0\]`},
	} {
		add(&kase{kind: "issue2-merge", args: []string{"merge", "r.json", "--json", "out.json"}, setup: report(e.edit), status: bad, located: e.located})
	}
	add(&kase{kind: "issue2-merge", args: []string{"merge", "r.json", "--json", "out.json"}, status: bad, located: `r\.json:\d+:\d+: .*ends before`,
		setup: func(dir string) error {
			if err := twoShards(dir, "r.json", "b.json"); err != nil {
				return err
			}
			data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
			return os.WriteFile(filepath.Join(dir, "r.json"), data[:len(data)/2], 0o644)
		}})
	add(&kase{kind: "issue2-merge", args: []string{"merge", "big.json", "--json", "out.json"}, status: bad, located: `big\.json: .*(larger than|past the 128 MiB)`,
		setup: func(dir string) error { return sparse(filepath.Join(dir, "big.json"), 227<<20) }})
	add(&kase{kind: "issue2-merge", args: []string{"merge", "big.json", "--json", "out.json"}, status: failed, outputs: []string{"out.json"}, heavy: true,
		setup: func(dir string) error { return bigReport(filepath.Join(dir, "big.json"), 60<<20) }})

	// 8. explore filling its queues of pending schedules: the measured
	// footprint stays under the harness's 1 GB.
	add(&kase{kind: "issue2-explore", args: []string{"explore", "s.toml", "--jobs", "2"}, files: map[string][]byte{"s.toml": ff}, status: ok, heavy: true,
		inOutput: `passed 128 MiB`})

	// 9, 10. Special files and junk in a corpus.
	fifoAt := func(name string) func(dir string) error {
		return func(dir string) error {
			os.Mkdir(filepath.Join(dir, "c"), 0o755)
			return syscall.Mkfifo(filepath.Join(dir, "c", name), 0o644)
		}
	}
	add(&kase{kind: "issue2-corpus", args: []string{"check", "c", "--seeds", "1"}, setup: fifoAt("fuzz-1.toml"), status: bad, located: `fuzz-1\.toml: not a regular file`})
	add(&kase{kind: "issue2-corpus", args: []string{"check", "c"}, setup: fifoAt("fuzz-1.trace"), status: bad, located: `fuzz-1\.trace: not a regular file`})
	const entry = "fuzz-ade85842c2dcbe70" // the shrunk failure of lost-wakeup at seed 16 (its name hashes the shrunk scenario)
	add(&kase{kind: "issue2-corpus", args: fuzzFinds("out", "--corpus", "c"), env: mutant, setup: fifoAt(entry + ".trace"), status: failed,
		outputs: []string{"out/"}, inOutput: `corpus: not saved: .*is a FIFO, not a regular file`})
	add(&kase{kind: "issue2-corpus", args: fuzzFinds("out", "--corpus", "c"), env: mutant, status: failed, outputs: []string{"out/", "c/"},
		inOutput: `corpus: .*\(repaired: the file there was not this entry`,
		setup: func(dir string) error {
			os.Mkdir(filepath.Join(dir, "c"), 0o755)
			return os.WriteFile(filepath.Join(dir, "c", entry+".toml"), []byte("junk\n"), 0o644)
		}})
	add(&kase{kind: "issue2-corpus", args: fuzzFinds("out", "--corpus", "c"), env: mutant, status: failed, outputs: []string{"out/"},
		inOutput: `is a directory, not a regular file`,
		setup:    func(dir string) error { return os.MkdirAll(filepath.Join(dir, "c", entry+".toml"), 0o755) }})

	// 15. A real-mode deadlock has its own reason.
	add(&kase{kind: "issue2-library", args: []string{"run", "s.toml", "--real", "--workers", "2"}, status: ok, inOutput: `main=cancelled:Deadlock`,
		files: map[string][]byte{"s.toml": []byte("version = 1\n[channels]\nc = {}\n[task.main]\nops = [ { recv = \"c\" } ]\n")}})

	// 16. A full disk: the failure found keeps exit 1 and is reported
	// with the output's error; the other report is written; the shrunk
	// scenario is printed; no empty repro directory stays.
	if canFillDisk() {
		fail := map[string][]byte{"s.toml": failingCheck(c)}
		add(&kase{kind: "issue2-disk-full", wrap: fullDisk, args: []string{"check", "s.toml", "--seeds", "1", "--workers", "1", "--out", "", "--json", "full/r.json", "--junit", "j.xml"},
			files: fail, setup: mkdirFull, status: failed, outputs: []string{"j.xml"}, inOutput: `failed.*besides, writing the JSON report`,
			after: func(dir string) string {
				if data, _ := os.ReadFile(filepath.Join(dir, "j.xml")); !bytes.Contains(data, []byte("<failure")) {
					return "j.xml holds no failure"
				}
				return ""
			}})
		add(&kase{kind: "issue2-disk-full", wrap: fullDisk, args: []string{"explore", "s.toml", "--out", "full/eo"}, files: fail, setup: mkdirFull,
			status: failed, inOutput: `repro:  not written.*\n(?s:.*)besides, writing the repro`})
		add(&kase{kind: "issue2-disk-full", wrap: fullDisk, args: []string{"check", "s.toml", "--seeds", "1", "--workers", "1", "--out", "full/repro"}, files: fail,
			setup: mkdirFull, status: failed})
		add(&kase{kind: "issue2-disk-full", wrap: fullDisk, args: fuzzFinds("full/out", "--json", "full/r.json"), env: mutant, setup: mkdirFull,
			status: failed, inOutput: `the shrunk scenario \(save it as (?s:.*)\[task\.main\](?s:.*)besides, writing the repro`})
	}

	// 11-13. C programs misusing the ABI (cabi/testdata/test_misuse.c),
	// when a C compiler and the library are there (make hostile builds it).
	if lib, err := filepath.Abs("../../bin/libjanus_sched.so"); err == nil {
		if _, err := os.Stat(lib); err == nil {
			if cc, err := exec.LookPath("cc"); err == nil {
				add(&kase{kind: "issue2-cabi", prog: "test_misuse", args: []string{"."}, status: ok, outputs: []string{"misuse-overflow.err", "misuse-exit.err", "misuse-env.err", "misuse-trace.err"},
					env:      []string{"LD_LIBRARY_PATH=" + filepath.Dir(lib)},
					inOutput: `overflow faults at once, pthread_exit aborts`,
					setup: func(dir string) error {
						out, err := exec.Command(cc, "-O2", "-Wall", "-Werror", "-fstack-clash-protection", "-o", filepath.Join(dir, "test_misuse"),
							"../../cabi/testdata/test_misuse.c", "-I../../cabi", "-L"+filepath.Dir(lib), "-ljanus_sched", "-pthread").CombinedOutput()
						if err != nil {
							return fmt.Errorf("%v: %s", err, out)
						}
						return nil
					}})
			}
		}
	}

	// Minor: a flag given twice; an interrupted sweep's JUnit.
	for _, args := range [][]string{
		{"check", "s.toml", "--seeds", "3", "--shard", "1/3", "--shard", "2/3"},
		{"fuzz", "--seeds", "3", "--json", "a.json", "--json", "b.json"},
	} {
		add(&kase{kind: "issue2-minor", args: args, files: map[string][]byte{"s.toml": ff}, status: bad, located: `given twice`})
	}
	add(&kase{kind: "issue2-minor", args: []string{"check", "s.toml", "--seeds", "100000000", "--jobs", "2", "--junit", "r.xml"},
		files:  map[string][]byte{"s.toml": []byte(manySchedules), "r.xml": []byte("old\n")},
		status: []int{130}, signal: syscall.SIGINT, signalAfter: 500 * time.Millisecond, outputs: []string{"r.xml", "repro/"},
		after: func(dir string) string {
			data, _ := os.ReadFile(filepath.Join(dir, "r.xml"))
			if string(data) != "old\n" && !bytes.Contains(data, []byte(`<error message="interrupted by a signal after`)) {
				return fmt.Sprintf("r.xml of an interrupted check reads as a pass:\n%s", data)
			}
			return ""
		}})
	return cases
}

// editDecision moves a step of one event, a quarter into the trace, to
// another worker; it returns the trace, the edited line (1-based) and
// its step, or nil.
func editDecision(tr []byte) ([]byte, int, string) {
	lines := strings.SplitAfter(string(tr), "\n")
	run := regexp.MustCompile(`^(\d+) (\d+) w([0-9]) run `)
	for i := len(lines) / 4; i < len(lines); i++ {
		m := run.FindStringSubmatch(lines[i])
		if m == nil || (i > 0 && strings.HasPrefix(lines[i-1], m[1]+" ")) || (i+1 < len(lines) && strings.HasPrefix(lines[i+1], m[1]+" ")) {
			continue // a step of one event only
		}
		other := "w0"
		if m[3] == "0" {
			other = "w1"
		}
		lines[i] = strings.Replace(lines[i], " w"+m[3]+" ", " "+other+" ", 1)
		return []byte(strings.Join(lines, "")), i + 1, m[1]
	}
	return nil, 0, ""
}

// twoShards writes two shards of one check's JSON report, made by the
// binary on a scenario that fails.
func twoShards(dir, a, b string) error {
	src := bytes.Replace([]byte(manySchedules), []byte("workers = 3"), []byte("workers = 2"), 1)
	if err := os.WriteFile(filepath.Join(dir, "sh.toml"), src, 0o644); err != nil {
		return err
	}
	for k, name := range []string{a, b} {
		exec.Command(bin, "check", filepath.Join(dir, "sh.toml"), "--seeds", "4", "--shard", fmt.Sprintf("%d/2", k+1), "--out", "", "--json", filepath.Join(dir, name)).Run()
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return os.Remove(filepath.Join(dir, "sh.toml"))
}

func sparse(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Truncate(size)
}

// bigReport writes a valid report of about size bytes: many cases and
// failures, as a check over thousands of scenarios would write.
func bigReport(path string, size int) error {
	var b bytes.Buffer
	b.WriteString(`{"format": "cbcsim-report/1", "sweep": {"tool": "check", "seeds": 10, "seed_start": 1, "workers": [1, 2, 3, 4]},` + "\n")
	var cases, fails bytes.Buffer
	n := 0
	for ; cases.Len()+fails.Len() < size; n++ {
		if n > 0 {
			cases.WriteString(",\n")
			fails.WriteString(",\n")
		}
		fmt.Fprintf(&cases, `  {"suite": "s%d.toml", "name": "%d workers", "runs": 10, "failed": 1}`, n/4, 1+n%4)
		fmt.Fprintf(&fails, `  {"suite": "s%d.toml", "case": "%d workers", "kind": "deadlock|no-orphan", "scenario": "x", "seed": %d, "workers": 2, "count": 1, `+
			`"details": ["no-orphan: task %d was left behind when its nursery closed"], "command": "cbcsim run s%d.toml --seed %d --workers 2"}`, n/4, 1+n%4, n+1, n, n/4, n+1)
	}
	fmt.Fprintf(&b, `"runs": %d, "failed": %d, "cases": [`+"\n%s\n], \"failures\": [\n%s\n]}\n", 10*n, n, cases.Bytes(), fails.Bytes())
	return os.WriteFile(path, b.Bytes(), 0o644)
}
