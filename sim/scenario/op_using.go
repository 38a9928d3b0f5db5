package scenario

import "github.com/cbcsim/cbcsim/sched"

// Using is `using = "resource"` with a body: the body runs holding the
// resource, logged as acquired and released. Op.Str is the resource,
// Op.Body the body.
const Using OpKind = 17

func init() {
	defineOp(&OpDef{
		Kind: Using, Name: "using",
		Sample:  `{ using = "r", body = [{ yield = true }] }`,
		Options: []string{"body"}, Decode: decodeName, Exec: execUsing,
		Safety: &OpSafety{Body: BodyInSame, Need: needsBody},
	})
}

func execUsing(e Env, t *sched.Task, sc Scope, op *Op) error {
	// A using block logs two lines, acquire and release.
	if err := take(e, LimitCleanups, LimitEvents, LimitEvents); err != nil {
		return err
	}
	defer e.Release(LimitCleanups)
	var b block
	return b.leave(t.Using(op.Str, func() error { return b.run(e, t, sc, op.Body) }))
}
