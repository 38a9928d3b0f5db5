package driver_test

import (
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// TestDriverStepsToTheEnd drives a program one step at a time on two
// workers and reads the scenario operations' effects back through the
// driver's inspection functions: the link between sched's views and the
// driver's interfaces holds (a mismatch panics at init instead).
func TestDriverStepsToTheEnd(t *testing.T) {
	d, err := driver.New(driver.Config{Config: sched.Config{Workers: 2, Seed: 1}, Mode: driver.SeededKeep})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Sched().Config().Budget; got != sched.DefaultBudget {
		t.Fatalf("driver's zero budget = %+v, want DefaultBudget", got)
	}
	ch := driver.NewChannel(d, "c", 1)
	root := d.Start("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{Label: "n"}, func(n *sched.Nursery) error {
			if err := n.Go("send", func(t *sched.Task) error {
				if err := driver.Compute(t, 3); err != nil {
					return err
				}
				return driver.Send(t, ch, 42)
			}); err != nil {
				return err
			}
			v, ok, err := driver.Recv(t, ch)
			if err != nil || !ok {
				return err
			}
			driver.SetValue(t, v)
			driver.Log(t, "got")
			return nil
		})
	})
	for step := 0; !d.Done(); step++ {
		if step > 10_000 {
			t.Fatal("no end after 10000 steps")
		}
		d.Worker(step % 2).Step()
	}
	if got := driver.Result(root).String(); got != "ok:42" {
		t.Errorf("root = %s, want ok:42", got)
	}
	if driver.State(root) != driver.StateCompleted {
		t.Errorf("root state = %s", driver.State(root))
	}
	if n := d.Nurseries(); len(n) != 1 || driver.Snapshot(n[0]).Label != "n" {
		t.Errorf("nurseries = %v", n)
	}
	if log := d.Log(); len(log) != 1 || log[0] != "got" {
		t.Errorf("log = %q", log)
	}
}

// TestZeroConfigUnlimited: a Go program's zero Config has no quotas.
func TestZeroConfigUnlimited(t *testing.T) {
	s, err := sched.New(sched.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config().Budget; got != sched.Unlimited {
		t.Errorf("zero Config's budget = %+v, want Unlimited", got)
	}
}
