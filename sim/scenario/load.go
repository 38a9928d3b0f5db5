package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/cbcsim/cbcsim/sched"
)

// Limits on what a file may ask for. They keep a typo (or a fuzzer) from
// asking the simulator for absurd allocations or deep recursion; every real
// scenario is far below them.
const (
	maxFileBytes     = 256 << 10 // a scenario is a page of TOML, not a data set
	maxBodyDepth     = 64        // nested bodies (loop, nursery, defer, using)
	maxWorkers       = sched.WorkersMax
	maxCapacity      = 1_000_000 // channel capacity
	maxConcurrentMax = 1_000_000
	maxYieldInterval = math.MaxInt32
)

// Load reads and parses the scenario file at path. Every error is a
// *LoadError whose File is path.
func Load(path string) (*Scenario, error) {
	src, err := readLimited(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, &LoadError{File: path, Msg: "cannot read file: " + msg}
	}
	return Parse(path, src)
}

// readLimited reads at most one byte past maxFileBytes, so that a huge file
// or a device that never ends (/dev/zero) is refused by parse's size check
// without being read whole.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileBytes+1))
}

// Parse parses a scenario from src. name is the file name used in error
// messages and, when the file has no `name`, the scenario's name (its base
// name without ".toml"). Every error is a *LoadError.
func Parse(name string, src []byte) (*Scenario, error) {
	s, lerr := parse(name, src)
	if lerr != nil {
		return nil, lerr
	}
	return s, nil
}

func parse(name string, src []byte) (*Scenario, *LoadError) {
	if len(src) > maxFileBytes {
		// Located where the limit is passed: Load reads no further.
		line, col := 1, 1
		for _, c := range src[:maxFileBytes] {
			col++
			if c == '\n' {
				line, col = line+1, 1
			}
		}
		return nil, &LoadError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("the file passes %d bytes here; a scenario may be at most %d (256 KiB)", maxFileBytes, maxFileBytes)}
	}
	var tree map[string]any
	if err := toml.Unmarshal(src, &tree); err != nil {
		return nil, decodeError(name, err, src)
	}
	d := &decoder{file: name, pos: indexPositions(src), labels: map[string]bool{}}
	s := d.scenario(tree)
	if d.err != nil {
		return nil, d.err
	}
	s.Source = append([]byte(nil), src...)
	sum := sha256.Sum256(src)
	s.SHA256 = hex.EncodeToString(sum[:])
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(name), ".toml")
	}
	return s, nil
}

// decodeError turns the TOML library's error into a LoadError. The library
// gives a position and, for some errors (a key defined twice), the key as
// written on that line, without its table: the path is taken from our own
// index of the document when that position is a key we know.
func decodeError(file string, err error, src []byte) *LoadError {
	le := &LoadError{File: file}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		le.Line, le.Col = de.Position()
		for _, k := range de.Key() {
			le.Path = keyPath(le.Path, k)
		}
		if le.Path != "" {
			if full, ok := indexPositions(src).byPos[position{le.Line, le.Col}]; ok {
				le.Path = full
			}
		}
	}
	le.Msg = "malformed TOML: " + strings.TrimPrefix(err.Error(), "toml: ")
	return le
}

// decoder walks the generic tree. The first error is kept in err and every
// later step is skipped: one message, always the same one for the same file.
type decoder struct {
	file string
	pos  positions
	err  *LoadError

	profile  string
	tasks    map[string]bool // names of [task.NAME] tables
	channels map[string]bool
	labels   map[string]bool // every nursery label in any body
	version  int             // the file's format version
	intos    []labelSite     // spawns `into` a label, checked once every body is decoded
	calls    map[string][]callSite
}

type callSite struct {
	target string
	path   string // the call op's path
}

func (d *decoder) failed() bool { return d.err != nil }

// labelSite is a nursery label named at path.
type labelSite struct {
	label, path string
}

// since reports whether the file's version has what (at path), which
// format version v introduced, and refuses it otherwise.
func (d *decoder) since(v int, path, what string) bool {
	if d.version >= v {
		return true
	}
	d.errorf(path, "%s needs version = %d (this file says version = %d; docs/scenarios.md#format-version-2)", what, v, d.version)
	return false
}

