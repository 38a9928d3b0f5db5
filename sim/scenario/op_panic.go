package scenario

import "github.com/cbcsim/cbcsim/sched"

// Panic is `panic = "message"`: the task panics with the message. Op.Str
// is the message.
const Panic OpKind = 21

func init() {
	defineOp(&OpDef{
		Kind: Panic, Name: "panic",
		Sample: `{ panic = "P" }`,
		Decode: decodeText,
		Exec:   func(_ Env, _ *sched.Task, _ Scope, op *Op) error { panic(op.Str) },
		Safety: &OpSafety{},
	})
}
