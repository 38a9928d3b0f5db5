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
