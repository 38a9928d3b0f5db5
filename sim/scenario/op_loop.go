package scenario

import (
	"math"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Loop is `loop = N` or `loop = "forever"` with a body: the body N times,
// each iteration's start a checkpoint. Op.N is the count (LoopForever for
// "forever"), Op.Body the body.
const Loop OpKind = 4

// LoopForever is Op.N for `loop = "forever"`.
const LoopForever int64 = -1

func init() {
	defineOp(&OpDef{
		Kind: Loop, Name: "loop",
		Sample:  `{ loop = 2, body = [{ yield = true }] }`,
		Options: []string{"body"}, Decode: decodeLoop, Exec: execLoop, Format: formatLoop,
		Safety: &OpSafety{Body: BodyInSame, Halves: true, Runs: loopRuns,
			Need: func(c Coster, op *Op) Need {
				if op.N == LoopForever {
					return Need{Unbounded: true}
				}
				return Need{Ops: 1}.Plus(c.BodyNeed(op.Body)).Times(op.N)
			}},
	})
}

func decodeLoop(d *decoder, op *Op, a opArgs) bool {
	switch x := a.val.(type) {
	case string:
		if x != "forever" {
			d.errorf(a.kp, "must be a count >= 0 or \"forever\", not %q", x)
			return false
		}
		op.N = LoopForever
	case int64:
		op.N, _ = d.intIn(x, a.kp, 0, math.MaxInt64)
	default:
		d.errorf(a.kp, "must be a count >= 0 or \"forever\", not %s", typeName(a.val))
	}
	return true
}

func execLoop(e Env, t *sched.Task, sc Scope, op *Op) error {
	for i := int64(0); op.N == LoopForever || i < op.N; i++ {
		if err := driver.Call(t); err != nil { // each iteration start: a checkpoint, one op
			return err
		}
		if err := e.Run(t, sc, op.Body); err != nil {
			return err
		}
	}
	return nil
}

func formatLoop(w Formatter, op *Op) {
	if op.N == LoopForever {
		w.Printf(`loop = "forever"`)
	} else {
		w.Printf("loop = %d", op.N)
	}
}

// loopRuns: a loop's body runs N times, capped at 2 (forever is 2).
func loopRuns(op *Op) int {
	if op.N >= 0 && op.N < 2 {
		return int(op.N)
	}
	return 2
}
