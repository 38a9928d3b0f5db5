package scenario

import "github.com/cbcsim/cbcsim/sched"

// CancelSelf is `cancel_self = true` (version 2): marks the task itself
// cancelled (ExplicitCancel), as a cancellation from outside would, at
// exactly this point of its body. It is not a checkpoint: the task runs
// on to its next checkpoint, which observes the mark, so that a scenario
// can check, one operation at a time, which operations are checkpoints
// (docs/scenarios.md#format-version-2). It uses no field.
const CancelSelf OpKind = 22

func init() {
	defineOp(&OpDef{
		Kind: CancelSelf, Name: "cancel_self",
		Sample: `{ cancel_self = true }`,
		Decode: decodeTrue, Format: formatTrue,
		Exec: func(_ Env, t *sched.Task, _ Scope, _ *Op) error {
			t.CancelSelf()
			return nil
		},
		Safety: &OpSafety{BeforeChan: true},
		Since:  2,
	})
}
