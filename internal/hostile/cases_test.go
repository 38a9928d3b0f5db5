package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Statuses a case may allow.
var (
	ok      = []int{0}
	failed  = []int{1}
	bad     = []int{2}
	okOrRun = []int{0, 1}
	any012  = []int{0, 1, 2}
	valid   = []int{0, 2} // validate
)

// Located-message patterns for exit status 2.
const (
	atScenario = `s\.toml:\d+`
	atTrace    = `t\.trace(:\d+| line \d+|: line \d+)`
)

// templates are scenarios that grow without a budget noticing, the
// starting points of the issue's hostile cases; the mutations make more.
var templates = map[string]string{
	"self_spawn": `version = 1
[budget]
spawn_count = 30000
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "main" } ] } ]
`,
	"bomb": `version = 1
[budget]
spawn_count = 1_000_000_000_000
[task.main]
ops = [ { nursery = "top", body = [ { spawn = "bomb" } ] } ]
[task.bomb]
ops = [ { nursery = "level", body = [ { spawn = "bomb" }, { spawn = "bomb" } ] } ]
`,
	"defers": `version = 1
[scheduler]
max_steps = 1_000_000_000
[budget]
ops = 1_000_000_000
[task.main]
ops = [ { loop = 10_000_000, body = [ { defer = "d" } ] } ]
`,
	"usings": `version = 1
[scheduler]
max_steps = 1_000_000_000
[budget]
ops = 1_000_000_000
[task.main]
ops = [ { loop = 10_000_000, body = [ { using = "r", body = [ { log = "in" } ] } ] } ]
`,
	"logs": `version = 1
[scheduler]
max_steps = 1_000_000_000
yield_interval = 2147483647
[budget]
ops = 1_000_000_000
[task.main]
ops = [ { loop = "forever", body = [ { log = "l" } ] } ]
`,
	"nurseries": `version = 1
[task.main]
ops = [ { loop = "forever", body = [ { nursery = "n" } ] } ]
`,
	"real_timer": `version = 1
[channels]
c = {}
[task.main]
ops = [ { nursery = "n", timeout = 50000, body = [ { recv = "c" } ] } ]
`,
	"slow": `version = 1
[scheduler]
max_steps = 1_000_000_000
[budget]
ops = 1_000_000_000
[task.main]
ops = [ { loop = 3_000_000, body = [ { log = "x" } ] } ]
`,
}

// hostileOps are inserted into bodies by the mutations.
var hostileOps = []string{
	`{ loop = "forever", body = [ { nursery = "n" } ] }`,
	`{ loop = 1_000_000, body = [ { defer = "d" } ] }`,
	`{ spawn = "main" }`,
	`{ nursery = "x", body = [ { spawn = "main" }, { spawn = "main" } ] }`,
	`{ loop = "forever", body = [ { log = "l" } ] }`,
	`{ using = "r", body = [ { using = "r2" } ] }`,
	`{ sleep = 9223372036854775807 }`,
	`{ compute = 9223372036854775807 }`,
	`{ alloc = 9223372036854775807 }`,
	`{ loop = "forever", body = [ { yield = true } ] }`,
	`{ recharge = "w", ops = 9223372036854775807 }`,
	`{ call = "main" }`,
	`{ panic = "boom" }`,
	`{ cancel = "n" }`,
}

var extremes = []string{"0", "-1", "1", "2", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
	"1_000_000_000_000", "0x7fffffff", "1e9", "3.5", `"x"`, "true", "[]", "{}", "inf", "nan"}

var strs = []string{`""`, `"main"`, `"bomb"`, `"x\u0000y"`, `"forever"`, `"` + strings.Repeat("a", 5000) + `"`, `"é"`,
	`"fail_fast"`, `"collect_all"`, `"sovereign"`, `"core"`, `"round_robin"`, `"least_loaded"`, `"SpawnBudgetExhausted"`, `'''multi
line'''`}

var (
	intRE   = regexp.MustCompile(`-?\b\d[\d_]*\b`)
	strRE   = regexp.MustCompile(`"[^"\n]*"`)
	opsRE   = regexp.MustCompile(`(ops|body) = \[`)
	sizable = []string{"\n[scheduler]\nmax_steps = 100_000_000\n", "\n[budget]\nops = 1_000_000_000\nspawn_count = 1_000_000_000_000\n",
		"\n[scheduler]\nyield_interval = 2147483647\n", "\n[scheduler]\nworkers = 256\n", "\n[budget]\nmemory = 0\n"}
)

