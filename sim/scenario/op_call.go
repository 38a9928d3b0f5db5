package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Call is `call = "task"`: runs that task's body inline, in the caller's
// task. Op.Str is the task's name.
const Call OpKind = 3

func init() {
	defineOp(&OpDef{
		Kind: Call, Name: "call",
		Sample: `{ call = "child" }`,
		Decode: decodeCall, Exec: execCall,
		Safety: &OpSafety{Ref: true,
			Need: func(c Coster, op *Op) Need { return Need{Ops: 1}.Plus(c.TaskNeed(op.Str)) }},
	})
}

func decodeCall(d *decoder, op *Op, a opArgs) bool {
	name, ok := d.nonEmptyStr(a.val, a.kp)
	if !ok {
		return true
	}
	op.Str = name
	if !d.tasks[name] {
		d.errorf(op.Path, "unknown task %q in call", name)
		return false
	}
	d.calls[a.ctx.task] = append(d.calls[a.ctx.task], callSite{target: name, path: op.Path})
	return true
}

// execCall runs the task's body outside the caller's nurseries: a called
// body is another task body (see bodyCtx).
func execCall(e Env, t *sched.Task, _ Scope, op *Op) error {
	if err := driver.Call(t); err != nil {
		return err
	}
	err := e.Run(t, nil, e.Scenario().Tasks[op.Str].Ops)
	if err == ErrReturn {
		return nil
	}
	return err
}
