package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchQuickTables(t *testing.T) {
	code, out, errOut := runCLI("bench", "--quick")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"cbcsim bench: go", "GOMAXPROCS", "(quick: rough figures)",
		"SpawnJoin", "FanOutTree", "YieldPingPong", "ParkedTasks", "SpawnedTasks", "SimSteps/trace", "FuzzSeeds",
		"GOROUTINES", "ERRGROUP", "CONC", "ITERPULL", "Scaling: fan-out tree", "SPEEDUP", "Targets", "spec.md#design-targets"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "bench: SpawnJoin") {
		t.Errorf("stderr has no progress lines:\n%s", errOut)
	}
}

// TestBenchQuickJSON: the report's JSON, with the sizes smaller than
// --quick's (the figures are not read, only the report's shape).
func TestBenchQuickJSON(t *testing.T) {
	code, out, errOut := runCLI("bench", "--quick", "--json", "--duration", "200us", "--parked", "100")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		Machine struct {
			GOMAXPROCS int  `json:"gomaxprocs"`
			Quick      bool `json:"quick"`
		} `json:"machine"`
		Rows []struct {
			Name   string  `json:"name"`
			Cbcsim float64 `json:"cbcsim"`
			Peers  []struct {
				Name  string  `json:"name"`
				Ratio float64 `json:"ratio"`
			} `json:"peers"`
		} `json:"rows"`
		Scaling []struct {
			Workers int `json:"workers"`
		} `json:"scaling"`
		Targets []struct {
			Name string `json:"name"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if !rep.Machine.Quick || rep.Machine.GOMAXPROCS < 1 || len(rep.Rows) < 9 || len(rep.Scaling) < 1 || len(rep.Targets) == 0 {
		t.Fatalf("incomplete report: %+v", rep)
	}
	if rep.Rows[0].Name != "SpawnJoin" || len(rep.Rows[0].Peers) != 3 {
		t.Fatalf("first row %+v, want SpawnJoin with three peers", rep.Rows[0])
	}
}

func TestBenchBadInputExits2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--count", "0"}, "--count must be at least 1"},
		{[]string{"bench", "--duration", "-1s"}, "--duration must be positive"},
		{[]string{"bench", "--workers", "0"}, "--workers must be at least 1"},
		{[]string{"bench", "--parked", "0"}, "--parked must be between 1 and 1000000"},
		{[]string{"bench", "--parked", "1000001"}, "--parked must be between 1 and 1000000"},
		{[]string{"bench", "--parked", "9223372036854775807"}, "--parked must be between 1 and 1000000"},
		{[]string{"bench", "--quick", "extra"}, "unknown command"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s%s", c.args, code, out, errOut)
			continue
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errOut, c.want)
		}
	}
}
