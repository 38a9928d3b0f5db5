package gen

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestEveryOpHasSafetyRow: every operation's definition has a safety row;
// an operation with a body says where the body runs, and one without says
// nothing of a body; only a loop repeats its body; a channel role is a
// channel op's. A new operation whose row is missing or half-filled is
// caught here, not by Safe letting an unsafe program through.
func TestEveryOpHasSafetyRow(t *testing.T) {
	t.Parallel()
	for _, k := range scenario.OpKinds() {
		r := k.Def().Safety
		if r == nil {
			t.Errorf("op %s has no safety row", k)
			continue
		}
		if k.HasBody() != (r.Body != scenario.NoBody) {
			t.Errorf("op %s: HasBody %v, but its safety row's body is %d", k, k.HasBody(), r.Body)
		}
		if (r.Runs != nil) != (k == scenario.Loop) {
			t.Errorf("op %s: runs set %v", k, r.Runs != nil)
		}
		if r.Ref && r.Body != scenario.NoBody {
			t.Errorf("op %s both names a task and has a body", k)
		}
	}
	for _, k := range []scenario.OpKind{scenario.Send, scenario.Recv, scenario.Close} {
		if k.Def().Safety.Chan == scenario.NotChan {
			t.Errorf("op %s has no channel role", k)
		}
	}
}
