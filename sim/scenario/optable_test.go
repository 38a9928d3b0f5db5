package scenario

import "testing"

// TestEveryOpHasItsRows: a new OpKind without a name or a decoder row is
// caught here, not by a scenario that uses it.
func TestEveryOpHasItsRows(t *testing.T) {
	for k := Compute; k < OpKindEnd; k++ {
		if opSpecs[k].name == "" {
			t.Errorf("op %d has no name in opSpecs", k)
		}
		if opSpecs[k].decode == nil {
			t.Errorf("op %s has no row in opSpecs", k)
		}
		if opKindOf(k.String()) != k {
			t.Errorf("op %s does not round-trip through its name", k)
		}
	}
}
