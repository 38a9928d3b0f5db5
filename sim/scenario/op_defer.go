package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Defer is `defer = "label"` with a body: a cleanup that runs at task
// exit, logging its label first. Op.Str is the label, Op.Body the body.
const Defer OpKind = 16

func init() {
	defineOp(&OpDef{
		Kind: Defer, Name: "defer",
		Sample:  `{ defer = "d", body = [{ log = "cleanup" }] }`,
		Options: []string{"body"}, Decode: decodeDefer, Exec: execDefer,
		Safety: &OpSafety{Body: BodyDetached, BeforeChan: true, Need: needsBody},
	})
}

// decodeDefer decodes its own body: a defer body runs at task exit, when
// every nursery of this body has already been awaited, so no enclosing
// nursery is open there and none may be spawned into or cancelled.
func decodeDefer(d *decoder, op *Op, a opArgs) bool {
	decodeName(d, op, a)
	if b, ok := a.m["body"]; ok && !d.failed() {
		saved := a.ctx.nurseries
		a.ctx.nurseries = nil
		op.Body = d.body(b, keyPath(op.Path, "body"), a.ctx, a.depth+1)
		a.ctx.nurseries = saved
	}
	return false
}

func execDefer(e Env, t *sched.Task, _ Scope, op *Op) error {
	label, body := op.Str, op.Body
	// A cleanup logs its label when it runs.
	if err := take(e, LimitCleanups, LimitEvents); err != nil {
		return err
	}
	t.Defer(label, func(t *sched.Task) error {
		e.Release(LimitCleanups)
		driver.Log(t, label)
		var b block
		return b.run(e, t, nil, body)
	})
	return nil
}
