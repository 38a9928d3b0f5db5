package scenario

import "github.com/cbcsim/cbcsim/sched"

// CheckCancel is `check_cancel = true`: a checkpoint that fails the task
// if it is cancelled. It uses no field.
const CheckCancel OpKind = 8

func init() {
	defineOp(&OpDef{
		Kind: CheckCancel, Name: "check_cancel",
		Sample: `{ check_cancel = true }`,
		Decode: decodeTrue, Format: formatTrue,
		Exec:   func(_ Env, t *sched.Task, _ Scope, _ *Op) error { return t.Checkpoint() },
		Safety: &OpSafety{Spins: true, BeforeChan: true},
		Gen: &OpGen{Weight: 1, Draw: func(_ Drawer, budget int) (Op, int) {
			return Op{Kind: CheckCancel}, min(1, budget)
		}},
	})
}