// checkIntos refuses a spawn `into` a label no nursery has.
func (d *decoder) checkIntos() {
	for _, s := range d.intos {
		if !d.labels[s.label] {
			d.errorf(s.path, "spawn into %q: no nursery in this scenario is labelled %q", s.label, s.label)
			return
		}
	}
}

// errorf records the first error, located at path.
func (d *decoder) errorf(path, format string, args ...any) {
	if d.err != nil {
		return
	}
	p := d.pos.lookup(path)
	d.err = &LoadError{File: d.file, Path: path, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// typeName names a decoded TOML value's type for messages, with its article.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time, toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return "a date or time"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("a %T", v)
}

func (d *decoder) wrongType(path, want string, v any) {
	d.errorf(path, "must be %s, not %s", want, typeName(v))
}

// keys returns m's keys in the order they are written in the file (keys the
// index does not know, which cannot happen for a decoded file, go last by
// name). Walking in file order makes "the first error" the first in the file.
func (d *decoder) keys(m map[string]any, parent string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		pi, oki := d.pos.at[keyPath(parent, ks[i])]
		pj, okj := d.pos.at[keyPath(parent, ks[j])]
		switch {
		case oki && okj && pi != pj:
			if pi.line != pj.line {
				return pi.line < pj.line
			}
			return pi.col < pj.col
		case oki != okj:
			return oki
		}
		return ks[i] < ks[j]
	})
	return ks
}

// checkKeys reports the first key of m (in file order) that is not allowed.
// what names the table in the message.
func (d *decoder) checkKeys(m map[string]any, parent, what string, allowed []string) {
	for _, k := range d.keys(m, parent) {
		if !contains(allowed, k) {
			d.errorf(keyPath(parent, k), "unknown key %q in %s (want one of: %s)", k, what, strings.Join(allowed, ", "))
			return
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d *decoder) table(v any, path string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.wrongType(path, "a table", v)
	}
	return m, ok
}

func (d *decoder) str(v any, path string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		d.wrongType(path, "a string", v)
	}
	return s, ok
}

func (d *decoder) nonEmptyStr(v any, path string) (string, bool) {
	s, ok := d.str(v, path)
	if ok && s == "" {
		d.errorf(path, "must not be empty")
		return "", false
	}
	return s, ok
}

func (d *decoder) integer(v any, path string) (int64, bool) {
	n, ok := v.(int64)
	if !ok {
		d.wrongType(path, "an integer", v)
	}
	return n, ok
}

// intIn decodes an integer in [lo, hi].
func (d *decoder) intIn(v any, path string, lo, hi int64) (int64, bool) {
	n, ok := d.integer(v, path)
	if !ok {
		return 0, false
	}
	if n < lo || n > hi {
		switch {
		case hi >= math.MaxInt32: // a bound for safety, not one to tell
			d.errorf(path, "must be >= %d, not %d", lo, n)
		default:
			d.errorf(path, "must be between %d and %d, not %d", lo, hi, n)
		}
		return 0, false
	}
	return n, true
}

func (d *decoder) boolean(v any, path string) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		d.wrongType(path, "a boolean", v)
	}
	return b, ok
}

func (d *decoder) oneOf(v any, path string, allowed []string) (string, bool) {
	s, ok := d.str(v, path)
	if !ok {
		return "", false
	}
	if !contains(allowed, s) {
		d.errorf(path, "unknown value %q (want one of: %s)", s, strings.Join(allowed, ", "))
		return "", false
	}
	return s, true
}

func (d *decoder) stringList(v any, path string) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		d.wrongType(path, "an array of strings", v)
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := d.str(e, indexPath(path, i))
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

var (
	topKeys       = []string{"version", "name", "description", "scheduler", "budget", "channels", "task", "expect"}
	schedulerKeys = []string{"workers", "seed", "victim", "profile", "yield_interval", "max_steps"}
	budgetKeys    = []string{"ops", "memory", "spawn_count", "channel_ops", "syscalls"}
	channelKeys   = []string{"capacity"}
	taskKeys      = []string{"ops", "caps"}
	victims       = []string{VictimRandom, VictimRoundRobin, VictimLeastLoaded}
	profiles      = []string{ProfileCore, ProfileService, ProfileCluster, ProfileSovereign}
	modes         = []string{ModeFailFast, ModeCancelRemaining, ModeCollectAll}
	capabilities  = []string{CapSpawn, CapBudget, CapSupervisor, CapChannel, CapIO}
)