// mutateScenario applies one to three mutations to src.
func mutateScenario(r *rand.Rand, src []byte) []byte {
	out := append([]byte(nil), src...)
	for range 1 + r.IntN(3) {
		out = mutateOnce(r, out, func(r *rand.Rand, s []byte) []byte {
			switch r.IntN(5) {
			case 0: // an integer made extreme
				return replaceMatch(r, s, intRE, extremes[r.IntN(len(extremes))])
			case 1: // a string swapped for another
				return replaceMatch(r, s, strRE, strs[r.IntN(len(strs))])
			case 2: // a hostile op at the start of a body
				loc := opsRE.FindAllIndex(s, -1)
				if len(loc) == 0 {
					return s
				}
				at := loc[r.IntN(len(loc))][1]
				return splice(s, at, at, []byte(" "+hostileOps[r.IntN(len(hostileOps))]+","))
			case 3: // budgets and bounds raised
				return append(s, sizable[r.IntN(len(sizable))]...)
			default: // an expectation dropped or changed
				return bytes.Replace(s, []byte("outcome = "), []byte("outcome = \"livelock\" # "), 1)
			}
		})
	}
	return out
}

// mutateOnce applies one structural mutation, or the given specific one.
func mutateOnce(r *rand.Rand, s []byte, specific func(*rand.Rand, []byte) []byte) []byte {
	lines := bytes.SplitAfter(s, []byte("\n"))
	switch r.IntN(9) {
	case 0: // delete a line
		i := r.IntN(len(lines))
		lines = append(lines[:i], lines[i+1:]...)
	case 1: // duplicate a line
		i := r.IntN(len(lines))
		lines = append(lines[:i+1], lines[i:]...)
	case 2: // swap two lines
		i, j := r.IntN(len(lines)), r.IntN(len(lines))
		lines[i], lines[j] = lines[j], lines[i]
	case 3: // truncate
		return s[:r.IntN(len(s)+1)]
	case 4: // insert garbage
		g := garbage[r.IntN(len(garbage))]
		at := r.IntN(len(s) + 1)
		return splice(s, at, at, []byte(g))
	case 5: // flip a byte
		if len(s) == 0 {
			return s
		}
		out := append([]byte(nil), s...)
		out[r.IntN(len(out))] ^= byte(1 << r.IntN(8))
		return out
	default:
		return specific(r, s)
	}
	return bytes.Join(lines, nil)
}

var garbage = []string{"\x00", "\xff\xfe", "]]]", "[[[", "{", "}", "=", "\n[task.main]\n", "\"", "'''", "\r\n", "#", "\t", "é", "\u202e", strings.Repeat("[", 100)}

func replaceMatch(r *rand.Rand, s []byte, re *regexp.Regexp, with string) []byte {
	loc := re.FindAllIndex(s, -1)
	if len(loc) == 0 {
		return s
	}
	m := loc[r.IntN(len(loc))]
	return splice(s, m[0], m[1], []byte(with))
}

func splice(s []byte, from, to int, with []byte) []byte {
	out := append([]byte(nil), s[:from]...)
	out = append(out, with...)
	return append(out, s[to:]...)
}

var (
	headerRE = regexp.MustCompile(`(?m)^# (seed|workers|victim|profile|yield_interval|max_steps|scenario-sha256|source): .*$`)
	headerTo = []string{"0", "-1", "x", "257", "9223372036854775808", "random", "bogus", "cluster", "1", "\"\"", "18446744073709551615", "99999 nonl"}
	actorRE  = regexp.MustCompile(`(?m)^(\d+ \d+ )(w\d+|sim) `)
	kindRE   = regexp.MustCompile(`(?m)^(\d+ \d+ \S+ )(\S+)`)
)

// mutateTrace applies one to three mutations to a trace: the line
// mutations, and ones that know the format (header values, actors, kinds,
// the embedded scenario, step numbers).
func mutateTrace(r *rand.Rand, src []byte) []byte {
	out := append([]byte(nil), src...)
	for range 1 + r.IntN(3) {
		out = mutateOnce(r, out, func(r *rand.Rand, s []byte) []byte {
			switch r.IntN(6) {
			case 0:
				return replaceMatchFunc(r, s, headerRE, func(m []byte) []byte {
					key := m[:bytes.IndexByte(m, ':')+2]
					return append(append([]byte(nil), key...), headerTo[r.IntN(len(headerTo))]...)
				})
			case 1:
				to := []string{"w0", "w1", "w7", "w255", "w256", "w999", "sim", "x"}[r.IntN(8)]
				return replaceMatchFunc(r, s, actorRE, func(m []byte) []byte {
					sub := actorRE.FindSubmatch(m)
					return []byte(string(sub[1]) + to + " ")
				})
			case 2:
				to := []string{"run", "steal", "steal-fail", "spawn", "result", "bogus", "outcome"}[r.IntN(7)]
				return replaceMatchFunc(r, s, kindRE, func(m []byte) []byte {
					sub := kindRE.FindSubmatch(m)
					return []byte(string(sub[1]) + to)
				})
			case 3: // a step or a tick made extreme
				return replaceMatch(r, s, intRE, extremes[r.IntN(9)])
			case 4: // the embedded scenario mutated, the line count kept
				lines := bytes.SplitAfter(s, []byte("\n"))
				var idx []int
				for i, l := range lines {
					if bytes.HasPrefix(l, []byte("#| ")) {
						idx = append(idx, i)
					}
				}
				if len(idx) == 0 {
					return s
				}
				i := idx[r.IntN(len(idx))]
				m := mutateScenario(r, lines[i][3:])
				m = bytes.ReplaceAll(bytes.TrimSuffix(m, []byte("\n")), []byte("\n"), []byte(" "))
				lines[i] = append(append([]byte("#| "), m...), '\n')
				return bytes.Join(lines, nil)
			default: // a steal-fail line deleted (a decision lost)
				lines := bytes.SplitAfter(s, []byte("\n"))
				for i, l := range lines {
					if bytes.Contains(l, []byte(" steal-fail ")) && r.IntN(3) == 0 {
						return bytes.Join(append(lines[:i:i], lines[i+1:]...), nil)
					}
				}
				return s
			}
		})
	}
	return out
}

