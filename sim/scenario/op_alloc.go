package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Alloc is `alloc = N`: charges N units of memory, one op. Op.N is the
// count.
const Alloc OpKind = 13

// allocGenMax bounds a big generated alloc.
const allocGenMax = 4096

func init() {
	defineOp(&OpDef{
		Kind: Alloc, Name: "alloc",
		Sample: `{ alloc = 64 }`,
		Decode: decodeCount, Format: formatCount,
		Exec: func(_ Env, t *sched.Task, _ Scope, op *Op) error { return driver.Alloc(t, op.N) },
		Safety: &OpSafety{Halves: true,
			Need: func(_ Coster, op *Op) Need { return Need{Ops: 1, Memory: op.N} }},
		Gen: &OpGen{Weight: 1, Draw: genAlloc},
	})
}

// genAlloc: mostly small, sometimes up to allocGenMax, which small memory
// budgets do not cover.
func genAlloc(d Drawer, budget int) (Op, int) {
	hi := 256
	if d.Chance(4, "big_alloc") {
		hi = allocGenMax
	}
	n := d.Draw(0, hi, "alloc")
	return Op{Kind: Alloc, N: int64(n)}, min(1, budget)
}
