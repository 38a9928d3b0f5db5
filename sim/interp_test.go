package sim

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestEveryOpExecutes: every operation's definition says what it does on
// the sched API.
func TestEveryOpExecutes(t *testing.T) {
	for _, k := range scenario.OpKinds() {
		if k.Def().Exec == nil {
			t.Errorf("op %s has no Exec", k)
		}
	}
}
