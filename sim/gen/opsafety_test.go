package gen

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestEveryOpHasSafetyRow: an operation with a body says where the body
// runs, and one without says nothing of a body; only a loop repeats its
// body; a channel role is a channel op's. A new OpKind whose row is
// missing or half-filled is caught here, not by Safe letting an unsafe
// program through.
func TestEveryOpHasSafetyRow(t *testing.T) {
	for k := scenario.Compute; k < scenario.OpKindEnd; k++ {
		r := &opSafeties[k]
		if k.HasBody() != (r.body != noBody) {
			t.Errorf("op %s: HasBody %v, but its safety row's body is %d", k, k.HasBody(), r.body)
		}
		if (r.runs != nil) != (k == scenario.Loop) {
			t.Errorf("op %s: runs set %v", k, r.runs != nil)
		}
		if r.ref && r.body != noBody {
			t.Errorf("op %s both names a task and has a body", k)
		}
	}
	for _, k := range []scenario.OpKind{scenario.Send, scenario.Recv, scenario.Close} {
		if opSafeties[k].chanOp == notChan {
			t.Errorf("op %s has no channel role", k)
		}
	}
}