func replaceMatchFunc(r *rand.Rand, s []byte, re *regexp.Regexp, with func([]byte) []byte) []byte {
	loc := re.FindAllIndex(s, -1)
	if len(loc) == 0 {
		return s
	}
	m := loc[r.IntN(len(loc))]
	return splice(s, m[0], m[1], with(s[m[0]:m[1]]))
}

// corpus is what the cases are made from.
type corpus struct {
	scenarios map[string][]byte // bundled scenarios and templates, by name
	names     []string
	traces    [][]byte // traces of bundled scenarios, made with the binary
}

func loadCorpus(t *testing.T) *corpus {
	c := &corpus{scenarios: map[string][]byte{}}
	paths, err := filepath.Glob("../../scenarios/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c.scenarios[filepath.Base(p)] = data
	}
	for name, src := range templates {
		if name != "slow" && name != "real_timer" {
			c.scenarios[name+".toml"] = []byte(src)
		}
	}
	for name := range c.scenarios {
		c.names = append(c.names, name)
	}
	sort.Strings(c.names)
	dir := t.TempDir()
	for i, name := range []string{"fail_fast.toml", "lifo_cleanup.toml", "nested_cancel.toml", "channel_buffered.toml", "budget_supervisor.toml", "timeout_collect_all.toml", "sleep_order.toml", "explicit_cancel.toml"} {
		out := filepath.Join(dir, fmt.Sprintf("%d.trace", i))
		cmd := exec.Command(bin, "run", filepath.Join("../../scenarios", name), "--seed", fmt.Sprint(3+i), "--workers", fmt.Sprint(1+i%4), "--trace", out)
		cmd.Run() // a failing expectation still writes the trace
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("tracing %s: %v", name, err)
		}
		c.traces = append(c.traces, data)
	}
	// A scenario without a name: replay takes its name from the header.
	nameless := filepath.Join(dir, "nameless.toml")
	src := regexp.MustCompile(`(?m)^name = .*\n`).ReplaceAll(c.scenarios["collect_all.toml"], nil)
	if err := os.WriteFile(nameless, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "nameless.trace")
	exec.Command(bin, "run", nameless, "--seed", "9", "--workers", "3", "--trace", out).Run()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("tracing a nameless scenario: %v", err)
	}
	c.traces = append(c.traces, data)
	return c
}

// buildCases makes n cases from seed: every fixed case (the issue's,
// hostile flags, output paths, signals) once, then mutated scenarios and
// traces up to n. With n below the fixed cases, a seeded sample of them.
func buildCases(t *testing.T, n int, seed uint64) []*kase {
	c := loadCorpus(t)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	fixed := append(append(append(append(issueCases(c), issue28Cases(c)...), flagCases(c)...), outputCases(c)...), signalCases()...)
	all := len(fixed)
	if n < all*2 {
		// The CI sample: a third of the cases fixed, the rest mutated;
		// no heavy one.
		light := fixed[:0:0]
		for _, k := range fixed {
			if !k.heavy {
				light = append(light, k)
			}
		}
		fixed = light
		r.Shuffle(len(fixed), func(i, j int) { fixed[i], fixed[j] = fixed[j], fixed[i] })
		fixed = fixed[:n/3]
	}
	// The CI sample runs beside the race-detector tests: its runs are all
	// bounded by --max-steps, to stay far from the time limit there.
	ci := n < all*2
	cases := fixed
	for len(cases) < n {
		cases = append(cases, mutatedCase(r, c, ci))
	}
	return cases
}

// interruptedJSON: r.json is the old file or a whole report of an
// interrupted sweep.
func interruptedJSON(dir string) string {
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	var rep struct {
		Runs        int64 `json:"runs"`
		Interrupted bool  `json:"interrupted"`
	}
	if err := json.Unmarshal(data, &rep); string(data) != "old\n" && (err != nil || !rep.Interrupted) {
		return fmt.Sprintf("r.json holds %d bytes of neither the old file nor an interrupted report: %v", len(data), err)
	}
	return ""
}

