package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Syscall is `syscall = N`: N syscalls, each an op and a syscall of the
// budget. Op.N is the count.
const Syscall OpKind = 14

// syscallGenMax bounds a generated syscall: syscall = 0..3.
const syscallGenMax = 3

func init() {
	defineOp(&OpDef{
		Kind: Syscall, Name: "syscall",
		Sample: `{ syscall = 2 }`,
		Decode: decodeCount, Format: formatCount,
		Exec: func(_ Env, t *sched.Task, _ Scope, op *Op) error { return driver.Syscall(t, op.N) },
		Safety: &OpSafety{Halves: true,
			Need: func(_ Coster, op *Op) Need { return Need{Ops: op.N, Syscalls: op.N} }},
		Gen: &OpGen{Weight: 1, Draw: func(d Drawer, budget int) (Op, int) {
			n := d.Draw(0, min(syscallGenMax, budget), "syscall")
			return Op{Kind: Syscall, N: int64(n)}, n
		}},
	})
}
