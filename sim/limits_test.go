package sim

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// lowerLimits sets the run limits for one test.
func lowerLimits(t *testing.T, tasks, nurseries, cleanups, events int) {
	saved := limits
	limits.tasks, limits.nurseries, limits.cleanups, limits.events = tasks, nurseries, cleanups, events
	t.Cleanup(func() { limits = saved })
}

// Every resource a scenario can grow without a budget noticing ends the run
// as a livelock that names the limit, in the report and in the trace: a
// spawn bomb with an unlimited spawn_count passed 2.5 GB, a loop of defers
// 2.25 GB, before these limits.
func TestLimitsEndTheRun(t *testing.T) {
	lowerLimits(t, 200, 300, 500, 20_000)
	const raised = `
[scheduler]
max_steps = 1_000_000_000
[budget]
ops = 1_000_000_000
spawn_count = 1_000_000_000_000
`
	for _, c := range []struct{ limit, body string }{
		{"tasks", `
[task.main]
ops = [ { nursery = "top", body = [ { spawn = "bomb" } ] } ]
[task.bomb]
ops = [ { nursery = "level", body = [ { spawn = "bomb" }, { spawn = "bomb" } ] } ]`},
		{"nurseries", `
[task.main]
ops = [ { loop = "forever", body = [ { nursery = "n" } ] } ]`},
		{"cleanups", `
[task.main]
ops = [ { loop = "forever", body = [ { defer = "d" } ] } ]`},
		{"events", `
[task.main]
ops = [ { loop = "forever", body = [ { log = "l" } ] } ]`},
	} {
		sc, err := scenario.Parse(c.limit+".toml", []byte("version = 1\n"+raised+c.body))
		if err != nil {
			t.Fatal(err)
		}
		real, _ := runOnce(t, sc, Options{Mode: ModeReal, Workers: 2})
		if real.Outcome != OutcomeLivelock || !strings.Contains(real.Limit, " "+c.limit+" ") || real.Passed() {
			t.Errorf("%s, real mode: outcome %s, limit %q, passed %v; want a failed livelock at the limit", c.limit, real.Outcome, real.Limit, real.Passed())
		}
		run, tr := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 2})
		if run.Outcome != OutcomeLivelock || !strings.Contains(run.Limit, " "+c.limit+" ") {
			t.Errorf("%s: outcome %s, limit %q; want a livelock at the %s limit", c.limit, run.Outcome, run.Limit, c.limit)
		}
		if !strings.Contains(tr, "livelock limit="+c.limit) {
			t.Errorf("%s: the trace does not name the limit", c.limit)
		}
		if run.Passed() {
			t.Errorf("%s: a run stopped by a limit passed", c.limit)
		}
	}
}

// The self-spawning chain of the issue scaled down: main spawns itself
// until its spawn_count runs out, and the failure rises through every
// level. It must end with that failure, not a limit.
func TestSelfSpawnChainEnds(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("self.toml", []byte(`version = 1
[budget]
spawn_count = 3000
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "main" } ] } ]
`))
	if err != nil {
		t.Fatal(err)
	}
	run, _ := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 2})
	if run.Outcome != OutcomeFailed || run.Result.String() != "err:SpawnBudgetExhausted" || len(run.Tasks) != 3001 {
		t.Fatalf("outcome %s, main %s, %d tasks; want failed, err:SpawnBudgetExhausted, 3001 tasks", run.Outcome, run.Result, len(run.Tasks))
	}
}

// The cleanup limit counts cleanups waiting to run, not every one ever
// pushed: a loop around a using block holds one at a time, however long.
func TestCleanupLimitCountsPending(t *testing.T) {
	lowerLimits(t, 200, 300, 50, 1_000_000)
	sc, err := scenario.Parse("usings.toml", []byte(`version = 1
[task.main]
ops = [ { loop = 500, body = [ { using = "r", body = [ { defer = "d" } ] } ] } ]
`))
	if err != nil {
		t.Fatal(err)
	}
	run, _ := runOnce(t, sc, Options{Seed: 1, HasSeed: true, Workers: 2})
	if run.Outcome != OutcomeOK || run.Limit != "" {
		t.Fatalf("outcome %s, limit %q; want ok: at most two cleanups wait at once", run.Outcome, run.Limit)
	}
}
