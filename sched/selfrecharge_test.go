package sched

import (
	"errors"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestRechargeSelf: one explicit self-recharge, up to the starting budget;
// a second one, or one after the automatic recharge, is denied, and so is
// any without the budget capability.
func TestRechargeSelf(t *testing.T) {
	denied := &SchedError{Code: CodeCapabilityDenied}
	start := Budget{Ops: 100, Memory: 10, SpawnCount: 5, ChannelOps: 5, Syscalls: 5}
	for _, c := range []struct {
		name    string
		profile Profile
		caps    Caps
		body    func(t *Task) error
	}{
		{"once, capped at the start", ProfileService, CapsAll, func(tk *Task) error {
			if err := tk.ops().Compute(30); err != nil {
				return err
			}
			if err := tk.RechargeSelf(Budget{}); err != nil {
				return errors.New("a zero recharge failed: " + err.Error())
			}
			if err := tk.RechargeSelf(Budget{Ops: 1000}); err != nil {
				return err
			}
			if tk.Budget().Ops != 100 {
				return errors.New("ops not back to exactly the start")
			}
			if err := tk.RechargeSelf(Budget{Ops: 1}); !errors.Is(err, denied) {
				return errors.New("a second recharge was not denied")
			}
			return nil
		}},
		{"after the automatic one", ProfileService, CapsAll, func(tk *Task) error {
			if err := tk.ops().Compute(150); err != nil { // exhausts once, recharged by itself
				return err
			}
			if err := tk.RechargeSelf(Budget{Ops: 1}); !errors.Is(err, denied) {
				return errors.New("a recharge after the automatic one was not denied")
			}
			return nil
		}},
		{"without the capability", ProfileSovereign, CapSpawn, func(tk *Task) error {
			if err := tk.RechargeSelf(Budget{Ops: 1}); !errors.Is(err, denied) {
				return errors.New("a recharge without the budget capability was not denied")
			}
			return nil
		}},
	} {
		s, err := New(Config{Workers: 1, Profile: c.profile, Budget: start, RootCaps: c.caps})
		if err != nil {
			t.Fatal(err)
		}
		if res := s.Run("main", c.body); res.Kind != nursery.KindOK {
			t.Errorf("%s: %s", c.name, res)
		}
	}
}
