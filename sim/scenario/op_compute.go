package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Compute is `compute = N`: N ops of work, each a checkpoint. Op.N is the
// count.
const Compute OpKind = 1

// computeGenMax bounds a generated compute: compute = 0..50.
const computeGenMax = 50

func init() {
	defineOp(&OpDef{
		Kind: Compute, Name: "compute",
		Sample: `{ compute = 3 }`,
		Decode: decodeCount, Format: formatCount,
		Exec: func(_ Env, t *sched.Task, _ Scope, op *Op) error { return driver.Compute(t, op.N) },
		Safety: &OpSafety{Spins: true, BeforeChan: true, Halves: true,
			Need: func(_ Coster, op *Op) Need { return Need{Ops: min(NeedCap, op.N)} }},
		Gen: &OpGen{Weight: 2, Draw: genCompute},
	})
}

// genCompute: mostly a few iterations, which interleave finely; sometimes
// a long one, which keeps a task busy while others are cancelled.
func genCompute(d Drawer, budget int) (Op, int) {
	hi := 5
	if d.Chance(4, "long") {
		hi = computeGenMax
	}
	n := d.Draw(0, min(hi, budget), "compute")
	return Op{Kind: Compute, N: int64(n)}, n
}
