package gen

import "github.com/cbcsim/cbcsim/sim/scenario"

// What Safe and the shrinker know of each operation is its definition's
// scenario.OpSafety row, declared in the operation's file beside its
// decoder and interpreter, so that a new operation is one file
// (TestEveryOpHasSafetyRow), not a case in each of Safe's walks.
type (
	opSafety = scenario.OpSafety
	need     = scenario.Need
)

// safetyOf is op's row.
func safetyOf(op *scenario.Op) *opSafety { return op.Kind.Def().Safety }

// The safety is the scenario.Coster an OpSafety's Need reads.

func (v *safety) BodyNeed(ops []scenario.Op) need { return v.bodyNeed(ops) }
func (v *safety) TaskNeed(task string) need       { return v.needOf(task) }
