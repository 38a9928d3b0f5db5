package scenario

import "github.com/cbcsim/cbcsim/sched"

// Yield is `yield = true`: the task yields, a checkpoint. It uses no field.
const Yield OpKind = 2

func init() {
	defineOp(&OpDef{
		Kind: Yield, Name: "yield",
		Sample: `{ yield = true }`,
		Decode: decodeTrue, Format: formatTrue,
		Exec:   func(_ Env, t *sched.Task, _ Scope, _ *Op) error { return t.Yield() },
		Safety: &OpSafety{Spins: true, BeforeChan: true},
		Gen: &OpGen{Weight: 1, Draw: func(_ Drawer, budget int) (Op, int) {
			return Op{Kind: Yield}, min(1, budget)
		}},
	})
}