// mutatedCase is one mutated scenario or trace through one command.
func mutatedCase(r *rand.Rand, c *corpus, bounded bool) *kase {
	workers := fmt.Sprint([]int{1, 2, 3, 4, 8, 256}[r.IntN(6)])
	seed := fmt.Sprint(r.IntN(1000))
	if r.IntN(10) < 6 {
		src := mutateScenario(r, c.scenarios[c.names[r.IntN(len(c.names))]])
		files := map[string][]byte{"s.toml": src}
		switch x := r.IntN(100); {
		case x < 25:
			return &kase{kind: "scenario-validate", args: []string{"validate", "s.toml"}, files: files, status: valid, located: atScenario}
		case x < 80:
			args := []string{"run", "s.toml", "--seed", seed, "--workers", workers}
			k := &kase{kind: "scenario-run", files: files, status: any012, located: atScenario}
			if r.IntN(10) < 8 || bounded {
				// Most runs bounded: the unbounded ones are the slow ones.
				args = append(args, "--max-steps", fmt.Sprint(1+r.IntN(50_000)))
			}
			if r.IntN(3) == 0 {
				args = append(args, "--trace", "out.trace")
				k.outputs = []string{"out.trace"}
			}
			if r.IntN(5) == 0 {
				args = append(args, "--json")
			}
			k.args = args
			return k
		case x < 92:
			ws := "1," + workers
			if workers == "1" || bounded {
				ws = workers
			}
			// One seed: check's time is its runs' (each bounded), times
			// how many there are. check has no --max-steps: in the CI
			// sample one worker count too, as a mutated scenario may run
			// to the event limit (a loop that logs forever: 4 CPU-seconds
			// and 250 MB of repro traces on two counts).
			return &kase{kind: "scenario-check", args: []string{"check", "s.toml", "--seeds", "1", "--workers", ws, "--resample", "1", "--out", "repro"},
				files: files, status: any012, located: atScenario, outputs: []string{"repro/"}}
		default:
			return &kase{kind: "scenario-real", args: []string{"run", "s.toml", "--real", "--workers", workers, "--max-steps", "200000"}, files: files, status: any012, located: atScenario}
		}
	}
	orig := c.traces[r.IntN(len(c.traces))]
	files := map[string][]byte{"t.trace": mutateTrace(r, orig), "orig.trace": orig}
	switch x := r.IntN(4); x {
	case 0:
		return &kase{kind: "trace-replay", args: []string{"replay", "t.trace"}, files: files, status: any012, located: atTrace}
	case 1:
		return &kase{kind: "trace-replay-schedule", args: []string{"replay", "--schedule", "t.trace"}, files: files, status: any012, located: atTrace}
	case 2:
		return &kase{kind: "trace-diff", args: []string{"diff", "orig.trace", "t.trace"}, files: files, status: any012, located: atTrace}
	default:
		k := &kase{kind: "trace-export", args: []string{"export", "t.trace", "--format", "chrome"}, files: files, status: []int{0, 2}, located: atTrace}
		if r.IntN(2) == 0 {
			k.args = append(k.args, "-o", "out.json")
			k.outputs = []string{"out.json"}
		}
		if r.IntN(3) == 0 { // the HTML report reads the same traces
			k.kind, k.args, k.outputs = "trace-report", []string{"report", "t.trace", "-o", "out.html"}, []string{"out.html"}
		}
		return k
	}
}

