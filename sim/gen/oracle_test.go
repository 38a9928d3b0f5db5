package gen

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

func ev(kind trace.Kind, fields ...trace.Field) trace.Event {
	return trace.Event{Kind: kind, Fields: fields}
}

func oracle(t *testing.T, sc *scenario.Scenario, events []trace.Event, name string) string {
	t.Helper()
	for _, c := range Oracles(sc, events) {
		if c.Name == name {
			return c.Detail
		}
	}
	t.Fatalf("no %s check", name)
	return ""
}

// TestOracleCaps: what each capability rule catches, on made-up events of
// a sovereign scenario (main holds spawn; a holds nothing; b asks for more
// than main holds; c inherits).
func TestOracleCaps(t *testing.T) {
	t.Parallel()
	sc := mustParse(t, `
[scheduler]
profile = "sovereign"
[task.main]
caps = ["spawn"]
ops = [ { nursery = "n", body = [ { spawn = "a", caps = [] }, { spawn = "b", caps = ["spawn", "io"] }, { spawn = "c" } ] } ]
[task.a]
ops = []
[task.b]
ops = []
[task.c]
ops = []
`)
	spawn := func(child, parent int64, name string) trace.Event {
		return ev(trace.KindSpawn, trace.I("task", child), trace.I("parent", parent), trace.I("nursery", 1), trace.S("name", name))
	}
	cases := []struct {
		name   string
		events []trace.Event
		bad    string
	}{
		{"fine", []trace.Event{spawn(2, 1, "a"), spawn(3, 1, "c"), spawn(4, 3, "c")}, ""},
		{"no spawn capability", []trace.Event{spawn(2, 1, "a"), spawn(3, 2, "c")}, "without the spawn capability"},
		{"wider caps", []trace.Event{spawn(2, 1, "b")}, "wider caps [spawn,io]"},
		{"self-recharge without budget", []trace.Event{spawn(2, 1, "a"),
			ev(trace.KindRecharge, trace.I("task", 2), trace.S("from", "self"))}, "without the budget capability"},
		{"recharge without supervisor", []trace.Event{
			ev(trace.KindRecharge, trace.I("task", 1), trace.I("target", 2), trace.S("as", "w"), trace.I("ops", 1))}, "without the supervisor capability"},
		{"unknown task", []trace.Event{ev(trace.KindRecharge, trace.I("task", 9), trace.S("from", "self"))}, ""},
	}
	for _, c := range cases {
		got := oracle(t, sc, c.events, OracleCaps)
		if c.bad == "" && got != "" || c.bad != "" && !strings.Contains(got, c.bad) {
			t.Errorf("%s: %q, want %q", c.name, got, c.bad)
		}
	}
	// Spawns of one task that disagree on caps leave it unknown.
	mixed := mustParse(t, `
[scheduler]
profile = "sovereign"
[task.main]
caps = ["spawn"]
ops = [ { nursery = "n", body = [ { spawn = "a", caps = [] }, { spawn = "a", caps = ["spawn"] } ] } ]
[task.a]
ops = [ { nursery = "m", body = [ { spawn = "b" } ] } ]
[task.b]
ops = []
`)
	if got := oracle(t, mixed, []trace.Event{spawn(2, 1, "a"), spawn(3, 2, "b")}, OracleCaps); got != "" {
		t.Errorf("mixed caps: %q", got)
	}
	if len(Oracles(mustParse(t, "[task.main]\nops = []\n"), nil)) != 0 {
		t.Errorf("oracles apply to a plain service scenario")
	}
}

// TestOracleTimeout: a started child of a cancel_remaining nursery
// cancelled by Timeout is caught, unless its owner was cancelled first
// (the Timeout came from further up), it had not started, or the nursery
// is another mode.
func TestOracleTimeout(t *testing.T) {
	t.Parallel()
	sc := mustParse(t, `
[task.main]
ops = [ { nursery = "n", mode = "cancel_remaining", timeout = 3, body = [ { spawn = "a" } ] } ]
[task.a]
ops = [ { sleep = 10 } ]
`)
	open := func(mode string) trace.Event {
		return ev(trace.KindNursery, trace.I("task", 1), trace.I("nursery", 1), trace.S("label", "n"), trace.S("mode", mode), trace.S("to", "Open"))
	}
	spawn := ev(trace.KindSpawn, trace.I("task", 2), trace.I("parent", 1), trace.I("nursery", 1), trace.S("name", "a"))
	run := ev(trace.KindRun, trace.I("task", 2))
	mark := func(task int64) trace.Event {
		return ev(trace.KindCancel, trace.I("task", task), trace.S("reason", "Timeout"))
	}
	cases := []struct {
		name   string
		events []trace.Event
		bad    string
	}{
		{"started, cancelled by the timeout", []trace.Event{open("cancel_remaining"), spawn, run, mark(2)}, "had started"},
		{"not started", []trace.Event{open("cancel_remaining"), spawn, mark(2), run}, ""},
		{"owner cancelled first", []trace.Event{open("cancel_remaining"), spawn, run, mark(1), mark(2)}, ""},
		{"fail_fast", []trace.Event{open("fail_fast"), spawn, run, mark(2)}, ""},
	}
	for _, c := range cases {
		got := oracle(t, sc, c.events, OracleTimeout)
		if c.bad == "" && got != "" || c.bad != "" && !strings.Contains(got, c.bad) {
			t.Errorf("%s: %q, want %q", c.name, got, c.bad)
		}
	}
}

// TestOraclesHoldOnBundled: the real scheduler keeps the oracles on the
// bundled scenarios they apply to.
func TestOraclesHoldOnBundled(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"capabilities", "timeout_cancel_remaining", "budget_self_recharge"} {
		sc, err := scenario.Load("../../scenarios/" + name + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range DefaultWorkers {
			run, err := Execute(sc, 7, w, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range run.Checks {
				if c.Class != "oracle" {
					continue
				}
				n++
				if !c.OK {
					t.Errorf("%s --workers %d: %s: %s", name, w, c.Name, c.Detail)
				}
			}
			if n == 0 {
				t.Errorf("%s: no oracle applied", name)
			}
		}
	}
}
