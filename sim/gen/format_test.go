package gen

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// diffOps compares two bodies field by field, recursively, and returns
// where they first differ ("" when they are the same). Path, Line and Col
// are where an op was written and are not compared.
func diffOps(where string, a, b []scenario.Op) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%s: %d ops, want %d", where, len(b), len(a))
	}
	for i := range a {
		x, y := a[i], b[i]
		at := fmt.Sprintf("%s[%d]", where, i)
		if x.Kind == scenario.Nursery && x.Mode == "" {
			x.Mode = scenario.DefaultMode
		}
		type flat struct {
			Kind           scenario.OpKind
			N              int64
			Str, As, Mode  string
			Caps           string
			HasCaps        bool
			Timeout        int64
			HasTimeout     bool
			MaxConcurrent  int
			Catch          bool
			SpawnBudget    *scenario.BudgetOverride
			NurseryBudget  *scenario.BudgetOverride
			Recharge       scenario.BudgetOverride
			BodyIsNonEmpty bool
		}
		fl := func(o scenario.Op) flat {
			return flat{o.Kind, o.N, o.Str, o.As, o.Mode, strings.Join(o.Caps, ","), o.HasCaps, o.Timeout, o.HasTimeout,
				o.MaxConcurrent, o.Catch, o.SpawnBudget, o.NurseryBudget, o.Recharge, len(o.Body) > 0}
		}
		if fx, fy := fl(x), fl(y); !reflect.DeepEqual(fx, fy) {
			return fmt.Sprintf("%s: got %+v, want %+v", at, fy, fx)
		}
		if d := diffOps(at+".body", x.Body, y.Body); d != "" {
			return d
		}
	}
	return ""
}

// diffScenarios compares what Format writes: settings, tasks and ops.
func diffScenarios(a, b *scenario.Scenario) string {
	if a.Name != b.Name || a.Description != b.Description {
		return fmt.Sprintf("name/description %q/%q, want %q/%q", b.Name, b.Description, a.Name, a.Description)
	}
	if a.Scheduler != b.Scheduler {
		return fmt.Sprintf("scheduler %+v, want %+v", b.Scheduler, a.Scheduler)
	}
	if a.Budget != b.Budget {
		return fmt.Sprintf("budget %+v, want %+v", b.Budget, a.Budget)
	}
	if !reflect.DeepEqual(a.Channels, b.Channels) {
		return fmt.Sprintf("channels %+v, want %+v", b.Channels, a.Channels)
	}
	if !reflect.DeepEqual(a.TaskNames, b.TaskNames) {
		return fmt.Sprintf("tasks %v, want %v", b.TaskNames, a.TaskNames)
	}
	for _, name := range a.TaskNames {
		ta, tb := a.Tasks[name], b.Tasks[name]
		if ta.HasCaps != tb.HasCaps || strings.Join(ta.Caps, ",") != strings.Join(tb.Caps, ",") {
			return fmt.Sprintf("task.%s caps %v, want %v", name, tb.Caps, ta.Caps)
		}
		if d := diffOps("task."+name+".ops", ta.Ops, tb.Ops); d != "" {
			return d
		}
	}
	return ""
}

// TestFormatRoundTrip: parsing what Format writes of a generated AST gives
// the same scenario, op for op.
func TestFormatRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		x := ast().Draw(t, "ast")
		src := Format(x)
		y, err := scenario.Parse("x.toml", src)
		if err != nil {
			t.Fatalf("Format wrote a file that does not load: %v\n%s", err, src)
		}
		if d := diffScenarios(x, y); d != "" {
			t.Fatalf("round trip changed the scenario: %s\n%s", d, src)
		}
		if again := Format(y); !bytes.Equal(again, src) {
			t.Fatalf("Format is not stable:\n%s\n----\n%s", src, again)
		}
	})
}

