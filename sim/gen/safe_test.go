package gen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

func mustParse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("x.toml", []byte("version = 1\n"+src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return sc
}

// TestSafeRules: each rule of Safe, on a program that breaks it and on
// the nearest one that keeps it.
func TestSafeRules(t *testing.T) {
	t.Parallel()
	pair := func(mode, prod, cons string) string {
		return `
[channels]
c = { capacity = 1 }
[task.main]
ops = [ { nursery = "n", mode = "` + mode + `", body = [ { spawn = "p" }, { spawn = "q" } ] } ]
[task.p]
ops = [ ` + prod + ` ]
[task.q]
ops = [ ` + cons + ` ]
`
	}
	const (
		send2close = `{ send = "c" }, { send = "c" }, { close = "c" }`
		recv2      = `{ recv = "c" }, { recv = "c" }`
	)
	cases := []struct {
		name, src string
		bad       string // "" when safe
	}{
		{"pair", pair("fail_fast", send2close, recv2+`, { recv = "c" }`), ""},
		{"pair collect_all", pair("collect_all", send2close, recv2), ""},
		{"too few recvs", pair("fail_fast", `{ send = "c" }, `+send2close, `{ recv = "c" }`), "only 1 recvs"},
		{"too few recvs, consumer fails", pair("fail_fast", `{ send = "c" }, `+send2close, `{ recv = "c" }, { panic = "P" }`), ""},
		{"one recv short, capacity takes it", pair("fail_fast", send2close, `{ recv = "c" }`), ""},
		{"recv past the sends, no close", pair("fail_fast", `{ send = "c" }`, recv2), "no close"},
		{"recv past the sends, producer fails", pair("fail_fast", `{ send = "c" }, { fail = "E" }`, recv2), ""},
		{"producer fails, collect_all", pair("collect_all", `{ send = "c" }, { fail = "E" }`, recv2), "no close"},
		{"producer may fail, collect_all", pair("collect_all", `{ send = "c" }, { alloc = 1 }, { close = "c" }`, recv2), "alloc before"},
		{"cancel_remaining", pair("cancel_remaining", send2close, recv2), "cancel_remaining"},
		{"return before the last channel op", pair("fail_fast",
			`{ send = "c" }, { using = "r", body = [ { return = 1 } ] }, { close = "c" }`, recv2), "may return"},
		{"send after close", pair("fail_fast", `{ close = "c" }, { send = "c" }`, recv2), "after its close"},
		{"collect_all partner short of ops", `
[channels]
c = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", mode = "collect_all", body = [
  { spawn = "p", budget = { ops = 1 } }, { spawn = "q" } ] } ]
[task.p]
ops = [ { compute = 3 }, { send = "c" }, { close = "c" } ]
[task.q]
ops = [ { recv = "c" } ]
`, "does not cover"},
		{"partners apart", `
[channels]
c = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "p" }, { log = "x" }, { spawn = "q" } ] } ]
[task.p]
ops = [ { send = "c" }, { close = "c" } ]
[task.q]
ops = [ { recv = "c" } ]
`, "side by side"},
		{"partner in a loop", `
[channels]
c = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", body = [ { loop = 2, body = [ { spawn = "p" }, { spawn = "q" } ] } ] } ]
[task.p]
ops = [ { send = "c" }, { close = "c" } ]
[task.q]
ops = [ { recv = "c" } ]
`, "more than once"},
		{"lone producer within capacity", `
[channels]
c = { capacity = 2 }
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "p" } ] } ]
[task.p]
ops = [ { send = "c" }, { send = "c" }, { close = "c" } ]
`, ""},
		{"lone producer past capacity", `
[channels]
c = { capacity = 1 }
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "p" } ] } ]
[task.p]
ops = [ { send = "c" }, { send = "c" } ]
`, "no consumer"},
		{"lone consumer", `
[channels]
c = { capacity = 1 }
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "q" } ] } ]
[task.q]
ops = [ { recv = "c" } ]
`, "no task sends"},
		{"main on a channel", `
[channels]
c = { capacity = 1 }
[task.main]
ops = [ { send = "c" } ]
`, "main uses"},
		{"spinner under a timeout", `
[task.main]
ops = [ { nursery = "n", timeout = 5, body = [ { spawn = "s" } ] } ]
[task.s]
ops = [ { loop = "forever", body = [ { yield = true } ] } ]
`, ""},
		{"spinner under a cancel_remaining timeout", `
[task.main]
ops = [ { nursery = "n", mode = "cancel_remaining", timeout = 5, body = [ { spawn = "s" } ] } ]
[task.s]
ops = [ { loop = "forever", body = [ { yield = true } ] } ]
`, "no timeout or small budget"},
		{"spinner on small budgets", `
[task.main]
ops = [ { nursery = "n", budget = { ops = 10 }, body = [ { spawn = "s", budget = { ops = 3 } } ] } ]
[task.s]
ops = [ { loop = "forever", body = [] } ]
`, ""},
		{"spinner on its default budget", `
[task.main]
ops = [ { nursery = "n", budget = { ops = 10 }, body = [ { spawn = "s" } ] } ]
[task.s]
ops = [ { loop = "forever", body = [] } ]
`, "no timeout or small budget"},
		{"forever loop in main", `
[task.main]
ops = [ { loop = "forever", body = [ { yield = true } ] } ]
`, "main loops for ever"},
		{"forever loop nested", `
[task.main]
ops = [ { nursery = "n", timeout = 5, body = [ { spawn = "s" } ] } ]
[task.s]
ops = [ { using = "r", body = [ { loop = "forever", body = [] } ] } ]
`, "inside another body"},
		{"forever loop of sleeps", `
[task.main]
ops = [ { nursery = "n", timeout = 5, body = [ { spawn = "s" } ] } ]
[task.s]
ops = [ { loop = "forever", body = [ { sleep = 1 } ] } ]
`, "runs sleep"},
		{"spawn cycle", `
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "a" } ] } ]
[task.a]
ops = [ { nursery = "m", body = [ { spawn = "a" } ] } ]
`, "cycle"},
		{"supervised and recharged", `
[scheduler]
profile = "cluster"
[task.main]
ops = [ { nursery = "n", budget = { ops = 0 }, body = [
  { spawn = "w", as = "a", budget = { ops = 1 } }, { sleep = 3 }, { recharge = "a", ops = 10 } ] } ]
[task.w]
ops = [ { compute = 10 } ]
`, ""},
		{"supervised, recharge too small", `
[scheduler]
profile = "cluster"
[task.main]
ops = [ { nursery = "n", budget = { ops = 0 }, body = [
  { spawn = "w", as = "a", budget = { ops = 1 } }, { recharge = "a", ops = 5 } ] } ]
[task.w]
ops = [ { compute = 10 } ]
`, "does not cover"},
		{"supervised, a return before the recharge", `
[scheduler]
profile = "cluster"
[task.main]
ops = [ { nursery = "n", body = [
  { spawn = "w", as = "a", budget = { ops = 1 } }, { using = "r", body = [ { return = 1 } ] }, { recharge = "a", ops = 50 } ] } ]
[task.w]
ops = [ { compute = 10 } ]
`, "no recharge surely follows"},
		{"supervised, budget enough", `
[scheduler]
profile = "cluster"
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "w", as = "a", budget = { ops = 11, memory = 5 } } ] } ]
[task.w]
ops = [ { compute = 10 }, { alloc = 5 } ]
`, ""},
		{"supervised, alloc not covered", `
[scheduler]
profile = "cluster"
[budget]
memory = 4
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "w", as = "a", budget = { ops = 11 } } ] } ]
[task.w]
ops = [ { compute = 10 }, { alloc = 5 } ]
`, "may run out"},
		{"as outside cluster", `
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "w", as = "a", budget = { ops = 1 } } ] } ]
[task.w]
ops = [ { compute = 10 } ]
`, ""},
	}
	for _, c := range cases {
		err := Safe(mustParse(t, c.src))
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.bad != "" && err == nil:
			t.Errorf("%s: safe, want an error with %q", c.name, c.bad)
		case c.bad != "" && !strings.Contains(err.Error(), c.bad):
			t.Errorf("%s: %v, want %q", c.name, err, c.bad)
		}
	}
}

