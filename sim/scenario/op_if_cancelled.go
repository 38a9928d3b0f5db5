package scenario

import "github.com/cbcsim/cbcsim/sched"

// IfCancelled is `if_cancelled = true` or `if_cancelled = false` with a
// body (version 2): runs the body when the task is (true) or is not
// (false) cancelled, as is_cancelled() reads it: marked, or inside a
// nursery whose scope is cancelled. It is not a checkpoint and never ends
// the task by itself (check_cancel does). Op.N is 1 for true, 0 for
// false; Op.Body the body.
const IfCancelled OpKind = 23

func init() {
	defineOp(&OpDef{
		Kind: IfCancelled, Name: "if_cancelled",
		Sample:  `{ if_cancelled = false, body = [{ log = "not cancelled" }] }`,
		Options: []string{"body"},
		Decode: func(d *decoder, op *Op, a opArgs) bool {
			if b, ok := d.boolean(a.val, a.kp); ok && b {
				op.N = 1
			}
			return true
		},
		Exec: execIfCancelled,
		Format: func(w Formatter, op *Op) {
			w.Printf("if_cancelled = %t", op.N == 1)
		},
		Safety: &OpSafety{Body: BodyInSame, BeforeChan: true, Need: needsBody},
		Since:  2,
	})
}

func execIfCancelled(e Env, t *sched.Task, sc Scope, op *Op) error {
	if t.IsCancelled() != (op.N == 1) {
		return nil
	}
	return e.Run(t, sc, op.Body)
}