// TestFormatRoundTripBundled writes back every bundled scenario, which use
// options the generator does not (channels, budgets, caps, timeouts,
// recharge, "forever"), and checks that the text loads to the same
// scenario. [expect] is not written, so it is not compared.
func TestFormatRoundTripBundled(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../scenarios/*.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	for _, p := range paths {
		x, err := scenario.Load(p)
		if err != nil {
			t.Fatalf("%v", err)
		}
		src := Format(x)
		y, err := scenario.Parse(p, src)
		if err != nil {
			t.Fatalf("%s: Format wrote a file that does not load: %v\n%s", p, err, src)
		}
		if d := diffScenarios(x, y); d != "" {
			t.Errorf("%s: %s\n%s", p, d, src)
		}
	}
}

// TestFormatEveryOpSample writes back every operation's Sample (which
// uses every option the operation takes) and checks that the text loads
// to the same ops, every field compared: an operation whose value is not
// a string but that has no Format, or a Format that leaves an option out,
// fails here.
func TestFormatEveryOpSample(t *testing.T) {
	t.Parallel()
	for _, k := range scenario.OpKinds() {
		x, err := scenario.Parse("sample.toml", scenario.SampleSource(k))
		if err != nil {
			t.Fatalf("op %s: %v", k, err)
		}
		src := Format(x)
		y, err := scenario.Parse("sample.toml", src)
		if err != nil {
			t.Errorf("op %s: Format wrote a file that does not load: %v\n%s", k, err, src)
			continue
		}
		if a, b := unplaced(x.Tasks["main"].Ops), unplaced(y.Tasks["main"].Ops); !reflect.DeepEqual(a, b) {
			t.Errorf("op %s: round trip changed the ops:\n got  %+v\n want %+v\n%s", k, b, a, src)
		}
	}
}

// unplaced is ops without where they were written (Path, Line, Col).
func unplaced(ops []scenario.Op) []scenario.Op {
	out := make([]scenario.Op, len(ops))
	for i, op := range ops {
		op.Path, op.Line, op.Col = "", 0, 0
		op.Body = unplaced(op.Body)
		out[i] = op
	}
	return out
}

// TestFormatEveryOption covers, by hand, every op and option, with the
// edge cases the generator may not draw (an empty budget table, every
// budget component set, a zero, empty caps, a negative return, a workers
// and seed setting), and strings that need escaping in TOML.
func TestFormatEveryOption(t *testing.T) {
	t.Parallel()
	odd := "quote \" backslash \\ newline \n tab \t bell \a del \x7f é ✓"
	full := scenario.BudgetOverride{Ops: 1, Memory: 2, SpawnCount: 0, ChannelOps: 4, Syscalls: 5,
		Set: scenario.SetOps | scenario.SetMemory | scenario.SetSpawnCount | scenario.SetChannelOps | scenario.SetSyscalls}
	x := &scenario.Scenario{
		Version: 1, Name: odd, Description: "line one\nline two",
		Scheduler: scenario.Scheduler{Workers: 3, Seed: 9, HasSeed: true, Victim: scenario.VictimLeastLoaded,
			Profile: scenario.ProfileCluster, YieldInterval: 7, MaxSteps: 1234},
		Budget:   scenario.Budget{Ops: 10, Memory: 20, SpawnCount: 3, ChannelOps: 4, Syscalls: 5},
		Channels: []scenario.Channel{{Name: "a", Capacity: 0}, {Name: "b", Capacity: 2}},
		Tasks: map[string]*scenario.Task{
			"main": {Name: "main", Caps: []string{"spawn", "supervisor"}, HasCaps: true, Ops: []scenario.Op{
				{Kind: scenario.Nursery, Str: "n", Mode: scenario.ModeCancelRemaining, Timeout: 5, HasTimeout: true,
					MaxConcurrent: 2, Catch: true, NurseryBudget: &scenario.BudgetOverride{Ops: 7, Set: scenario.SetOps},
					Body: []scenario.Op{
						{Kind: scenario.Spawn, Str: "w", As: "w1", Caps: []string{"spawn"}, HasCaps: true,
							SpawnBudget: &scenario.BudgetOverride{Memory: 8, Syscalls: 1, Set: scenario.SetMemory | scenario.SetSyscalls}},
						{Kind: scenario.Recharge, Str: "w1", Recharge: scenario.BudgetOverride{Ops: 100, SpawnCount: 1, Set: scenario.SetOps | scenario.SetSpawnCount}},
						{Kind: scenario.Spawn, Str: "w", As: "w2", Caps: []string{}, HasCaps: true, SpawnBudget: &scenario.BudgetOverride{}},
						{Kind: scenario.Recharge, Str: "w2", Recharge: full},
						{Kind: scenario.Nursery, Str: "m", Mode: scenario.ModeCollectAll, Timeout: 1, HasTimeout: true,
							NurseryBudget: &full, Body: []scenario.Op{{Kind: scenario.Spawn, Str: "w", SpawnBudget: &full}}},
						{Kind: scenario.Cancel, Str: "n"},
					}},
				{Kind: scenario.Send, Str: "a"}, {Kind: scenario.Recv, Str: "b"}, {Kind: scenario.Close, Str: "a"},
				{Kind: scenario.Sleep, N: 3}, {Kind: scenario.Alloc, N: 64}, {Kind: scenario.Syscall, N: 2},
				{Kind: scenario.Loop, N: scenario.LoopForever, Body: []scenario.Op{{Kind: scenario.Yield}}},
				{Kind: scenario.Defer, Str: "d", Body: []scenario.Op{{Kind: scenario.Log, Str: odd}}},
				{Kind: scenario.Using, Str: "r", Body: nil},
				{Kind: scenario.CheckCancel}, {Kind: scenario.Call, Str: "w"},
				{Kind: scenario.Return, N: -4}, {Kind: scenario.Fail, Str: "E"}, {Kind: scenario.Panic, Str: ""},
			}},
			"w": {Name: "w", Ops: nil},
		},
		TaskNames: []string{"main", "w"},
	}
	src := Format(x)
	y, err := scenario.Parse("x.toml", src)
	if err != nil {
		t.Fatalf("does not load: %v\n%s", err, src)
	}
	if d := diffScenarios(x, y); d != "" {
		t.Fatalf("%s\n%s", d, src)
	}
}

// TestFormatReadable pins the layout on a small example: main first, one
// op per line, bodies indented.
func TestFormatReadable(t *testing.T) {
	t.Parallel()
	x := &scenario.Scenario{
		Version: 1, Name: "small",
		Scheduler: scenario.Scheduler{Victim: scenario.DefaultVictim, Profile: scenario.DefaultProfile,
			YieldInterval: 16, MaxSteps: scenario.DefaultMaxSteps},
		Budget: scenario.DefaultBudget,
		Tasks: map[string]*scenario.Task{
			"a": {Name: "a", Ops: []scenario.Op{{Kind: scenario.Fail, Str: "E1"}}},
			"main": {Name: "main", Ops: []scenario.Op{
				{Kind: scenario.Nursery, Str: "n1", Mode: scenario.ModeCollectAll, Body: []scenario.Op{
					{Kind: scenario.Spawn, Str: "a"},
				}},
				{Kind: scenario.Log, Str: "done"},
			}},
		},
		TaskNames: []string{"a", "main"},
	}
	want := `version = 1
name = "small"

[scheduler]
yield_interval = 16

[task.main]
ops = [
  { nursery = "n1", mode = "collect_all", body = [
    { spawn = "a" },
  ] },
  { log = "done" },
]

[task.a]
ops = [
  { fail = "E1" },
]
`
	if got := string(Format(x)); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestFormatReadableOptions pins the layout of the options: [budget] with
// only what differs from the defaults, [channels], main's caps, and the
// options of spawn, nursery and recharge after the operation key.
func TestFormatReadableOptions(t *testing.T) {
	t.Parallel()
	budget := scenario.DefaultBudget
	budget.Ops, budget.ChannelOps = 50, 4
	x := &scenario.Scenario{
		Version: 1, Name: "issue5",
		Scheduler: scenario.Scheduler{Victim: scenario.DefaultVictim, Profile: scenario.ProfileSovereign,
			YieldInterval: scenario.DefaultYieldInterval, MaxSteps: 20_000},
		Budget:   budget,
		Channels: []scenario.Channel{{Name: "ch1", Capacity: 2}},
		Tasks: map[string]*scenario.Task{
			"main": {Name: "main", Caps: []string{"spawn", "supervisor"}, HasCaps: true, Ops: []scenario.Op{
				{Kind: scenario.Nursery, Str: "n2", Mode: scenario.ModeCollectAll, Timeout: 30, HasTimeout: true,
					NurseryBudget: &scenario.BudgetOverride{Ops: 3, Set: scenario.SetOps}, Body: []scenario.Op{
						{Kind: scenario.Spawn, Str: "c4", Caps: []string{}, HasCaps: true,
							SpawnBudget: &scenario.BudgetOverride{Ops: 2, ChannelOps: 2, Set: scenario.SetOps | scenario.SetChannelOps}},
						{Kind: scenario.Spawn, Str: "p3"},
						{Kind: scenario.Spawn, Str: "t1", As: "w5", Caps: []string{"spawn"}, HasCaps: true},
						{Kind: scenario.Sleep, N: 4},
						{Kind: scenario.Recharge, Str: "w5", Recharge: scenario.BudgetOverride{Ops: 12, Memory: 64,
							Set: scenario.SetOps | scenario.SetMemory}},
					}},
			}},
			"c4": {Name: "c4", Ops: []scenario.Op{{Kind: scenario.Recv, Str: "ch1"}, {Kind: scenario.Recv, Str: "ch1"}}},
			"p3": {Name: "p3", Ops: []scenario.Op{{Kind: scenario.Send, Str: "ch1"}, {Kind: scenario.Close, Str: "ch1"}}},
			"t1": {Name: "t1", Ops: []scenario.Op{{Kind: scenario.Alloc, N: 64}, {Kind: scenario.Syscall, N: 2},
				{Kind: scenario.Loop, N: 2, Body: []scenario.Op{{Kind: scenario.Compute, N: 3}}}}},
		},
		TaskNames: []string{"c4", "main", "p3", "t1"},
	}
	want := `version = 1
name = "issue5"

[scheduler]
profile = "sovereign"
max_steps = 20000

[budget]
ops = 50
channel_ops = 4

[channels]
ch1 = { capacity = 2 }

[task.main]
caps = ["spawn", "supervisor"]
ops = [
  { nursery = "n2", mode = "collect_all", timeout = 30, budget = { ops = 3 }, body = [
    { spawn = "c4", budget = { ops = 2, channel_ops = 2 }, caps = [] },
    { spawn = "p3" },
    { spawn = "t1", as = "w5", caps = ["spawn"] },
    { sleep = 4 },
    { recharge = "w5", ops = 12, memory = 64 },
  ] },
]

[task.c4]
ops = [
  { recv = "ch1" },
  { recv = "ch1" },
]

[task.p3]
ops = [
  { send = "ch1" },
  { close = "ch1" },
]

[task.t1]
ops = [
  { alloc = 64 },
  { syscall = 2 },
  { loop = 2, body = [
    { compute = 3 },
  ] },
]
`
	got := string(Format(x))
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	y, err := scenario.Parse("x.toml", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffScenarios(x, y); d != "" {
		t.Fatal(d)
	}
}
