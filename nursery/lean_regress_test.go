package nursery

import "testing"

// TestLeanTimeoutWithoutChildren is the case rapid's TestLeanMatchesFull
// once found (its fail file no longer replays, the draws having changed):
// a timeout on a fresh fail_fast nursery with no children cancels no one,
// so the lean nursery must not report CancelAll where the full one has an
// empty Cancel list.
func TestLeanTimeoutWithoutChildren(t *testing.T) {
	t.Parallel()
	full, lean := New(Config{Mode: FailFast}), New(Config{Mode: FailFast, Lean: true})
	var fe, le Effects
	full.Timeout(&fe)
	lean.Timeout(&le)
	if len(fe.Cancel) != 0 || le.CancelAll {
		t.Fatalf("timeout with no children: full cancels %v, lean CancelAll %v", fe.Cancel, le.CancelAll)
	}
	if full.State() != lean.State() || fe.Reason != le.Reason {
		t.Fatalf("full %s (%s), lean %s (%s)", full.State(), fe.Reason, lean.State(), le.Reason)
	}
}
