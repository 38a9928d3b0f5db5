package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// badFiles is one file per load-error class of the contract (and of the
// choices docs/scenarios.md adds), with the exact path, position and phrase
// its error must carry. Line and col are 0 where nothing in the file is the
// culprit (a missing key).
var badFiles = []struct {
	file      string
	path      string
	line, col int
	phrase    string
}{
	// Malformed TOML: the library's own position.
	{"malformed.toml", "", 4, 24, "malformed TOML: array is incomplete"},
	{"duplicate_key.toml", "scheduler.workers", 4, 1, "malformed TOML: key workers is already defined"},

	// A wrong type.
	{"wrong_type.toml", "scheduler.workers", 4, 1, "must be an integer, not a string"},
	{"wrong_type_op.toml", "task.main.ops[0].compute", 5, 5, "must be an integer, not a string"},
	{"float_compute.toml", "task.main.ops[0].compute", 4, 11, "must be an integer, not a float"},
	{"op_not_table.toml", "task.main.ops[0]", 4, 9, "an operation must be a table"},
	{"yield_false.toml", "task.main.ops[0].yield", 4, 11, "must be true"},
	{"loop_bad_string.toml", "task.main.ops[0].loop", 4, 11, `must be a count >= 0 or "forever", not "always"`},
	{"empty_fail.toml", "task.main.ops[0].fail", 4, 11, "must not be empty"},

	// An unknown key, anywhere.
	{"unknown_top_key.toml", "nmae", 2, 1, `unknown key "nmae" in the top level`},
	{"unknown_scheduler_key.toml", "scheduler.wrkers", 4, 1, `unknown key "wrkers" in [scheduler]`},
	{"unknown_budget_key.toml", "budget.opps", 5, 1, `unknown key "opps" in [budget]`},
	{"unknown_channel_key.toml", "channels.jobs.capacty", 4, 10, `unknown key "capacty" in a channel`},
	{"unknown_task_key.toml", "task.main.opz", 4, 1, `unknown key "opz" in a task`},
	{"unknown_expect_key.toml", "expect.outcom", 7, 1, `unknown key "outcom" in [expect]`},
	{"unknown_expect_nursery_key.toml", "expect.nursery.n.reslts", 7, 1, `unknown key "reslts" in a nursery expectation`},

	// An unknown operation or option; two operation keys, or none.
	{"unknown_operation.toml", "task.main.ops[1].comptue", 6, 5, `unknown operation "comptue"`},
	{"array_table_unknown_op.toml", "task.main.ops[1].body[0].spwan", 10, 1, `unknown operation "spwan"`},
	{"unknown_option.toml", "task.main.ops[0].tiemout", 5, 20, `unknown option "tiemout" for nursery`},
	{"two_op_keys.toml", "task.main.ops[0]", 5, 3, `several operation keys ("compute", "yield")`},
	{"no_op_key.toml", "task.main.ops[0]", 5, 3, "no operation key"},

	// An unknown task or channel name.
	{"unknown_task.toml", "task.main.ops[0].body[1]", 7, 7, `unknown task "wrker" in spawn`},
	{"unknown_task_call.toml", "task.main.ops[0]", 4, 9, `unknown task "helpr" in call`},
	{"unknown_channel.toml", "task.main.ops[0]", 7, 9, `unknown channel "jbos" in send`},
	{"bad_task_name.toml", `task."my worker"`, 6, 7, `task name "my worker" must be a bare key`},

	// N1001 SpawnOutsideNursery.
	{"spawn_outside_nursery.toml", "task.main.ops[0]", 6, 3, `N1001 SpawnOutsideNursery: spawn of "worker" is not inside a nursery body of task "main"`},
	{"spawn_in_called_body.toml", "task.helper.ops[0].body[0]", 13, 24, `N1001 SpawnOutsideNursery: spawn of "worker" is not inside a nursery body of task "helper"`},
	{"spawn_in_defer.toml", "task.main.ops[0].body[0].body[0]", 9, 34, "N1001 SpawnOutsideNursery"},

	// Spawn or nursery under profile "core".
	{"core_nursery.toml", "task.main.ops[1]", 9, 3, `nursery is not allowed under profile "core"`},
	{"core_spawn.toml", "task.main.ops[0]", 7, 9, `spawn is not allowed under profile "core"`},

	// A cancel of a label that is not an enclosing nursery of the body.
	{"cancel_bad_label.toml", "task.main.ops[0].body[1]", 7, 7, `cancel of "m": no enclosing nursery of this body has that label`},
	{"cancel_after_nursery.toml", "task.main.ops[1]", 6, 3, `cancel of "n": no enclosing nursery`},

	// A negative or out-of-range number.
	{"negative_compute.toml", "task.main.ops[0].body[0].compute", 6, 9, "must be >= 0, not -5"},
	{"workers_range.toml", "scheduler.workers", 4, 1, "must be between 1 and 256, not 300"},
	{"seed_negative.toml", "scheduler.seed", 4, 1, "must be >= 0, not -1"},
	{"capacity_negative.toml", "channels.jobs.capacity", 4, 10, "must be between 0 and 1000000, not -1"},
	{"yield_interval_zero.toml", "scheduler.yield_interval", 4, 1, "must be >= 1, not 0"},
	{"max_steps_zero.toml", "scheduler.max_steps", 4, 1, "must be >= 1, not 0"},
	{"budget_negative.toml", "budget.spawn_count", 4, 1, "must be >= 0, not -3"},
	{"spawn_budget_negative.toml", "task.main.ops[0].body[0].budget.ops", 6, 38, "must be >= 0, not -1"},
	{"max_concurrent_negative.toml", "task.main.ops[0].max_concurrent", 4, 26, "must be between 0 and 1000000, not -2"},
	{"timeout_zero.toml", "task.main.ops[0].timeout", 4, 26, "must be >= 1, not 0"},

	// The version; task.main.
	{"version_3.toml", "version", 1, 1, "unsupported version 3: this tool reads versions 1 to 2"},

	// Format version 2's features: refused in a version-1 file, and their
	// misuse (docs/scenarios.md#format-version-2).
	{"v2_op_in_v1.toml", "task.main.ops[0].cancel_self", 5, 5, "cancel_self needs version = 2"},
	{"into_in_v1.toml", "task.w.ops[0].into", 7, 24, "spawn's option into needs version = 2"},
	{"into_unknown_label.toml", "task.w.ops[0].into", 7, 24, `spawn into "m": no nursery in this scenario is labelled "m"`},
	{"timeout_fails_no_timeout.toml", "task.main.ops[0].timeout_fails", 4, 26, "timeout_fails needs a timeout"},
	{"bad_transition.toml", "expect.nursery.n.transitions[1]", 7, 33, `invalid transition "Closing->Open"`},
	{"unknown_expect_task.toml", "expect.task.worker", 6, 14, `no task in this scenario is named "worker"`},
	{"version_missing.toml", "version", 1, 0, "missing: every scenario starts with version = 1"},
	{"no_task_table.toml", "task.main", 1, 0, "missing: every scenario needs [task.main]"},
	{"missing_main.toml", "task.main", 3, 2, "missing: every scenario needs [task.main]"},

	// An unknown mode, victim, profile or capability.
	{"bad_mode.toml", "task.main.ops[0].mode", 4, 26, `unknown value "fail_slow"`},
	{"bad_victim.toml", "scheduler.victim", 4, 1, `unknown value "richest"`},
	{"bad_profile.toml", "scheduler.profile", 4, 1, `unknown value "kernel"`},
	{"bad_capability.toml", "task.main.caps[1]", 7, 18, `unknown capability "root"`},
	{"caps_on_child_task.toml", "task.worker.caps", 7, 1, "only task.main takes caps"},

	// Invalid [expect] patterns and labels.
	{"bad_outcome.toml", "expect.outcome", 7, 1, `invalid pattern "ok|crashed": "crashed": want ok, failed, cancelled, deadlock, livelock or *`},
	{"bad_nursery_result.toml", "expect.nursery.n.result", 7, 1, `invalid pattern "succeeded": want success, child_failed, cancelled or *`},
	{"bad_result_pattern.toml", "expect.nursery.n.results[1]", 10, 20, `invalid pattern "ok:one": ok:VALUE needs an integer value`},
	{"bad_reason.toml", "expect.nursery.n.results[0]", 10, 12, `"cancelled:Timedout": unknown reason`},
	{"unknown_expect_label.toml", "expect.nursery.m", 6, 17, `no nursery in this scenario is labelled "m"`},

	// A call cycle.
	{"call_cycle.toml", "task.b.ops[0].body[0]", 10, 30, "call cycle a -> b -> a"},
	{"call_self.toml", "task.main.ops[0]", 4, 9, "call cycle main -> main"},

	// Recharge of a child no spawn names; a recharge of nothing.
	{"recharge_unknown_child.toml", "task.main.ops[0].body[1]", 10, 7, `recharge of "w2": no spawn in task "main" has as = "w2"`},
	{"recharge_empty.toml", "task.main.ops[0].body[1]", 10, 7, `recharge of "w1" gives nothing`},
}

func TestBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range badFiles {
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join("testdata", "bad", tc.file)
			s, err := Load(file)
			if err == nil {
				t.Fatalf("Load(%s) = %q, want an error", file, s.Name)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, want *LoadError: %v", err, err)
			}
			if le.File != file || le.Path != tc.path || le.Line != tc.line || le.Col != tc.col {
				t.Errorf("got file %q path %q at %d:%d, want %q %q at %d:%d\n(%v)",
					le.File, le.Path, le.Line, le.Col, file, tc.path, tc.line, tc.col, err)
			}
			if !strings.Contains(le.Msg, tc.phrase) {
				t.Errorf("message %q does not contain %q", le.Msg, tc.phrase)
			}
			// The printed form carries all of it.
			msg := err.Error()
			want := file + ":"
			if tc.line > 0 {
				want += fmt.Sprintf("%d:", tc.line)
			}
			if tc.col > 0 {
				want += fmt.Sprintf("%d:", tc.col)
			}
			if tc.path != "" {
				want += " " + tc.path + ":"
			}
			if !strings.HasPrefix(msg, want) || !strings.Contains(msg, tc.phrase) {
				t.Errorf("Error() = %q, want prefix %q and %q", msg, want, tc.phrase)
			}
		})
	}
}

// TestBadFilesAllListed keeps testdata/bad and the table in step: a bad
// file nobody asserts on is a test that silently checks nothing.
func TestBadFilesAllListed(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "bad", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tc := range badFiles {
		listed[tc.file] = true
	}
	for _, p := range paths {
		if !listed[filepath.Base(p)] {
			t.Errorf("%s is not in badFiles", p)
		}
		delete(listed, filepath.Base(p))
	}
	for f := range listed {
		t.Errorf("badFiles lists %s, which is not in testdata/bad", f)
	}
}

func TestLoadErrorFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    LoadError
		want string
	}{
		{LoadError{File: "s.toml", Path: "task.main.ops[2]", Line: 12, Col: 5, Msg: `unknown task "wrker" in spawn`},
			`s.toml:12:5: task.main.ops[2]: unknown task "wrker" in spawn`},
		{LoadError{File: "s.toml", Path: "version", Msg: "missing"}, "s.toml: version: missing"},
		{LoadError{File: "s.toml", Line: 3, Msg: "bad"}, "s.toml:3: bad"},
		{LoadError{File: "s.toml", Msg: "bad"}, "s.toml: bad"},
		{LoadError{Path: "x", Msg: "bad"}, "x: bad"},
		{LoadError{Msg: "bad"}, "bad"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join("testdata", "no-such-file.toml"))
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "cannot read file") || le.File != filepath.Join("testdata", "no-such-file.toml") {
		t.Fatalf("got %v, want a *LoadError saying the file cannot be read", err)
	}
}

func TestFileTooLarge(t *testing.T) {
	t.Parallel()
	src := make([]byte, maxFileBytes+1)
	for i := 99; i < len(src); i += 100 {
		src[i] = '\n'
	}
	_, err := Parse("big.toml", src)
	if want := "big.toml:2622:45: the file passes 262144 bytes"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want a size error located where the limit passes (%s)", err, want)
	}
}

// Load reads no more than it may accept: a device that never ends is a
// size error, not a read that grows until the machine kills it.
func TestLoadDevZero(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := Load("/dev/zero")
	if err == nil || !strings.HasPrefix(err.Error(), "/dev/zero:1:262145: the file passes") {
		t.Fatalf("got %v, want a size error", err)
	}
}

func TestNestingBound(t *testing.T) {
	t.Parallel()
	build := func(depth int) string {
		var b strings.Builder
		b.WriteString("version = 1\n[task.main]\nops = ")
		for i := 0; i < depth; i++ {
			b.WriteString(`[ { loop = 1, body = `)
		}
		b.WriteString("[]")
		for i := 0; i < depth; i++ {
			b.WriteString(" } ]")
		}
		b.WriteString("\n")
		return b.String()
	}
	if _, err := Parse("ok.toml", []byte(build(maxBodyDepth))); err != nil {
		t.Fatalf("depth %d: %v", maxBodyDepth, err)
	}
	_, err := Parse("deep.toml", []byte(build(maxBodyDepth+1)))
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("depth %d: got %v, want a nesting error", maxBodyDepth+1, err)
	}
}