// issueCases are the breaks the adversarial pass found, each as the
// command that showed it.
func issueCases(c *corpus) []*kase {
	tmpl := func(name string) map[string][]byte { return map[string][]byte{"s.toml": []byte(templates[name])} }
	ff := c.scenarios["fail_fast.toml"]
	tr := c.traces[0]
	var cases []*kase
	add := func(k *kase) { cases = append(cases, k) }
	for _, name := range []string{"self_spawn", "bomb", "defers", "usings", "logs"} {
		add(&kase{kind: "issue-growth", args: []string{"run", "s.toml", "--seed", "1", "--workers", "2"}, files: tmpl(name), status: okOrRun})
	}
	add(&kase{kind: "issue-growth", args: []string{"run", "s.toml", "--seed", "1", "--workers", "2", "--trace", "out.trace"}, files: tmpl("defers"), status: okOrRun, outputs: []string{"out.trace"}})
	add(&kase{kind: "issue-growth", args: []string{"check", "s.toml", "--seeds", "1", "--workers", "2", "--resample", "1", "--out", ""}, files: tmpl("bomb"), status: okOrRun})
	// A file of 3 GB (sparse) and endless devices.
	huge := func(dir string) error {
		f, err := os.Create(filepath.Join(dir, "s.toml"))
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(3 << 30)
	}
	for _, args := range [][]string{{"validate", "s.toml"}, {"run", "s.toml"}, {"check", "s.toml", "--seeds", "1"}} {
		add(&kase{kind: "issue-input-size", args: args, setup: huge, status: bad, located: `s\.toml:1:262145`})
	}
	for _, args := range [][]string{{"validate", "/dev/zero"}, {"run", "/dev/zero"}, {"replay", "/dev/zero"}, {"replay", "--schedule", "/dev/zero"}, {"export", "/dev/zero", "--format", "chrome"}, {"diff", "/dev/zero", "/dev/zero"}} {
		add(&kase{kind: "issue-input-size", args: args, status: bad, located: `/dev/zero(:\d+|: line \d+)`})
	}
	long := func(dir string) error {
		lines := bytes.SplitAfter(tr, []byte("\n"))
		i := len(lines) / 2
		l := append(bytes.TrimSuffix(lines[i], []byte("\n")), " x="...)
		l = append(l, bytes.Repeat([]byte("a"), 64<<20)...)
		lines[i] = append(l, '\n')
		return os.WriteFile(filepath.Join(dir, "t.trace"), bytes.Join(lines, nil), 0o644)
	}
	for _, args := range [][]string{{"replay", "t.trace"}, {"export", "t.trace", "--format", "chrome"}, {"diff", "t.trace", "t.trace"}} {
		add(&kase{kind: "issue-input-size", args: args, setup: long, status: bad, located: atTrace})
	}
	// Header and schedule errors carry a line.
	for _, edit := range [][2]string{{"# seed: ", "# seed: x"}, {"# victim: ", "# victim: bogus"}, {"# profile: ", "# profile: cluster"},
		{"# yield_interval: ", "# yield_interval: 5"}, {"# scenario-sha256: ", "# scenario-sha256: 0"}, {"#| [task.main]", "#| [task.mian]"}} {
		lines := bytes.SplitAfter(tr, []byte("\n"))
		for i, l := range lines {
			if bytes.HasPrefix(l, []byte(edit[0])) {
				lines[i] = []byte(edit[1] + "\n")
				if edit[0] == "#| [task.main]" {
					lines[i] = []byte("#| [task.mian]\n")
				}
				break
			}
		}
		add(&kase{kind: "issue-located", args: []string{"replay", "t.trace"}, files: map[string][]byte{"t.trace": bytes.Join(lines, nil)}, status: bad, located: atTrace})
	}
	gap := regexp.MustCompile(`(?m)^(2\d) `).ReplaceAll(tr, []byte("1000${1} "))
	add(&kase{kind: "issue-located", args: []string{"replay", "--schedule", "t.trace"}, files: map[string][]byte{"t.trace": gap}, status: bad, located: atTrace})
	for _, f := range [][]byte{[]byte("name = \"x\"\n[task.main]\n"), []byte("version = 1\n")} {
		add(&kase{kind: "issue-located", args: []string{"validate", "s.toml"}, files: map[string][]byte{"s.toml": f}, status: bad, located: atScenario})
	}
	// A deleted steal-fail line: the decision, and no false divergence.
	lines := bytes.SplitAfter(tr, []byte("\n"))
	for i, l := range lines {
		if bytes.Contains(l, []byte(" steal-fail ")) {
			del := bytes.Join(append(lines[:i:i], lines[i+1:]...), nil)
			add(&kase{kind: "issue-replay-report", args: []string{"replay", "--schedule", "t.trace"}, files: map[string][]byte{"t.trace": del}, status: failed,
				notInStdout: "divergence"})
			break
		}
	}
	add(&kase{kind: "issue-flags", args: []string{"bench", "--parked", "9223372036854775807"}, status: bad, located: `--parked`})
	// Other engineers' items, checked here too: the quadratic checker,
	// real mode's timers, out-of-range flags, fuzz with 256 workers.
	add(&kase{kind: "issue-others", args: []string{"run", "s.toml", "--seed", "1", "--workers", "2"}, files: tmpl("nurseries"), status: okOrRun})
	add(&kase{kind: "issue-others", args: []string{"run", "s.toml", "--real", "--workers", "2"}, files: tmpl("real_timer"), status: okOrRun})
	for _, args := range [][]string{
		{"check", "s.toml", "--seeds", "9223372036854775807", "--workers", "1"},
		{"run", "s.toml", "--max-steps", "-1"}, {"run", "s.toml", "--max-steps", "0"}, {"run", "s.toml", "--workers", "0"},
		{"run", "s.toml", "--victim", ""}, {"replay", "t.trace", "--context", "-1"},
	} {
		add(&kase{kind: "issue-others", args: args, files: map[string][]byte{"s.toml": ff, "t.trace": tr}, status: bad, located: `--|seeds|steps|workers|victim|context`})
	}
	add(&kase{kind: "issue-others", args: []string{"fuzz", "--start", "101884", "--seeds", "1", "--workers", "256", "--out", "fo"}, status: ok, outputs: []string{"fo/"}})
	return cases
}

