package sim

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestEveryOpExecutes: every operation has its row in execs.
func TestEveryOpExecutes(t *testing.T) {
	for k := scenario.Compute; k < scenario.OpKindEnd; k++ {
		if execs[k] == nil {
			t.Errorf("op %s has no row in execs", k)
		}
	}
}
