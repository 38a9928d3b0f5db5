package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// checkExpect checks the scenario's [expect] table against a run. Each key
// becomes one check named after its TOML path.
func checkExpect(x *scenario.Expect, run *Run) []Check {
	if x == nil {
		return nil
	}
	var checks []Check
	add := func(name string, ok bool, detail string) {
		checks = append(checks, Check{Class: ClassExpect, Name: name, OK: ok, Detail: detail})
	}
	if x.Outcome != nil {
		ok := scenario.Match(x.Outcome, string(run.Outcome))
		detail := fmt.Sprintf("want %s, got %s (main: %s)", strings.Join(x.Outcome, "|"), run.Outcome, run.Result)
		if !ok && run.Waits.Stuck() {
			detail += "; waits: " + run.Waits.Summary() // who waits on what (package waits)
		}
		add("expect.outcome", ok, detail)
	}
	if x.Value != nil {
		ok := run.Result.Kind == nursery.KindOK && run.Result.HasValue && run.Result.Value == *x.Value
		add("expect.value", ok, fmt.Sprintf("want ok:%d, got %s", *x.Value, run.Result))
	}
	if x.Error != nil {
		got := ""
		if run.Result.IsError() {
			got = run.Result.ErrorText()
		}
		ok := run.Result.IsError() && scenario.Match(x.Error, got)
		add("expect.error", ok, fmt.Sprintf("want %s, got %s", strings.Join(x.Error, "|"), run.Result))
	}
	if x.HasLog {
		ok := len(x.Log) == len(run.Log)
		for i := 0; ok && i < len(x.Log); i++ {
			ok = x.Log[i] == run.Log[i]
		}
		add("expect.log", ok, fmt.Sprintf("want %s, got %s", quoteAll(x.Log), quoteAll(run.Log)))
	}
	if x.LogOrder != nil {
		ok, detail := inOrder(x.LogOrder, run.Log)
		add("expect.log_order", ok, detail)
	}
	for _, label := range x.NurseryLabels {
		checks = append(checks, checkExpectNursery(label, x.Nursery[label], run)...)
	}
	return checks
}

// checkExpectNursery checks [expect.nursery.LABEL] against every nursery
// instance with that label. A run that never opened one (its owner was
// cancelled before it got there) has nothing to check; the loader already
// refused labels no nursery op has.
func checkExpectNursery(label string, xn *scenario.ExpectNursery, run *Run) []Check {
	var checks []Check
	add := func(name string, ok bool, detail string) {
		checks = append(checks, Check{Class: ClassExpect, Name: name, OK: ok, Detail: detail})
	}
	name := "expect.nursery." + label
	for _, n := range run.Nurseries {
		if n.Label != label {
			continue
		}
		if xn.Result != nil {
			add(name+".result", scenario.Match(xn.Result, n.Result),
				fmt.Sprintf("n%d: want %s, got %s", n.ID, strings.Join(xn.Result, "|"), n.Result))
		}
		if xn.Error != nil {
			add(name+".error", n.FirstError != "" && scenario.Match(xn.Error, n.FirstError),
				fmt.Sprintf("n%d: want %s, got %q", n.ID, strings.Join(xn.Error, "|"), n.FirstError))
		}
		if xn.HasResults {
			ok := len(xn.Results) == len(n.Results)
			for i := 0; ok && i < len(n.Results); i++ {
				ok = scenario.Match(xn.Results[i], n.Results[i])
			}
			want := make([]string, len(xn.Results))
			for i, alts := range xn.Results {
				want[i] = strings.Join(alts, "|")
			}
			add(name+".results", ok, fmt.Sprintf("n%d: want %s, got %s", n.ID, quoteAll(want), quoteAll(n.Results)))
		}
	}
	return checks
}

func inOrder(want, log []string) (bool, string) {
	i := 0
	for _, l := range log {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	if i == len(want) {
		return true, ""
	}
	return false, fmt.Sprintf("%q not found in order after %s; log was %s", want[i], quoteAll(want[:i]), quoteAll(log))
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