// flagCases are out-of-range, malformed and conflicting flags for every
// subcommand. Values the tool must refuse expect status 2 and a message
// naming the flag; values it may take expect 0 or 1.
func flagCases(c *corpus) []*kase {
	files := map[string][]byte{"s.toml": c.scenarios["fail_fast.toml"], "t.trace": c.traces[0], "u.trace": c.traces[1]}
	var cases []*kase
	add := func(status []int, located string, args ...string) {
		cases = append(cases, &kase{kind: "flags", args: args, files: files, status: status, located: located, outputs: []string{"repro/", "fo/", "out.trace"}})
	}
	for _, v := range []string{"-1", "18446744073709551616", "abc", "9223372036854775808", ""} {
		add(bad, `seed`, "run", "s.toml", "--seed", v)
	}
	for _, v := range []string{"-1", "257", "99999999999999999999", "x", "1.5"} {
		add(bad, `workers`, "run", "s.toml", "--workers", v)
	}
	for _, v := range []string{"bogus", "RANDOM", "random "} {
		add(bad, `victim`, "run", "s.toml", "--victim", v)
	}
	for _, v := range []string{"x", "1e9", "99999999999999999999"} {
		add(bad, `max-steps`, "run", "s.toml", "--max-steps", v)
	}
	add(okOrRun, "", "run", "s.toml", "--max-steps", "9223372036854775807", "--workers", "2")
	add(bad, `seed`, "run", "s.toml", "--workers", "256", "--seed", "18446744073709551615")
	add(any012, `seed`, "run", "s.toml", "--seed", "9223372036854775807")
	add(bad, `lean`, "run", "s.toml", "--lean")
	for _, v := range []string{"0s", "-1s", "x", "9999999999h"} {
		add(bad, `real-timeout`, "run", "s.toml", "--real", "--real-timeout", v)
	}
	add(bad, `real-timeout`, "run", "s.toml", "--real-timeout", "1s")
	add(okOrRun, "", "run", "s.toml", "--real", "--workers", "2", "--real-timeout", "1ns")
	add(bad, `trace`, "run", "s.toml", "--real", "--trace", "out.trace")
	add(bad, `unknown flag`, "run", "s.toml", "--bogus")
	add(bad, `arg`, "run")
	add(bad, `arg`, "run", "s.toml", "s.toml")
	add(bad, `missing\.toml`, "validate", "s.toml", "missing.toml")
	add(bad, `arg`, "validate")
	for _, v := range []string{"0", "-1", "x"} {
		add(bad, `seeds`, "check", "s.toml", "--seeds", v, "--out", "")
	}
	add(bad, `seeds`, "check", "s.toml")
	for _, v := range []string{"0", "257", "", "1,,2", "a", "-1", "1,99999999999999999999"} {
		add(bad, `workers`, "check", "s.toml", "--seeds", "1", "--workers", v, "--out", "")
	}
	for _, v := range []string{"0", "-1", "x"} {
		add(any012, `jobs`, "check", "s.toml", "--seeds", "1", "--jobs", v, "--out", "")
	}
	for _, v := range []string{"-1", "x", "9223372036854775807"} {
		add(any012, `resample`, "check", "s.toml", "--seeds", "1", "--workers", "1", "--resample", v, "--out", "")
	}
	add(any012, `seed-start|seeds`, "check", "s.toml", "--seeds", "2", "--workers", "1", "--seed-start", "18446744073709551615", "--out", "")
	add(any012, `seed-start|seeds`, "check", "s.toml", "--seeds", "2", "--workers", "1", "--seed-start", "9223372036854775807", "--out", "")
	for _, v := range []string{"x", "9223372036854775807"} {
		add(any012, `context`, "replay", "t.trace", "--context", v)
		add(any012, `context`, "diff", "t.trace", "u.trace", "--context", v)
	}
	add(bad, `context`, "diff", "t.trace", "u.trace", "--context", "-1")
	add(bad, `arg|two`, "diff", "t.trace")
	add(bad, `arg|two`, "diff", "t.trace", "u.trace", "t.trace")
	add(bad, `missing\.trace`, "diff", "t.trace", "missing.trace")
	add(bad, `missing\.trace`, "replay", "missing.trace")
	for _, v := range []string{"", "bogus", "CHROME", "chrome,chrome"} {
		add(bad, `format`, "export", "t.trace", "--format", v)
	}
	add(bad, `missing\.trace`, "export", "missing.trace", "--format", "chrome")
	add(ok, "", "export", "t.trace", "--format", "chrome", "-o", "-")
	for _, v := range []string{"0", "-1", "x"} {
		add(bad, `seeds`, "fuzz", "--seeds", v, "--out", "fo")
	}
	for _, v := range []string{"0", "257", "", "x", "-1"} {
		add(bad, `workers`, "fuzz", "--seeds", "1", "--workers", v, "--out", "fo")
	}
	for _, v := range []string{"-1", "x"} {
		add(any012, `shrink-budget`, "fuzz", "--seeds", "1", "--shrink-budget", v, "--out", "fo")
	}
	for _, v := range []string{"-1s", "x", "0"} {
		add(any012, `duration|seeds`, "fuzz", "--duration", v, "--out", "fo")
	}
	add(any012, `start|seeds`, "fuzz", "--start", "18446744073709551615", "--seeds", "2", "--workers", "1", "--out", "fo")
	add(bad, `seeds|duration`, "fuzz", "--seeds", "1", "--duration", "1s", "--out", "fo")
	for _, f := range [][]string{{"--parked", "0"}, {"--parked", "-1"}, {"--parked", "1000001"}, {"--count", "0"}, {"--duration", "-1s"}, {"--workers", "0"}, {"--parked", "x"}} {
		add(bad, strings.TrimPrefix(f[0], "--"), "bench", f[0], f[1])
	}
	add(bad, `unknown command`, "bogus")
	add(ok, "", "--version")
	add(ok, "", "--help")
	return cases
}

