package gen

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Format writes sc as a scenario file in the contract's format: the top
// keys, [scheduler] and [budget] with only the keys that differ from the
// defaults, [channels] by name, then one [task.NAME] section per task, task.main
// first and the others by name. Each op is an inline table with the
// operation key first and its options after it; a body is an array with one
// op per line, indented by depth, so a nested program reads like code.
//
// Format writes every operation and option of format versions 1 and 2,
// under the scenario's own version, so any loaded scenario can be written
// back; scenario.Parse(Format(sc)) gives the
// same tasks and ops. It does not write [expect]: the fuzzer checks
// invariants only, and a shrunk program would break most expectations.
func Format(sc *scenario.Scenario) []byte {
	var w formatter
	w.printf("version = %d\n", max(sc.Version, scenario.MinVersion)) // a generated scenario (0) is version 1
	if sc.Name != "" {
		w.printf("name = %s\n", quote(sc.Name))
	}
	if sc.Description != "" {
		w.printf("description = %s\n", quote(sc.Description))
	}
	w.scheduler(sc.Scheduler)
	if b, def := sc.Budget, scenario.DefaultBudget; b != (scenario.Budget{}) && b != def {
		// Only the components that differ: the others take the defaults.
		w.printf("\n[budget]\n")
		for _, c := range []struct {
			name   string
			v, def int64
		}{
			{"ops", b.Ops, def.Ops}, {"memory", b.Memory, def.Memory}, {"spawn_count", b.SpawnCount, def.SpawnCount},
			{"channel_ops", b.ChannelOps, def.ChannelOps}, {"syscalls", b.Syscalls, def.Syscalls},
		} {
			if c.v != c.def {
				w.printf("%s = %d\n", c.name, c.v)
			}
		}
	}
	if len(sc.Channels) > 0 {
		w.printf("\n[channels]\n")
		for _, ch := range sc.Channels {
			w.printf("%s = { capacity = %d }\n", key(ch.Name), ch.Capacity)
		}
	}
	for _, name := range taskOrder(sc) {
		t := sc.Tasks[name]
		w.printf("\n[task.%s]\n", key(name))
		if t.HasCaps {
			w.printf("caps = %s\n", stringArray(t.Caps))
		}
		w.printf("ops = ")
		w.body(t.Ops, 0)
		w.printf("\n")
	}
	return w.buf.Bytes()
}

// taskOrder is main first, then the other tasks by name.
func taskOrder(sc *scenario.Scenario) []string {
	names := sc.TaskNames
	if len(names) != len(sc.Tasks) { // a hand-built AST may leave TaskNames out
		names = make([]string, 0, len(sc.Tasks))
		for n := range sc.Tasks {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	out := make([]string, 0, len(names))
	if _, ok := sc.Tasks["main"]; ok {
		out = append(out, "main")
	}
	for _, n := range names {
		if n != "main" {
			out = append(out, n)
		}
	}
	return out
}

type formatter struct{ buf bytes.Buffer }

func (w *formatter) printf(format string, args ...any) { fmt.Fprintf(&w.buf, format, args...) }

func (w *formatter) scheduler(s scenario.Scheduler) {
	var lines []string
	if s.Workers != 0 {
		lines = append(lines, fmt.Sprintf("workers = %d", s.Workers))
	}
	if s.HasSeed {
		lines = append(lines, fmt.Sprintf("seed = %d", s.Seed))
	}
	if s.Victim != "" && s.Victim != scenario.DefaultVictim {
		lines = append(lines, "victim = "+quote(s.Victim))
	}
	profile := s.Profile
	if profile == "" {
		profile = scenario.DefaultProfile
	}
	if profile != scenario.DefaultProfile {
		lines = append(lines, "profile = "+quote(profile))
	}
	yi := scenario.DefaultYieldInterval
	if profile == scenario.ProfileCluster {
		yi = scenario.DefaultYieldIntervalCluster
	}
	if s.YieldInterval != 0 && s.YieldInterval != yi {
		lines = append(lines, fmt.Sprintf("yield_interval = %d", s.YieldInterval))
	}
	if s.MaxSteps != 0 && s.MaxSteps != scenario.DefaultMaxSteps {
		lines = append(lines, fmt.Sprintf("max_steps = %d", s.MaxSteps))
	}
	if len(lines) == 0 {
		return
	}
	w.printf("\n[scheduler]\n")
	for _, l := range lines {
		w.printf("%s\n", l)
	}
}

// body writes an array of ops; the caller has written "KEY = " and writes
// what follows the closing bracket.
func (w *formatter) body(ops []scenario.Op, depth int) {
	if len(ops) == 0 {
		w.printf("[]")
		return
	}
	w.printf("[\n")
	for i := range ops {
		w.indent(depth + 1)
		w.op(&ops[i], depth+1)
		w.printf(",\n")
	}
	w.indent(depth)
	w.printf("]")
}

func (w *formatter) indent(depth int) {
	for i := 0; i < depth; i++ {
		w.printf("  ")
	}
}

// op writes one operation: its key and value and options (its
// definition's Format), then its body.
func (w *formatter) op(op *scenario.Op, depth int) {
	w.printf("{ ")
	if f := op.Kind.Def().Format; f != nil {
		f(w, op)
	} else { // call, cancel, send, recv, close, defer, using, log, fail, panic
		w.printf("%s = %s", op.Kind, quote(op.Str))
	}
	if op.Kind.HasBody() {
		w.printf(", body = ")
		w.body(op.Body, depth)
	}
	w.printf(" }")
}

// The formatter is the scenario.Formatter an operation's Format writes
// with.

func (w *formatter) Printf(format string, args ...any)             { w.printf(format, args...) }
func (w *formatter) Quote(s string) string                         { return quote(s) }
func (w *formatter) Strings(ss []string) string                    { return stringArray(ss) }
func (w *formatter) BudgetTable(o scenario.BudgetOverride) string  { return budgetTable(o) }
func (w *formatter) BudgetFields(o scenario.BudgetOverride) string { return budgetFields(o) }

// budgetFields writes the components o sets as "ops = 1, memory = 2".
func budgetFields(o scenario.BudgetOverride) string {
	var b bytes.Buffer
	add := func(bit uint8, name string, v int64) {
		if o.Set&bit == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %d", name, v)
	}
	add(scenario.SetOps, "ops", o.Ops)
	add(scenario.SetMemory, "memory", o.Memory)
	add(scenario.SetSpawnCount, "spawn_count", o.SpawnCount)
	add(scenario.SetChannelOps, "channel_ops", o.ChannelOps)
	add(scenario.SetSyscalls, "syscalls", o.Syscalls)
	return b.String()
}

func budgetTable(o scenario.BudgetOverride) string {
	if f := budgetFields(o); f != "" {
		return "{ " + f + " }"
	}
	return "{}"
}

func stringArray(ss []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(s))
	}
	b.WriteByte(']')
	return b.String()
}

// key writes a TOML key: bare when it can be, quoted otherwise.
func key(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return quote(s)
		}
	}
	return s
}

// quote writes s as a TOML basic string. Go's strconv.Quote is not TOML:
// it writes \x, \a and \v escapes, which TOML does not have.
func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\u`)
			b.WriteString(fmt.Sprintf("%04X", r))
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\uFFFD`) // TOML text is UTF-8; a stray byte cannot be kept
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
