package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Log is `log = "text"`: appends the text to the run's log; not a
// checkpoint. Op.Str is the text.
const Log OpKind = 18

func init() {
	defineOp(&OpDef{
		Kind: Log, Name: "log",
		Sample: `{ log = "hello" }`,
		Decode: decodeText,
		Exec: func(e Env, t *sched.Task, _ Scope, op *Op) error {
			if err := e.Take(LimitEvents); err != nil {
				return err
			}
			driver.Log(t, op.Str)
			return nil
		},
		Safety: &OpSafety{Spins: true, BeforeChan: true},
	})
}
