package sim

import (
	"sort"
	"strings"
)

// Signature is the failure signature of names (the checks that failed):
// sorted, without repeats, joined by commas. Two runs fail "the same way"
// when their signatures are equal; the shrinkers of scenarios and of
// schedules keep a reduction only then.
func Signature(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	out := s[:0]
	for i, n := range s {
		if i == 0 || n != s[i-1] {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// FailedChecks is what went wrong in run, as the shrinkers and hunters
// name it: the names of the checks that did not hold, then
// "outcome:NAME" when run ended with one of the outcomes in fatal. Which
// outcomes are failures of their own is the caller's: a bundled scenario
// may expect a deadlock ([expect] outcome, already a check), so the
// explorer counts only a crash; a generated program always terminates,
// so the fuzzer counts a deadlock and a livelock too.
func FailedChecks(run *Run, fatal ...Outcome) []string {
	var out []string
	for _, c := range run.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	for _, o := range fatal {
		if run.Outcome == o {
			out = append(out, "outcome:"+string(o))
		}
	}
	return out
}
