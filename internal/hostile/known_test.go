package hostile

// known are violations the harness found that are open in code other
// than the parts this harness guards (docs/reliability.md lists them).
// A violation that matches one is reported in the log and counted, but
// fails the test only with -hostile.strict, so that CI stays a signal for
// new breaks. Remove an entry once its fix is in: -hostile.strict shows
// whether any case still matches.
//
// None is open. Fixed: the quadratic nursery check, the out-of-range
// flags, fuzz --workers 256, real mode's unbounded waits, the memory of
// check --resample (which was the schedule shrinker parsing a trace at the
// event limit) and pct's O(workers²) step at 256 workers (sim.Useful) are
// fixed, and -hostile.strict over the 5,500 inputs of make hostile
// passes. An entry is a why and a match over the case and its
// violations, for instance
//
//	{"what is open, and where", func(c *kase, bad []string) bool {
//		return c.kind == "scenario-real" && len(bad) == 1
//	}},
var known = []struct {
	why   string
	match func(c *kase, bad []string) bool
}{}

// knownWhy is the entry a violation matches, "" if none.
func knownWhy(c *kase, bad []string) string {
	for _, k := range known {
		if k.match(c, bad) {
			return k.why
		}
	}
	return ""
}
