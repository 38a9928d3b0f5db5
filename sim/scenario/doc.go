// Package scenario loads a scenario file (docs/scenarios.md, format version 1)
// into a validated, typed AST. It knows nothing about the scheduler: the
// simulator walks the AST and the expectations, this package only promises
// that whatever Load returns is well formed.
//
// Usage:
//
//	s, err := scenario.Load("scenarios/fail_fast.toml")
//	if err != nil {
//		// err is a *LoadError: "FILE:LINE:COL: PATH: MSG".
//		return err
//	}
//	for _, name := range s.TaskNames { // sorted: deterministic
//		for _, op := range s.Tasks[name].Ops {
//			_ = op.Kind // op.Path names the op in runtime messages
//		}
//	}
//
// Design notes. The file is decoded twice: go-toml/v2 decodes it into a
// generic tree (so every TOML rule, duplicate keys included, is the library's
// and not ours), and go-toml/v2's unstable parser walks it again only to learn
// where each key and array element sits, so that every error carries a line
// and column. Rejected: decoding into tagged structs with DisallowUnknownFields,
// because an operation is "an inline table with exactly one operation key"
// whose allowed options depend on that key, which struct tags cannot say, and
// because the library's path in such errors is not the path we print.
//
// Load never panics, whatever the input (FuzzLoad checks it), and every error
// it returns is a *LoadError naming the first problem found. Problems are
// looked for in a fixed order (top-level keys, [scheduler], [budget],
// [channels], task bodies in file order, call cycles, [expect]), so the same
// file always gives the same message.
package scenario
