package scenario

import "github.com/cbcsim/cbcsim/sched"

// Sleep is `sleep = N`: the task waits N ticks. Op.N is the count.
const Sleep OpKind = 12

// sleepGenMax bounds a generated sleep: sleep = 0..30 ticks.
const sleepGenMax = 30

func init() {
	defineOp(&OpDef{
		Kind: Sleep, Name: "sleep",
		Sample: `{ sleep = 5 }`,
		Decode: decodeCount, Format: formatCount,
		Exec:   func(e Env, t *sched.Task, _ Scope, op *Op) error { return e.Sleep(t, op.N) },
		Safety: &OpSafety{BeforeChan: true, Halves: true},
		Gen: &OpGen{Weight: 1, Draw: func(d Drawer, budget int) (Op, int) {
			n := d.Draw(0, sleepGenMax, "sleep")
			return Op{Kind: Sleep, N: int64(n)}, min(1, budget)
		}},
	})
}