// TestSafeBundled holds Safe against the bundled scenarios: the ones that
// expect a deadlock or a livelock are refused, and the ones it accepts
// end under every worker count and several seeds.
func TestSafeBundled(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("../../scenarios/*.toml")
	if len(paths) == 0 {
		t.Fatal("no bundled scenarios")
	}
	accepted := 0
	for _, p := range paths {
		sc, err := scenario.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		safe := Safe(sc) == nil
		if sc.Expect != nil {
			for _, o := range sc.Expect.Outcome {
				if (o == scenario.OutcomeDeadlock || o == scenario.OutcomeLivelock) && safe {
					t.Errorf("%s expects %s and Safe accepts it", filepath.Base(p), o)
				}
			}
		}
		if !safe {
			continue
		}
		accepted++
		for seed := uint64(1); seed <= 3; seed++ {
			for _, w := range DefaultWorkers {
				run, err := Execute(sc, seed, w, nil)
				if err != nil {
					t.Fatal(err)
				}
				if f := FailedChecks(run); len(f) > 0 {
					t.Errorf("%s --seed %d --workers %d: Safe accepts it and it broke %v", filepath.Base(p), seed, w, f)
				}
			}
		}
	}
	if accepted < 10 {
		t.Fatalf("Safe accepts only %d bundled scenarios", accepted)
	}
}
