package scenario

import "github.com/cbcsim/cbcsim/sched"

// Fail is `fail = "error"`: ends the task with that error. Op.Str is the
// error's text.
const Fail OpKind = 20

func init() {
	defineOp(&OpDef{
		Kind: Fail, Name: "fail",
		Sample: `{ fail = "E" }`,
		Decode: decodeName,
		Exec:   func(_ Env, _ *sched.Task, _ Scope, op *Op) error { return &failure{msg: op.Str} },
		Safety: &OpSafety{},
	})
}

// failure is the error of a `fail` operation; its text is the task's error.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }
