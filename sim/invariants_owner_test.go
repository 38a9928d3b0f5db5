package sim

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/trace"
)

// ownerTrace is the run that hid a child's error: main's fail_fast
// nursery "outer" holds a sibling and an owner; the owner's fail_fast
// nursery "inner" holds a child that fails while the owner is blocked in
// a receive; then the sibling fails, cancelling the owner from outside.
// OPEN is the rest of inner's open event, OWNER the owner's result, ROOT
// main's. Scheduling events the history ignores are mostly left out.
const ownerTrace = `0 0 w0 global task=1
1 1 w0 nursery task=1 nursery=1 label=outer mode=fail_fast to=Open
2 2 w0 spawn task=2 parent=1 nursery=1 name=sibling admit=run
3 3 w0 spawn task=3 parent=1 nursery=1 name=owner admit=run
4 4 w0 nursery nursery=1 label=outer from=Open to=Closing
5 5 w0 block task=1 on="nursery outer (n1)"
6 6 w0 nursery task=3 nursery=2 label=inner mode=fail_fast to=OpenOPEN
7 7 w0 spawn task=4 parent=3 nursery=2 name=child admit=run
8 8 w0 block task=3 on="recv never"
9 9 w0 result task=4 result=err:ChildFailed
9 9 w0 nursery nursery=2 label=inner from=Open to=Cancelling reason=SiblingFailed
10 10 w0 result task=2 result=SIBLING
10 10 w0 nursery nursery=1 label=outer from=Closing to=Cancelling reason=WHY
10 10 w0 cancel task=3 reason=WHY
10 10 w0 wake task=3
11 11 w0 run task=3
11 11 w0 observe task=3
11 11 w0 nursery nursery=2 label=inner from=Cancelling to=Cancelled
11 11 w0 nursery nursery=2 label=inner outcome=child_failed error=ChildFailed
AFTER11 11 w0 result task=3 result=OWNER
11 11 w0 nursery nursery=1 label=outer from=Cancelling to=Cancelled
11 11 w0 nursery nursery=1 label=outer outcome=OUTER
12 12 w0 wake task=1
13 13 w0 run task=1
13 13 w0 result task=1 result=ROOT
`

// ownerView digests a trace's events, given without a header, as a run
// that finished.
func ownerView(t *testing.T, events string) *view {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader("# cbcsim-trace 1\n# source: 0\n# end\n" + events))
	if err != nil {
		t.Fatalf("%v\n%s", err, events)
	}
	h := newHistory()
	for i := range tr.Events {
		h.add(&tr.Events[i])
	}
	return &view{run: &Run{}, h: h, taskIDs: ids(h.tasks), finished: true}
}

// TestOwnerInvariants holds the three invariants that tie a child's error
// to its owner and the root against hand-written variants of ownerTrace:
// the old scheduler's (the owner ends cancelled), the fixed one's, a
// catching nursery, an owner that goes on, and an explicit cancel after
// which the root ends ok.
func TestOwnerInvariants(t *testing.T) {
	t.Parallel()
	sibling := strings.NewReplacer("SIBLING", "err:SiblingFailed", "WHY", "SiblingFailed", "OUTER", "child_failed error=SiblingFailed", "ROOT", "err:SiblingFailed")
	// The outer nursery is cancelled by main instead (ExplicitCancel):
	// nothing else fails, so only the owner's error can fail the root.
	explicit := strings.NewReplacer("SIBLING", "cancelled:ExplicitCancel", "WHY", "ExplicitCancel")
	tests := []struct {
		name  string
		trace string
		bad   []string // the invariants that must break; the others hold
	}{
		{"old: owner ends cancelled", sibling.Replace(strings.NewReplacer("OPEN", "", "AFTER", "", "OWNER", "cancelled:SiblingFailed").Replace(ownerTrace)),
			[]string{InvOwnerFails, InvOwnerLeaves}},
		{"fixed: owner ends with the child's error", sibling.Replace(strings.NewReplacer("OPEN", "", "AFTER", "", "OWNER", "err:ChildFailed").Replace(ownerTrace)),
			nil},
		{"a catching nursery", sibling.Replace(strings.NewReplacer("OPEN", " catch=true", "AFTER", "", "OWNER", "cancelled:SiblingFailed").Replace(ownerTrace)),
			nil},
		{"the owner goes on, then fails", sibling.Replace(strings.NewReplacer("OPEN", "", "AFTER", "11 11 w0 log task=3 text=next\n", "OWNER", "err:Later").Replace(ownerTrace)),
			[]string{InvOwnerLeaves}},
		{"the owner leaves through a cleanup", sibling.Replace(strings.NewReplacer("OPEN", "", "AFTER", "11 11 w0 cleanup task=3 do=run seq=1 label=d\n11 11 w0 log task=3 text=cleaning\n", "OWNER", "err:ChildFailed").Replace(ownerTrace)),
			nil},
		{"old, explicit cancel: the root ends ok", explicit.Replace(strings.NewReplacer("OPEN", "", "AFTER", "", "OWNER", "cancelled:ExplicitCancel", "OUTER", "cancelled", "ROOT", "ok:0").Replace(ownerTrace)),
			[]string{InvOwnerFails, InvOwnerLeaves, InvErrorReachesRoot}},
		{"fixed, explicit cancel", explicit.Replace(strings.NewReplacer("OPEN", "", "AFTER", "", "OWNER", "err:ChildFailed", "OUTER", "child_failed error=ChildFailed", "ROOT", "err:ChildFailed").Replace(ownerTrace)),
			nil},
		{"explicit cancel, caught by outer", explicit.Replace(strings.NewReplacer("OPEN", "", "AFTER", "", "OWNER", "err:ChildFailed", "OUTER", "child_failed error=ChildFailed", "ROOT", "ok:0", "mode=fail_fast to=Open\n", "mode=fail_fast to=Open catch=true\n").Replace(ownerTrace)),
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ownerView(t, tt.trace)
			for _, inv := range []invariant{{InvOwnerFails, childErrorFailsOwner, true}, {InvOwnerLeaves, ownerLeavesOnChildError, true}, {InvErrorReachesRoot, childErrorReachesRoot, true}} {
				got := inv.check(v)
				want := false
				for _, b := range tt.bad {
					want = want || b == inv.name
				}
				if (got != "") != want {
					t.Errorf("%s: broken=%v (%q), want broken=%v", inv.name, got != "", got, want)
				}
			}
		})
	}
}