func TestMinimalDefaults(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join("testdata", "good", "minimal.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := Scheduler{Victim: "random", Profile: "service", YieldInterval: 1024, MaxSteps: 1_000_000}
	if s.Scheduler != want {
		t.Errorf("scheduler = %+v, want %+v", s.Scheduler, want)
	}
	if s.Budget != (Budget{Ops: 100_000, Memory: 1_048_576, SpawnCount: 64, ChannelOps: 1024, Syscalls: 64}) {
		t.Errorf("budget = %+v", s.Budget)
	}
	if s.Name != "minimal" || s.Expect != nil || s.Channels != nil {
		t.Errorf("name %q expect %v channels %v", s.Name, s.Expect, s.Channels)
	}
	if len(s.TaskNames) != 1 || s.Tasks["main"] == nil || len(s.Tasks["main"].Ops) != 0 {
		t.Errorf("tasks = %v", s.TaskNames)
	}

	cluster, err := Parse("c.toml", []byte("version = 1\n[scheduler]\nprofile = \"cluster\"\n[task.main]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cluster.Scheduler.YieldInterval != 512 {
		t.Errorf("cluster yield_interval = %d, want 512", cluster.Scheduler.YieldInterval)
	}
	given, err := Parse("c.toml", []byte("version = 1\n[scheduler]\nprofile = \"cluster\"\nyield_interval = 7\n[task.main]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if given.Scheduler.YieldInterval != 7 {
		t.Errorf("given yield_interval = %d, want 7", given.Scheduler.YieldInterval)
	}
}

func TestAllOps(t *testing.T) {
	t.Parallel()
	file := filepath.Join("testdata", "good", "all_ops.toml")
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(file)
	sum := sha256.Sum256(src)
	if string(s.Source) != string(src) || s.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("Source/SHA256 do not match the file")
	}
	if s.Version != 1 || s.Name != "all ops" || s.Description != "every operation once" {
		t.Errorf("header = %d %q %q", s.Version, s.Name, s.Description)
	}
	wantSched := Scheduler{Workers: 3, Seed: 7, HasSeed: true, Victim: "least_loaded", Profile: "cluster", YieldInterval: 512, MaxSteps: 5000}
	if s.Scheduler != wantSched {
		t.Errorf("scheduler = %+v, want %+v", s.Scheduler, wantSched)
	}
	if s.Budget != (Budget{Ops: 1000, Memory: 1_048_576, SpawnCount: 64, ChannelOps: 1024, Syscalls: 8}) {
		t.Errorf("budget = %+v", s.Budget)
	}
	if !reflect.DeepEqual(s.Channels, []Channel{{"done", 0}, {"jobs", 2}}) {
		t.Errorf("channels = %+v", s.Channels)
	}
	if !reflect.DeepEqual(s.TaskNames, []string{"helper", "main", "worker"}) {
		t.Errorf("task names = %v", s.TaskNames)
	}

	p := func(i int) string { return fmt.Sprintf("task.main.ops[%d]", i) }
	n := "task.main.ops[3].body"
	wantOps := []Op{
		{Kind: Compute, Path: p(0), Line: 23, Col: 3, N: 10},
		{Kind: Yield, Path: p(1), Line: 24, Col: 3},
		{Kind: Call, Path: p(2), Line: 25, Col: 3, Str: "helper"},
		{Kind: Nursery, Path: p(3), Line: 26, Col: 3, Str: "n", Mode: "cancel_remaining",
			Timeout: 50, HasTimeout: true, MaxConcurrent: 2, Catch: true,
			NurseryBudget: &BudgetOverride{Ops: 500, SpawnCount: 4, Set: SetOps | SetSpawnCount},
			Body: []Op{
				{Kind: Spawn, Path: n + "[0]", Line: 28, Col: 7, Str: "worker", As: "w1",
					SpawnBudget: &BudgetOverride{Memory: 64, Set: SetMemory}, Caps: []string{"spawn", "io"}, HasCaps: true},
				{Kind: Loop, Path: n + "[1]", Line: 29, Col: 7, N: 2, Body: []Op{
					{Kind: Spawn, Path: n + "[1].body[0]", Line: 29, Col: 28, Str: "worker"},
				}},
				{Kind: Recharge, Path: n + "[2]", Line: 30, Col: 7, Str: "w1",
					Recharge: BudgetOverride{Ops: 100, ChannelOps: 3, Set: SetOps | SetChannelOps}},
				{Kind: Cancel, Path: n + "[3]", Line: 31, Col: 7, Str: "n"},
			}},
		{Kind: CheckCancel, Path: p(4), Line: 33, Col: 3},
		{Kind: Send, Path: p(5), Line: 34, Col: 3, Str: "jobs"},
		{Kind: Recv, Path: p(6), Line: 35, Col: 3, Str: "jobs"},
		{Kind: Close, Path: p(7), Line: 36, Col: 3, Str: "done"},
		{Kind: Sleep, Path: p(8), Line: 37, Col: 3, N: 5},
		{Kind: Alloc, Path: p(9), Line: 38, Col: 3, N: 4096},
		{Kind: Syscall, Path: p(10), Line: 39, Col: 3, N: 2},
		{Kind: Defer, Path: p(11), Line: 40, Col: 3, Str: "cleanup", Body: []Op{
			{Kind: Log, Path: p(11) + ".body[0]", Line: 40, Col: 33, Str: "cleaning"},
		}},
		{Kind: Using, Path: p(12), Line: 41, Col: 3, Str: "db", Body: []Op{
			{Kind: Loop, Path: p(12) + ".body[0]", Line: 41, Col: 28, N: LoopForever, Body: []Op{}},
		}},
		{Kind: Log, Path: p(13), Line: 42, Col: 3},
		{Kind: Return, Path: p(14), Line: 43, Col: 3, N: -3},
		{Kind: Fail, Path: p(15), Line: 44, Col: 3, Str: "Boom"},
		{Kind: Panic, Path: p(16), Line: 45, Col: 3},
	}
	got := s.Tasks["main"].Ops
	if len(got) != len(wantOps) {
		t.Fatalf("main has %d ops, want %d", len(got), len(wantOps))
	}
	for i := range wantOps {
		if !reflect.DeepEqual(got[i], wantOps[i]) {
			t.Errorf("op %d:\n got %+v\nwant %+v", i, got[i], wantOps[i])
		}
	}
	if w := s.Tasks["worker"]; w.Name != "worker" || w.HasCaps || len(w.Ops) != 0 {
		t.Errorf("worker = %+v", w)
	}

	v := int64(-3)
	wantExpect := &Expect{
		Outcome: []string{"ok", "failed"}, Value: &v, Error: []string{"*"},
		Log: []string{}, HasLog: true, LogOrder: []string{"a", "b"},
		Nursery: map[string]*ExpectNursery{"n": {
			Result: []string{"cancelled"}, Error: []string{"Boom", "panic:x"},
			Results:    [][]string{{"ok"}, {"ok:1", "err:*"}, {"cancelled:*", "panic:x"}, {"*"}},
			HasResults: true,
		}},
		NurseryLabels: []string{"n"},
	}
	if !reflect.DeepEqual(s.Expect, wantExpect) {
		t.Errorf("expect:\n got %+v\nwant %+v", s.Expect, wantExpect)
	}
}

// TestArrayTables: operations written as [[task.main.ops]] tables load like
// inline ones, with their paths and the header line as position.
func TestArrayTables(t *testing.T) {
	t.Parallel()
	s, err := Load(filepath.Join("testdata", "good", "array_tables.toml"))
	if err != nil {
		t.Fatal(err)
	}
	ops := s.Tasks["main"].Ops
	if len(ops) != 2 || ops[0].Kind != Log || ops[1].Kind != Nursery || len(ops[1].Body) != 2 {
		t.Fatalf("ops = %+v", ops)
	}
	second := ops[1].Body[1]
	if second.Path != "task.main.ops[1].body[1]" || second.Line != 12 || second.Col != 5 || second.As != "second" {
		t.Errorf("second spawn = %q at %d:%d as %q", second.Path, second.Line, second.Col, second.As)
	}
}

func TestOpKindString(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range OpKinds() {
		name := k.String()
		if name == "invalid" || seen[name] || opKindOf(name) != k {
			t.Errorf("OpKind %d: name %q", k, name)
		}
		seen[name] = true
	}
	if OpKind(0).String() != "invalid" || OpKind(len(OpKinds())+1).String() != "invalid" {
		t.Errorf("out-of-range kinds must print as invalid")
	}
}

func TestBudgetOverrideOver(t *testing.T) {
	t.Parallel()
	o := BudgetOverride{Ops: 5, Syscalls: 0, Set: SetOps | SetSyscalls}
	got := o.Over(DefaultBudget)
	want := DefaultBudget
	want.Ops, want.Syscalls = 5, 0
	if got != want {
		t.Errorf("Over = %+v, want %+v", got, want)
	}
	if !o.Has(SetOps) || o.Has(SetMemory) || !o.Has(SetOps|SetSyscalls) {
		t.Errorf("Has is wrong for %b", o.Set)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		alts []string
		got  string
		want bool
	}{
		{nil, "anything", true},
		{[]string{"*"}, "err:X", true},
		{[]string{"ok"}, "ok", true},
		{[]string{"ok"}, "ok:3", true},
		{[]string{"ok:3"}, "ok", false},
		{[]string{"ok:3"}, "ok:3", true},
		{[]string{"ok:3"}, "ok:4", false},
		{[]string{"err:*"}, "err:Failed", true},
		{[]string{"err:*"}, "panic:Failed", false},
		{[]string{"cancelled:*"}, "cancelled:Timeout", true},
		{[]string{"ok:1", "cancelled:SiblingFailed"}, "cancelled:SiblingFailed", true},
		{[]string{"ok:1", "cancelled:SiblingFailed"}, "cancelled:Timeout", false},
		{[]string{"E1", "E2"}, "E2", true},
		{[]string{"failed"}, "ok", false},
	} {
		if got := Match(tc.alts, tc.got); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.alts, tc.got, got, tc.want)
		}
	}
}

