package scenario

import (
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// TestNamesAreTheLibrarys: every name the format accepts for a victim,
// profile, mode or capability is one the library parses to the value
// with that name, so the two lists cannot drift apart.
func TestNamesAreTheLibrarys(t *testing.T) {
	t.Parallel()
	for _, v := range victims {
		if got, ok := sched.ParseVictim(v); !ok || got.String() != v {
			t.Errorf("victim %q: sched parses %v, %v", v, got, ok)
		}
	}
	for _, p := range profiles {
		if got, ok := sched.ParseProfile(p); !ok || got.String() != p {
			t.Errorf("profile %q: sched parses %v, %v", p, got, ok)
		}
	}
	for _, m := range modes {
		if got, ok := nursery.ParseMode(m); !ok || got.String() != m {
			t.Errorf("mode %q: nursery parses %v, %v", m, got, ok)
		}
	}
	for _, c := range []string{CapSpawn, CapBudget, CapSupervisor, CapChannel, CapIO} {
		if _, err := sched.ParseCaps([]string{c}); err != nil {
			t.Errorf("capability %q: %v", c, err)
		}
	}
	if DefaultBudget != Budget(sched.DefaultBudget) || maxWorkers != sched.WorkersMax {
		t.Errorf("defaults differ from the library's")
	}
}
