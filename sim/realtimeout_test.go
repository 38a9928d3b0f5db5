package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// A real-mode run that would wait for ever on a timer (a sleep of 2^63
// ticks; a nursery whose children wait on a channel nobody sends to,
// behind a long timeout) ends at --real-timeout as a livelock at that
// limit, the limit reported, instead of hanging. A short wait and a
// timeout that fires before the bound are left alone. The cases run at
// once: each limited one sleeps its bound.
func TestRealTimeout(t *testing.T) {
	t.Parallel()
	const bound = 300 * time.Millisecond
	for _, c := range []struct {
		name, body string
		limited    bool
	}{
		{"sleep", `[task.main]
ops = [ { sleep = 9223372036854775807 } ]`, true},
		{"sleep in a loop", `[task.main]
ops = [ { loop = "forever", body = [ { sleep = 100_000 } ] } ]`, true},
		{"timeout behind a wait", `[channels]
c = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", timeout = 9223372036854775807, body = [ { spawn = "r" }, { spawn = "r" } ] } ]
[task.r]
ops = [ { recv = "c" } ]`, true},
		{"short sleep", `[task.main]
ops = [ { sleep = 1000 }, { return = 1 } ]`, false},
		{"timeout that fires", `[channels]
c = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", timeout = 1000, body = [ { spawn = "r" } ] } ]
[task.r]
ops = [ { recv = "c" } ]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Parse(c.name+".toml", []byte("version = 1\n"+c.body+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			run, _ := runOnce(t, sc, Options{Mode: ModeReal, Workers: 2, RealTimeout: bound})
			took := time.Since(start)
			limited := strings.Contains(run.Limit, "wall-time limit of 300ms")
			if limited != c.limited || (c.limited && run.Outcome != OutcomeLivelock) {
				t.Errorf("%s: outcome %s, limit %q, want limited %v", c.name, run.Outcome, run.Limit, c.limited)
			}
			if took > bound+5*time.Second {
				t.Errorf("%s: took %v against a bound of %v", c.name, took, bound)
			}
			if c.limited {
				if ch := limitCheck(run); ch.OK {
					t.Errorf("%s: the within-limits check passed", c.name)
				}
			}
		})
	}
}

// The repro command of a real-mode run names a raised bound.
func TestRealTimeoutCommand(t *testing.T) {
	t.Parallel()
	c := Config{Mode: ModeReal, Workers: 2, RealTimeout: time.Minute}
	if got := c.Command("s.toml"); !strings.HasSuffix(got, "--real --real-timeout 1m0s") {
		t.Errorf("command %q", got)
	}
	c.RealTimeout = DefaultRealTimeout
	if got := c.Command("s.toml"); strings.Contains(got, "real-timeout") {
		t.Errorf("command %q names the default", got)
	}
}