// TestNurseryInCancelledCleanup: a task cancelled from outside opens a
// nursery in a cleanup (where nothing observes the cancellation) whose
// child fails; the cleanup's error gives way to the cancelled result, as
// docs/semantics.md says, and no invariant reports it.
func TestNurseryInCancelledCleanup(t *testing.T) {
	t.Parallel()
	v := ownerView(t, `0 0 w0 global task=1
1 1 w0 cancel task=1 reason=ExplicitCancel
2 2 w0 observe task=1
3 3 w0 cleanup task=1 do=run seq=1 label=d
4 4 w0 nursery task=1 nursery=1 label=inside mode=fail_fast to=Open
5 5 w0 spawn task=2 parent=1 nursery=1 name=child admit=run
6 6 w0 result task=2 result=err:Failed
6 6 w0 nursery nursery=1 label=inside from=Open to=Cancelling reason=SiblingFailed
7 7 w0 nursery nursery=1 label=inside from=Cancelling to=Cancelled
7 7 w0 nursery nursery=1 label=inside outcome=child_failed error=Failed
7 7 w0 result task=1 result=cancelled:ExplicitCancel
`)
	for _, inv := range []invariant{{InvOwnerFails, childErrorFailsOwner, true}, {InvOwnerLeaves, ownerLeavesOnChildError, true}, {InvErrorReachesRoot, childErrorReachesRoot, true}} {
		if got := inv.check(v); got != "" {
			t.Errorf("%s broke: %s", inv.name, got)
		}
	}
}

// TestOrphanReportsCarryN3001: a task that escaped its nursery (the
// nursery ended first, or it belongs to none) is reported under the
// seeds' code N3001 OrphanedTask.
func TestOrphanReportsCarryN3001(t *testing.T) {
	t.Parallel()
	escaped := ownerView(t, `0 0 w0 global task=1
1 1 w0 nursery task=1 nursery=1 label=n mode=fail_fast to=Open
2 2 w0 spawn task=2 parent=1 nursery=1 name=child admit=run
3 3 w0 nursery nursery=1 label=n from=Open to=Closing
3 3 w0 nursery nursery=1 label=n from=Closing to=Closed
3 3 w0 nursery nursery=1 label=n outcome=success
4 4 w0 result task=2 result=ok:0
5 5 w0 result task=1 result=ok:0
`)
	if got := completionBarrier(escaped); !strings.HasPrefix(got, "N3001 OrphanedTask: ") {
		t.Errorf("completion-barrier reported %q", got)
	}
	stray := ownerView(t, `0 0 w0 global task=1
1 1 w0 spawn task=2 parent=1 nursery=9 name=child admit=run
2 2 w0 result task=2 result=ok:0
3 3 w0 result task=1 result=ok:0
`)
	if got := noOrphan(stray); !strings.HasPrefix(got, "N3001 OrphanedTask: ") {
		t.Errorf("no-orphan reported %q", got)
	}
}