// TestSpawnScopes: what counts as "inside a nursery body of the same task
// body" (the N1001 rule), beyond the bad files.
func TestSpawnScopes(t *testing.T) {
	t.Parallel()
	ok := []string{
		// In a loop, a using, a nested nursery, and a nursery inside a defer.
		`[task.main]
ops = [ { nursery = "n", body = [
  { loop = 2, body = [ { using = "r", body = [ { spawn = "w" } ] } ] },
  { nursery = "m", body = [ { spawn = "w" }, { cancel = "n" }, { cancel = "m" } ] },
  { defer = "d", body = [ { nursery = "k", body = [ { spawn = "w" }, { cancel = "k" } ] } ] },
] } ]
[task.w]
ops = []`,
		// A spawn cycle is fine: budgets bound it at run time.
		`[task.main]
ops = [ { nursery = "n", body = [ { spawn = "main" } ] } ]`,
	}
	for i, body := range ok {
		if _, err := Parse(fmt.Sprintf("ok%d.toml", i), []byte("version = 1\n"+body+"\n")); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	bad := []string{
		// A defer body runs after the enclosing nursery closed.
		`[task.main]
ops = [ { nursery = "n", body = [ { defer = "d", body = [ { cancel = "n" } ] } ] } ]`,
	}
	for i, body := range bad {
		if _, err := Parse(fmt.Sprintf("bad%d.toml", i), []byte("version = 1\n"+body+"\n")); err == nil {
			t.Errorf("case %d: loaded, want an error", i)
		}
	}
}

// TestErrorsAreDeterministic: the same file gives the same first error,
// whatever Go's map order does.
func TestErrorsAreDeterministic(t *testing.T) {
	t.Parallel()
	src := []byte(`version = 1
zz = 1
aa = 2
mm = 3
[task.main]
ops = [ { qq = 1, bb = 2, compute = 1, yield = true, log = "x" } ]
`)
	first := ""
	for i := 0; i < 50; i++ {
		_, err := Parse("d.toml", src)
		if err == nil {
			t.Fatal("loaded")
		}
		if i == 0 {
			first = err.Error()
			if !strings.Contains(first, `"zz"`) {
				t.Errorf("first error %q should name zz, the first unknown key in the file", first)
			}
		} else if err.Error() != first {
			t.Fatalf("run %d: %q, first run: %q", i, err.Error(), first)
		}
	}
}

// TestBundledScenarios loads every file in scenarios/ and checks what the
// simulator relies on: each has an [expect], and every label it expects
// exists.
func TestBundledScenarios(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, p := range paths {
		s, err := Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if s.Expect == nil {
			t.Errorf("%s has no [expect]", p)
		}
		if !sort.StringsAreSorted(s.TaskNames) {
			t.Errorf("%s: task names not sorted", p)
		}
	}
}