// outputCases give --trace, -o and --out special paths.
func outputCases(c *corpus) []*kase {
	ff := c.scenarios["fail_fast.toml"]
	tr := c.traces[0]
	isTrace := func(b []byte) bool { return bytes.HasPrefix(b, []byte("# cbcsim-trace ")) }
	isJSON := func(b []byte) bool { return bytes.HasPrefix(b, []byte("{")) || bytes.HasPrefix(b, []byte("[")) }
	isHTML := func(b []byte) bool {
		return bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) && bytes.HasSuffix(b, []byte("</html>\n"))
	}
	var cases []*kase
	for _, w := range []struct {
		name   string
		args   func(out string) []string
		holds  func([]byte) bool
		status []int
	}{
		{"run", func(out string) []string {
			return []string{"run", "s.toml", "--seed", "3", "--workers", "2", "--trace", out}
		}, isTrace, okOrRun},
		{"export", func(out string) []string { return []string{"export", "t.trace", "--format", "chrome", "-o", out} }, isJSON, ok},
		{"report", func(out string) []string { return []string{"report", "t.trace", "-o", out} }, isHTML, ok},
	} {
		files := func() map[string][]byte { return map[string][]byte{"s.toml": ff, "t.trace": tr} }
		add := func(k *kase) {
			k.kind = "output-" + w.name
			k.files = files()
			if k.status == nil {
				k.status = w.status
			}
			cases = append(cases, k)
		}
		holds := func(path string) func(dir string) string {
			return func(dir string) string {
				data, err := os.ReadFile(filepath.Join(dir, path))
				if err != nil || !w.holds(data) {
					return fmt.Sprintf("%s does not hold the output (%d bytes, %v)", path, len(data), err)
				}
				return ""
			}
		}
		isLink := func(path string, next func(string) string) func(string) string {
			return func(dir string) string {
				fi, err := os.Lstat(filepath.Join(dir, path))
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					return path + " is no longer a symlink"
				}
				return next(dir)
			}
		}
		// A symlink to an existing 0644 file: still a link, the target
		// holds the output and keeps its mode.
		add(&kase{args: w.args("link.out"), outputs: []string{"real.out", "link.out"},
			setup: func(dir string) error {
				os.WriteFile(filepath.Join(dir, "real.out"), []byte("old\n"), 0o644)
				return os.Symlink("real.out", filepath.Join(dir, "link.out"))
			}, after: isLink("link.out", holds("real.out"))})
		// A dangling symlink into a subdirectory.
		add(&kase{args: w.args("dangling.out"), outputs: []string{"sub/new.out", "dangling.out"},
			setup: func(dir string) error {
				os.Mkdir(filepath.Join(dir, "sub"), 0o755)
				return os.Symlink("sub/new.out", filepath.Join(dir, "dangling.out"))
			}, after: isLink("dangling.out", holds("sub/new.out"))})
		// A symlink loop is refused.
		add(&kase{args: w.args("a.out"), status: bad, located: `a\.out`,
			setup: func(dir string) error {
				os.Symlink("b.out", filepath.Join(dir, "a.out"))
				return os.Symlink("a.out", filepath.Join(dir, "b.out"))
			}})
		// A FIFO is written through.
		add(&kase{args: w.args("pipe.out"), outputs: []string{"pipe.out"}, fifo: "pipe.out",
			setup: func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "pipe.out"), 0o644) }})
		// Devices.
		add(&kase{args: w.args("/dev/null")})
		add(&kase{args: w.args("null.out"), outputs: []string{"null.out"},
			setup: func(dir string) error { return os.Symlink("/dev/null", filepath.Join(dir, "null.out")) },
			after: isLink("null.out", func(string) string { return "" })})
		// A directory, a missing directory, a trailing slash: refused.
		add(&kase{args: w.args("d"), status: bad, located: `\bd\b`, setup: func(dir string) error { return os.Mkdir(filepath.Join(dir, "d"), 0o755) }})
		add(&kase{args: w.args("missing/x.out"), status: bad, located: `missing/x\.out`})
		add(&kase{args: w.args("x.out/"), status: bad, located: `x\.out/`})
		// Existing files keep their mode.
		for _, mode := range []os.FileMode{0o644, 0o600, 0o664} {
			name := fmt.Sprintf("old%o.out", mode)
			add(&kase{args: w.args(name), outputs: []string{name},
				setup: func(dir string) error {
					p := filepath.Join(dir, name)
					os.WriteFile(p, []byte("old\n"), 0o600)
					return os.Chmod(p, mode)
				}, after: holds(name)})
		}
		// A new file is 0644 (the harness runs under umask 022 or less).
		add(&kase{args: w.args("new.out"), outputs: []string{"new.out"}, after: func(dir string) string {
			fi, err := os.Stat(filepath.Join(dir, "new.out"))
			if err != nil || fi.Mode().Perm()&0o044 != 0o044&^umask() {
				return fmt.Sprintf("new.out: %v %v, want 0644 less the umask", fi.Mode(), err)
			}
			return holds("new.out")(dir)
		}})
	}
	// export's output over its own input: refused (issue 28), the input kept.
	cases = append(cases, &kase{kind: "output-export", args: []string{"export", "t.trace", "--format", "chrome", "-o", "t.trace"},
		files: map[string][]byte{"t.trace": tr}, status: bad, located: `is the input`})
	// check and fuzz directories: a regular file where a directory goes.
	failing := bytes.Replace(ff, []byte(`outcome = "failed"`), []byte(`outcome = "ok"`), 1)
	cases = append(cases, &kase{kind: "output-check", args: []string{"check", "s.toml", "--seeds", "1", "--workers", "1", "--out", "file"},
		files: map[string][]byte{"s.toml": failing, "file": []byte("x\n")}, status: []int{1, 2}, located: `file`})
	cases = append(cases, &kase{kind: "output-check", args: []string{"check", "s.toml", "--seeds", "1", "--workers", "1", "--out", "rl"},
		files: map[string][]byte{"s.toml": failing}, status: failed, outputs: []string{"rd/", "rl"},
		setup: func(dir string) error {
			os.Mkdir(filepath.Join(dir, "rd"), 0o755)
			return os.Symlink("rd", filepath.Join(dir, "rl"))
		}})
	cases = append(cases, &kase{kind: "output-fuzz", args: []string{"fuzz", "--seeds", "1", "--workers", "1", "--out", "file"},
		files: map[string][]byte{"file": []byte("x\n")}, status: []int{0, 2}, located: `file`})
	return cases
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// manySchedules is a scenario of short runs and far more schedules than
// a few seconds explore: three tasks yielding in turn on three workers.
const manySchedules = `version = 1
[scheduler]
workers = 3
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "w" }, { spawn = "w" }, { spawn = "w" } ] } ]
[task.w]
ops = [ { loop = 20, body = [ { yield = true } ] } ]
`

