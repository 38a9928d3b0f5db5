// Package ci is the reports of `cbcsim check` and `cbcsim fuzz` in the
// forms CI systems read: a JSON report with the runs executed, the runs
// failed and every failure with the command that reruns it, a JUnit XML
// file that GitHub, GitLab and Jenkins render as test results, and the
// merge of the JSON reports of the shards of one sweep (docs/ci.md).
//
//	rep := checkReport.CI()             // or fuzzReport.CI(opts)
//	err := ci.WriteJSONFile("check.json", rep)
//	err = ci.WriteJUnitFile("check.xml", rep)
//	...
//	parts, err := ci.ReadFiles([]string{"a.json", "b.json", "c.json"})
//	all, err := ci.Merge(parts) // one report, the same fields
//
// A report names the sweep it comes from (Sweep: the subcommand, the
// scenarios with their hashes, seeds, worker counts, strategy) and the
// shards it covers; Merge refuses reports of different sweeps and
// shards that overlap, each with the file and what differs.
package ci