func (d *decoder) scenario(tree map[string]any) *Scenario {
	s := &Scenario{}
	d.checkKeys(tree, "", "the top level", topKeys)

	d.version = Version
	if v, ok := tree["version"]; !ok {
		d.errorf("version", "missing: every scenario starts with version = %d (or %d)", MinVersion, Version)
	} else if n, ok := d.integer(v, "version"); ok && (n < MinVersion || n > Version) {
		d.errorf("version", "unsupported version %d: this tool reads versions %d to %d", n, MinVersion, Version)
	} else if ok {
		d.version = int(n)
	}
	s.Version = d.version
	if v, ok := tree["name"]; ok {
		s.Name, _ = d.str(v, "name")
	}
	if v, ok := tree["description"]; ok {
		s.Description, _ = d.str(v, "description")
	}

	s.Scheduler = d.scheduler(tree["scheduler"])
	d.profile = s.Scheduler.Profile
	s.Budget = d.budget(tree["budget"])
	s.Channels = d.channelList(tree["channels"])
	s.Tasks, s.TaskNames = d.taskTable(tree["task"])
	if d.failed() {
		return nil
	}
	d.callCycles(s.TaskNames)
	d.checkIntos()
	if v, ok := tree["expect"]; ok {
		s.Expect = d.expect(v)
	}
	if d.failed() {
		return nil
	}
	return s
}

func (d *decoder) scheduler(v any) Scheduler {
	sc := Scheduler{Victim: DefaultVictim, Profile: DefaultProfile, MaxSteps: DefaultMaxSteps}
	yieldGiven := false
	if v != nil {
		m, ok := d.table(v, "scheduler")
		if !ok {
			return sc
		}
		d.checkKeys(m, "scheduler", "[scheduler]", schedulerKeys)
		for _, k := range d.keys(m, "scheduler") {
			p := keyPath("scheduler", k)
			x := m[k]
			switch k {
			case "workers":
				n, _ := d.intIn(x, p, 1, maxWorkers)
				sc.Workers = int(n)
			case "seed":
				n, ok := d.intIn(x, p, 0, math.MaxInt64)
				sc.Seed, sc.HasSeed = uint64(n), ok
			case "victim":
				if s, ok := d.oneOf(x, p, victims); ok {
					sc.Victim = s
				}
			case "profile":
				if s, ok := d.oneOf(x, p, profiles); ok {
					sc.Profile = s
				}
			case "yield_interval":
				n, _ := d.intIn(x, p, 1, maxYieldInterval)
				sc.YieldInterval, yieldGiven = int(n), true
			case "max_steps":
				sc.MaxSteps, _ = d.intIn(x, p, 1, math.MaxInt64)
			}
		}
	}
	if !yieldGiven {
		sc.YieldInterval = DefaultYieldInterval
		if sc.Profile == ProfileCluster {
			sc.YieldInterval = DefaultYieldIntervalCluster
		}
	}
	return sc
}

// budget decodes [budget]; left-out components keep DefaultBudget's values.
func (d *decoder) budget(v any) Budget {
	if v == nil {
		return DefaultBudget
	}
	o := d.budgetOverride(v, "budget", "[budget]")
	return o.Over(DefaultBudget)
}

// budgetOverride decodes a budget table in which every component is optional.
func (d *decoder) budgetOverride(v any, path, what string) BudgetOverride {
	var o BudgetOverride
	m, ok := d.table(v, path)
	if !ok {
		return o
	}
	d.checkKeys(m, path, what, budgetKeys)
	for _, k := range d.keys(m, path) {
		n, ok := d.intIn(m[k], keyPath(path, k), 0, math.MaxInt64)
		if !ok {
			return o
		}
		switch k {
		case "ops":
			o.Ops, o.Set = n, o.Set|SetOps
		case "memory":
			o.Memory, o.Set = n, o.Set|SetMemory
		case "spawn_count":
			o.SpawnCount, o.Set = n, o.Set|SetSpawnCount
		case "channel_ops":
			o.ChannelOps, o.Set = n, o.Set|SetChannelOps
		case "syscalls":
			o.Syscalls, o.Set = n, o.Set|SetSyscalls
		}
	}
	return o
}