// signalCases interrupt a run that writes a trace over an existing file:
// the file keeps its old content, and no temporary file stays. The slow
// run ends at the simulator's event limit (exit 1, its trace written
// whole) in about 0.9 s on this machine, so a signal at 800 ms may come
// after it: both endings are allowed.
func signalCases() []*kase {
	var cases []*kase
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 800 * time.Millisecond} {
			cases = append(cases, &kase{kind: "signal", args: []string{"run", "s.toml", "--seed", "1", "--workers", "2", "--trace", "out.trace"},
				files:  map[string][]byte{"s.toml": []byte(templates["slow"]), "out.trace": []byte("old\n")},
				status: []int{1, 128 + int(sig)}, signal: sig, signalAfter: after, outputs: []string{"out.trace"},
				after: func(dir string) string {
					data, _ := os.ReadFile(filepath.Join(dir, "out.trace"))
					if string(data) != "old\n" && !bytes.HasPrefix(data, []byte("# cbcsim-trace ")) {
						return fmt.Sprintf("out.trace holds %d bytes of neither the old file nor a trace", len(data))
					}
					return ""
				}})
		}
		// fuzz, check and explore stop at the first signal and report what
		// ran: the JSON report over an existing file is the old one or a
		// whole report that says it was interrupted, never a part of one.
		for _, after := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond} {
			cases = append(cases, &kase{kind: "signal", args: []string{"fuzz", "--duration", "1m", "--jobs", "2", "--json", "r.json"},
				files:  map[string][]byte{"r.json": []byte("old\n")},
				status: []int{128 + int(sig)}, signal: sig, signalAfter: after, outputs: []string{"r.json", "fuzz-out/"},
				after: interruptedJSON})
			cases = append(cases, &kase{kind: "signal", args: []string{"check", "s.toml", "--seeds", "100000000", "--jobs", "2", "--json", "r.json"},
				files:  map[string][]byte{"s.toml": []byte(manySchedules), "r.json": []byte("old\n")},
				status: []int{128 + int(sig)}, signal: sig, signalAfter: after, outputs: []string{"r.json", "repro/"},
				after: interruptedJSON})
			cases = append(cases, &kase{kind: "signal", args: []string{"explore", "s.toml", "--preemptions", "6", "--jobs", "2"},
				files:  map[string][]byte{"s.toml": []byte(manySchedules)},
				status: []int{128 + int(sig)}, signal: sig, signalAfter: after, outputs: []string{"explore-out/"},
				after: func(dir string) string { return "" }})
		}
	}
	return cases
}
