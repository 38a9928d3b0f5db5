package scenario

import "github.com/cbcsim/cbcsim/sched"

// Cancel is `cancel = "label"`: cancels an enclosing nursery of this
// body. Op.Str is its label.
const Cancel OpKind = 7

func init() {
	defineOp(&OpDef{
		Kind: Cancel, Name: "cancel",
		Sample: `{ cancel = "n" }`,
		Decode: decodeCancel,
		Exec: func(_ Env, t *sched.Task, sc Scope, op *Op) error {
			sc.Find(op.Str).Cancel(t)
			return nil
		},
		Safety: &OpSafety{},
	})
}

func decodeCancel(d *decoder, op *Op, a opArgs) bool {
	if label, ok := d.nonEmptyStr(a.val, a.kp); ok {
		op.Str = label
		if !contains(a.ctx.nurseries, label) {
			d.errorf(op.Path, "cancel of %q: no enclosing nursery of this body has that label", label)
		}
	}
	return true
}