func (d *decoder) channelList(v any) []Channel {
	d.channels = map[string]bool{}
	if v == nil {
		return nil
	}
	m, ok := d.table(v, "channels")
	if !ok {
		return nil
	}
	var out []Channel
	for _, name := range d.keys(m, "channels") {
		p := keyPath("channels", name)
		if !isBareKey(name) {
			d.errorf(p, "channel name %q must be a bare key (letters, digits, '_' and '-')", name)
			return nil
		}
		cm, ok := m[name].(map[string]any)
		if !ok {
			d.errorf(p, "must be a table like { capacity = 1 }, not %s", typeName(m[name]))
			return nil
		}
		d.checkKeys(cm, p, "a channel", channelKeys)
		ch := Channel{Name: name}
		if c, ok := cm["capacity"]; ok {
			n, _ := d.intIn(c, keyPath(p, "capacity"), 0, maxCapacity)
			ch.Capacity = int(n)
		}
		d.channels[name] = true
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (d *decoder) taskTable(v any) (map[string]*Task, []string) {
	if d.failed() {
		return nil, nil
	}
	if v == nil {
		d.errorf("task.main", "missing: every scenario needs [task.main], the root task")
		return nil, nil
	}
	m, ok := d.table(v, "task")
	if !ok {
		return nil, nil
	}
	d.tasks = map[string]bool{}
	d.calls = map[string][]callSite{}
	order := d.keys(m, "task")
	for _, name := range order {
		if !isBareKey(name) {
			d.errorf(keyPath("task", name), "task name %q must be a bare key (letters, digits, '_' and '-')", name)
			return nil, nil
		}
		d.tasks[name] = true
	}
	if !d.tasks["main"] {
		d.errorf("task.main", "missing: every scenario needs [task.main], the root task")
		return nil, nil
	}
	tasks := make(map[string]*Task, len(order))
	for _, name := range order {
		t := d.task(name, m[name])
		if d.failed() {
			return nil, nil
		}
		tasks[name] = t
	}
	names := append([]string(nil), order...)
	sort.Strings(names)
	return tasks, names
}

func (d *decoder) task(name string, v any) *Task {
	path := keyPath("task", name)
	m, ok := d.table(v, path)
	if !ok {
		return nil
	}
	d.checkKeys(m, path, "a task", taskKeys)
	t := &Task{Name: name}
	if c, ok := m["caps"]; ok {
		cp := keyPath(path, "caps")
		if name != "main" {
			d.errorf(cp, "only task.main takes caps; a child's capabilities come from its spawn's caps")
			return nil
		}
		t.Caps, t.HasCaps = d.caps(c, cp)
	}
	ctx := &bodyCtx{task: name, as: map[string]bool{}}
	if ops, ok := m["ops"]; ok {
		t.Ops = d.body(ops, keyPath(path, "ops"), ctx, 0)
	}
	for _, r := range ctx.recharges {
		if !ctx.as[r.target] {
			d.errorf(r.path, "recharge of %q: no spawn in task %q has as = %q", r.target, name, r.target)
			break
		}
	}
	return t
}

func (d *decoder) caps(v any, path string) ([]string, bool) {
	list, ok := d.stringList(v, path)
	if !ok {
		return nil, false
	}
	for i, c := range list {
		p := indexPath(path, i)
		if !contains(capabilities, c) {
			d.errorf(p, "unknown capability %q (want one of: %s)", c, strings.Join(capabilities, ", "))
			return nil, false
		}
		if contains(list[:i], c) {
			d.errorf(p, "capability %q is listed twice", c)
			return nil, false
		}
	}
	return list, true
}

// callCycles reports a task that calls itself, directly or through other
// calls: `call` runs a body inline, so such a cycle recurses without end.
// Spawn cycles are allowed: budgets bound them at run time.
func (d *decoder) callCycles(names []string) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(t string) bool
	visit = func(t string) bool {
		color[t] = grey
		stack = append(stack, t)
		for _, c := range d.calls[t] {
			switch color[c.target] {
			case grey:
				i := len(stack) - 1
				for stack[i] != c.target {
					i--
				}
				cycle := append(append([]string(nil), stack[i:]...), c.target)
				d.errorf(c.path, "call cycle %s: call runs a body inline, so this recurses forever (spawn, bounded by budgets, may recurse)", strings.Join(cycle, " -> "))
				return false
			case white:
				if !visit(c.target) {
					return false
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[t] = black
		return true
	}
	for _, n := range names {
		if color[n] == white && !visit(n) {
			return
		}
	}
}
