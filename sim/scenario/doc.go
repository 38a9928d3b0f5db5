// Package scenario loads a scenario file (docs/scenarios.md, format version 1)
// into a validated, typed AST, and defines the operations a body is made
// of. The loader knows nothing about the scheduler: the simulator walks
// the AST and the expectations, and the loader only promises that whatever
// Load returns is well formed.
//
// Each operation is one file, op_NAME.go, holding its whole definition
// (OpDef): its kind, TOML key and options, how it decodes, what it does on
// the real sched.Task API, how it is written back, what the fuzzer's
// safety rules and shrinker know of it and, for a plain operation, how the
// fuzzer draws it. The packages that use a part implement the small
// interface it is written against: package sim's interpreter is the Env
// an Exec runs in, package gen's formatter the Formatter, its safety rules
// the Coster and its builder the Drawer. So adding an operation is one
// file (docs/contributing.md, "Adding an operation").
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
// The operations' definitions live here rather than in a package of their
// own because decoding is the biggest part of most of them and needs the
// decoder's state (the tasks, channels and labels declared, the nurseries
// enclosing the body); a separate package would have had to export all of
// it through an interface of some twenty methods, and would have imported
// the scheduler just the same for Exec. Rejected too: one Go type per
// operation with methods (pebble's metamorphic ops), because every
// package's code walks []Op and reads its fields, and a table of functions
// says the same in one place per operation.
//
// Load never panics, whatever the input (FuzzLoad checks it), and every error
// it returns is a *LoadError naming the first problem found. Problems are
// looked for in a fixed order (top-level keys, [scheduler], [budget],
// [channels], task bodies in file order, call cycles, [expect]), so the same
// file always gives the same message.
package scenario
