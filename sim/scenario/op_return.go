package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Return is `return = N`: ends the task body with the value N. Op.N is
// the value.
const Return OpKind = 19

func init() {
	defineOp(&OpDef{
		Kind: Return, Name: "return",
		Sample: `{ return = 3 }`,
		Format: formatCount,
		Decode: func(d *decoder, op *Op, a opArgs) bool {
			op.N, _ = d.integer(a.val, a.kp)
			return true
		},
		Exec: func(_ Env, t *sched.Task, _ Scope, op *Op) error {
			driver.SetValue(t, op.N)
			return ErrReturn
		},
		Safety: &OpSafety{Returns: true, Halves: true},
	})
}
