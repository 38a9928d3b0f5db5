package sim

import (
	"fmt"

	"github.com/cbcsim/cbcsim/nursery"
)

// The invariants checked after every run, by name. Each is checked on the
// recorded events (seeded mode), so a scheduler bug that the final state
// would hide still shows up.
const (
	InvNoOrphan         = "no-orphan"
	InvBarrier          = "completion-barrier"
	InvLIFOCleanup      = "lifo-cleanup"
	InvInnerFirst       = "inner-before-outer"
	InvFirstError       = "first-error-wins"
	InvErrorOverCancel  = "error-outranks-cancel"
	InvTerminal         = "terminal-states-final"
	InvSpawnOrder       = "results-in-spawn-order"
	InvQueuedCancel     = "cancelled-in-queue-never-runs"
	InvTransitive       = "transitive-cancellation"
	InvNoCrash          = "scheduler-no-panic"
	InvOwnerFails       = "child-error-fails-owner"
	InvOwnerLeaves      = "owner-leaves-on-child-error"
	InvErrorReachesRoot = "child-error-reaches-root"
	InvWithinLimits     = "within-simulator-limits" // listed only on a run a limit stopped (limits.go)
	InvExclusive        = "one-worker-at-a-time"
	InvScopeReach       = "scope-reach"
	InvExhaustion       = "exhaustion-not-lost"
)

// invariant is one requirement of docs/spec.md checked over a run's
// history. It returns what broke it, or "" when it held. Each runs in
// O(n log n) or better in the run's events: a run that the step bound
// lets finish must not be hung by its own checking.
type invariant struct {
	name  string
	check func(v *view) string
	// propagating: the invariant reads the program as well as the
	// scheduler. It holds for a program that hands every nursery error
	// on unless the nursery catches, as the scenario interpreter does; a
	// Go body (simtest) or a C task may take its nursery's error as a
	// value and go on, so a body's run skips it (docs/spec.md#invariants).
	propagating bool
}

// invariants is the list, in report order: the spec's structured
// concurrency guarantees (docs/spec.md#invariants).
var invariants = []invariant{
	{InvNoCrash, schedulerNoPanic, false},
	{InvExclusive, oneWorkerAtATime, false},
	{InvNoOrphan, noOrphan, false},
	{InvBarrier, completionBarrier, false},
	{InvLIFOCleanup, lifoCleanup, false},
	{InvInnerFirst, innerBeforeOuter, false},
	{InvFirstError, firstErrorWins, false},
	{InvErrorOverCancel, errorOutranksCancel, false},
	{InvTerminal, terminalStatesFinal, false},
	{InvSpawnOrder, resultsInSpawnOrder, false},
	{InvQueuedCancel, cancelledInQueueNeverRuns, false},
	{InvTransitive, transitiveCancellation, false},
	{InvScopeReach, scopeReach, false},
	{InvOwnerFails, childErrorFailsOwner, true},
	{InvOwnerLeaves, ownerLeavesOnChildError, true},
	{InvErrorReachesRoot, childErrorReachesRoot, true},
	{InvExhaustion, exhaustionNotLost, true},
}

// view is what every invariant reads: the run, its digested history and
// the facts several of them need.
type view struct {
	run      *Run
	h        *history
	finished bool    // the run ended by itself: no deadlock, livelock or crash
	taskIDs  []int64 // ascending, so the first break reported is stable
}

// checkInvariants checks every invariant on the run's recorded events; a
// body's run (program false) skips those that read the program.
func checkInvariants(run *Run, h *history, program bool) []Check {
	v := &view{run: run, h: h, taskIDs: ids(h.tasks), finished: run.Outcome.Ended() && run.Crash == ""}
	checks := make([]Check, 0, len(invariants))
	for _, inv := range invariants {
		if inv.propagating && !program {
			continue
		}
		bad := inv.check(v)
		checks = append(checks, Check{Class: ClassInvariant, Name: inv.name, OK: bad == "", Detail: bad})
	}
	return checks
}

// codeOrphanedTask heads the reports of a task that escaped its nursery:
// the seeds' error code for what must be impossible (docs/semantics.md's
// error table).
const codeOrphanedTask = "N3001 OrphanedTask"

// schedulerNoPanic: the scheduler itself never panicked.
func schedulerNoPanic(v *view) string { return v.run.Crash }

// oneWorkerAtATime: a task that a worker is in the middle of (it ran
// there and has not yielded, blocked or ended since) runs on no other
// worker: a task is on one stack, and only its worker resumes it.
func oneWorkerAtATime(v *view) string { return v.h.twice }

// noOrphan: every task but the root was spawned into a nursery that
// exists, and (when the run finished) every task has a result.
func noOrphan(v *view) string {
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if id != 1 && (t.spawnAt < 0 || v.h.nurseries[t.nursery] == nil) {
			return fmt.Sprintf("%s: task t%d belongs to no nursery", codeOrphanedTask, id)
		}
		if v.finished && t.resultAt < 0 {
			return fmt.Sprintf("task t%d never finished though the run did", id)
		}
	}
	return ""
}

// completionBarrier: a nursery is terminal only after all its children
// finished and before its owner did, and it is terminal when the run
// finished.
func completionBarrier(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		if v.finished && n.termAt < 0 {
			return fmt.Sprintf("nursery %s (n%d) never ended though the run did", n.label, n.id)
		}
		if n.termAt < 0 {
			continue
		}
		for _, c := range n.children {
			if ct := v.h.tasks[c]; ct.resultAt < 0 || ct.resultAt > n.termAt {
				return fmt.Sprintf("%s: nursery %s (n%d) ended before its child t%d finished", codeOrphanedTask, n.label, n.id, c)
			}
		}
		if o := v.h.tasks[n.owner]; o.resultAt >= 0 && o.resultAt < n.termAt {
			return fmt.Sprintf("%s: owner t%d of nursery %s (n%d) finished before the nursery ended", codeOrphanedTask, o.id, n.label, n.id)
		}
	}
	return ""
}

// lifoCleanup: each task runs its cleanups in the reverse order it pushed
// them, and all of them when the run finished.
func lifoCleanup(v *view) string {
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if t.lifoBad != "" {
			return t.lifoBad
		}
		if v.finished && len(t.pushed) > 0 {
			return fmt.Sprintf("task t%d finished with cleanups %v never run", id, t.pushed)
		}
	}
	return ""
}

// innerBeforeOuter: a nursery opened by a child of N, or by N's owner
// while N was open, ends before N.
func innerBeforeOuter(v *view) string {
	ends := newOwnedEnds(v.h)
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		if n.termAt < 0 {
			continue
		}
		for _, c := range n.children {
			for _, inner := range v.h.tasks[c].owned {
				if in := v.h.nurseries[inner]; endsAfter(in, n) {
					return innerAfterOuter(in, n)
				}
			}
		}
		if in := ends.openedWithinEndingAfter(n); in != nil {
			return innerAfterOuter(in, n)
		}
	}
	return ""
}

func endsAfter(in, n *nurseryHist) bool { return in.termAt < 0 || in.termAt > n.termAt }

func innerAfterOuter(in, n *nurseryHist) string {
	return fmt.Sprintf("inner nursery %s (n%d) ended after outer %s (n%d)", in.label, in.id, n.label, n.id)
}

// firstErrorWins: a nursery whose children failed reports the error of
// the child that failed first.
func firstErrorWins(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		if first, ok := v.firstChildError(n); ok && n.errText != first {
			return fmt.Sprintf("nursery %s (n%d) reports error %q but the first child error was %q", n.label, n.id, n.errText, first)
		}
	}
	return ""
}

// errorOutranksCancel: a nursery with a failed child ends child_failed,
// even when it was also cancelled.
func errorOutranksCancel(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		if first, ok := v.firstChildError(n); ok && n.outcome != nursery.ChildFailed.String() {
			return fmt.Sprintf("nursery %s (n%d) ended %s though a child failed (%s)", n.label, n.id, n.outcome, first)
		}
	}
	return ""
}

// firstChildError is the error of n's child that failed first, if n ended
// and one did.
func (v *view) firstChildError(n *nurseryHist) (string, bool) {
	if n.termAt < 0 {
		return "", false
	}
	first, firstAt := "", -1
	for _, c := range n.children {
		ct := v.h.tasks[c]
		r, err := nursery.ParseResult(ct.result)
		if err == nil && r.IsError() && (firstAt < 0 || ct.resultAt < firstAt) {
			first, firstAt = r.ErrorText(), ct.resultAt
		}
	}
	return first, firstAt >= 0
}

// terminalStatesFinal: no nursery leaves a terminal state or moves other
// than the state machine allows, no task finishes twice or runs after its
// result.
func terminalStatesFinal(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		if n.afterTerm != "" {
			return n.afterTerm
		}
		if n.badTrans != "" {
			return n.badTrans
		}
	}
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if t.results > 1 {
			return fmt.Sprintf("task t%d finished %d times", id, t.results)
		}
		if t.resultAt >= 0 && t.lastEvent > t.resultAt {
			return fmt.Sprintf("task t%d ran after it finished", id)
		}
	}
	return ""
}

// resultsInSpawnOrder: a nursery's per-child results are its children's
// own results in the order they were spawned.
func resultsInSpawnOrder(v *view) string {
	for _, n := range v.run.Nurseries {
		nh := v.h.nurseries[int64(n.ID)]
		if nh == nil || nh.termAt < 0 {
			continue
		}
		if len(n.Results) != len(nh.children) {
			return fmt.Sprintf("nursery %s (n%d) has %d results for %d children", n.Label, n.ID, len(n.Results), len(nh.children))
		}
		for i, c := range nh.children {
			if got := v.h.tasks[c].result; n.Results[i] != got {
				return fmt.Sprintf("nursery %s (n%d) result %d is %s but child t%d (spawned %d-th) ended %s", n.Label, n.ID, i, n.Results[i], c, i, got)
			}
		}
	}
	return ""
}

// cancelledInQueueNeverRuns: a task cancelled before it started never
// runs.
func cancelledInQueueNeverRuns(v *view) string {
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if t.markAt >= 0 && t.firstRun >= 0 && t.markAt < t.firstRun {
			return fmt.Sprintf("task t%d was marked cancelled (%s) before it started and ran anyway", id, t.markWhy)
		}
	}
	return ""
}

// transitiveCancellation: when a task is marked, every nursery it has open
// goes to Cancelling, keeping the first reason.
func transitiveCancellation(v *view) string {
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if t.markAt < 0 {
			continue
		}
		for _, nid := range t.owned {
			n := v.h.nurseries[nid]
			if n.openAt >= t.markAt || (n.termAt >= 0 && n.termAt <= t.markAt) {
				continue // not open when its owner was marked
			}
			if n.cancelAt < 0 {
				return fmt.Sprintf("task t%d was cancelled (%s) but its open nursery %s (n%d) was never cancelled", id, t.markWhy, n.label, n.id)
			}
			if n.cancelAt > t.markAt && n.reason != t.markWhy {
				return fmt.Sprintf("nursery %s (n%d) was cancelled with %s, not its owner's reason %s", n.label, n.id, n.reason, t.markWhy)
			}
		}
	}
	return ""
}

// scopeReach: a nursery's cancellation reaches every nursery its owner
// opened inside its body and still has open then
// (docs/spec.md#scoped-cancellation): each of them is cancelled too, at
// once (in the same step: no run event between the two), not later for
// some other cause (a child's failure, the run's teardown). The
// cancellation that reaches is the first one, unless it is a
// cancel_remaining nursery's first child error (which spares what has
// started); then it is the cancel of the body, if any.
func scopeReach(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		at, atRuns := n.cancelAt, n.cancelRuns
		if at >= 0 && n.reason == nursery.SiblingFailed.String() && n.mode == nursery.CancelRemaining.String() {
			at, atRuns = n.bodyAt, n.bodyRuns
		}
		if at < 0 {
			continue
		}
		o := v.h.tasks[n.owner]
		for _, mid := range o.owned[n.ownedAt+1:] {
			m := v.h.nurseries[mid]
			if m.openAt > at {
				break
			}
			if m.termAt >= 0 && m.termAt < at {
				continue // ended before the cancellation
			}
			if m.cancelAt < 0 || (m.cancelAt > at && m.cancelRuns != atRuns) {
				return fmt.Sprintf("nursery %s (n%d) was cancelled (%s) but nursery %s (n%d), opened inside its body and open then, was not cancelled with it",
					n.label, n.id, n.reason, m.label, m.id)
			}
		}
	}
	return ""
}

// exhaustionNotLost: a task whose budget ran out and that nothing
// recharged (and that did not wait for a supervisor) ends with an error:
// ResourceExhausted, or an error or panic that outranks it. This is how a
// cleanup that is never cut short shows (docs/spec.md#cleanup-complete):
// a cleanup's overrun runs on uncharged and leaves err:ResourceExhausted,
// where a cleanup cut short by the exhaustion lost it (the task ended
// with its cancellation or ok). It reads the program (a Go body may take
// the error as a value), so a body's run skips it.
func exhaustionNotLost(v *view) string {
	for _, id := range v.taskIDs {
		t := v.h.tasks[id]
		if t.unpaid < 0 || t.resultAt < 0 {
			continue
		}
		if r, err := nursery.ParseResult(t.result); err == nil && !r.IsError() {
			return fmt.Sprintf("task t%d ran out of budget (event %d), nothing recharged it, and it ended %s: the exhaustion was lost", id, t.unpaid, t.result)
		}
	}
	return ""
}

// childErrorFailsOwner: the owner of a nursery that ended child_failed
// and does not catch ends with an error (that one, or one of its own that
// outranks it), never ok or cancelled.
func childErrorFailsOwner(v *view) string {
	for _, id := range v.h.order {
		n := v.h.nurseries[id]
		o := v.h.tasks[n.owner]
		if n.termAt < 0 || o.resultAt < 0 || !n.passesError(o) {
			continue
		}
		if r, err := nursery.ParseResult(o.result); err == nil && !r.IsError() {
			return fmt.Sprintf("owner t%d ended %s though its nursery %s (n%d) ended child_failed with %q and does not catch",
				o.id, o.result, n.label, n.id, n.errText)
		}
	}
	return ""
}

// ownerLeavesOnChildError: right after such a nursery ends, its owner
// leaves (Task.Nursery returned the error) rather than going on with its
// body; history.follow watches for it.
func ownerLeavesOnChildError(v *view) string {
	for _, id := range v.taskIDs {
		if t := v.h.tasks[id]; t.wentOn != "" {
			return t.wentOn
		}
	}
	return ""
}

// childErrorReachesRoot: when the run finished and a nursery ended
// child_failed with an unbroken chain of non-catching nurseries between it
// and the root, the root ends with an error.
func childErrorReachesRoot(v *view) string {
	root := v.h.tasks[1]
	if !v.finished || root == nil || root.resultAt < 0 {
		return ""
	}
	if r, err := nursery.ParseResult(root.result); err != nil || r.IsError() {
		return ""
	}
	reaches := make(map[int64]bool, len(v.h.nurseries)) // memo: n's error is passed on up to the root
	for _, id := range v.h.order {
		if n := v.h.nurseries[id]; n.termAt >= 0 && n.outcome == nursery.ChildFailed.String() && v.passedToRoot(n, reaches) {
			return fmt.Sprintf("the root ended %s though nursery %s (n%d) ended child_failed with %q and no nursery between it and the root catches",
				root.result, n.label, n.id, n.errText)
		}
	}
	return ""
}

// passedToRoot reports whether n's child error passes from owner to owner
// up to the root: each nursery on the way passes errors on (passesOn),
// whatever its outcome (the outcome is what a lost error changes), and
// each owner but the root is a child of the next.
// O(depth) the first time for a chain, O(1) after, so O(n) over a run.
func (v *view) passedToRoot(n *nurseryHist, reaches map[int64]bool) bool {
	var chain []*nurseryHist
	ok := false
	for x := n; ; {
		if r, seen := reaches[x.id]; seen {
			ok = r
			break
		}
		chain = append(chain, x)
		o := v.h.tasks[x.owner]
		if !x.passesOn(o) {
			break
		}
		if o.id == 1 {
			ok = true
			break
		}
		up := v.h.nurseries[o.nursery]
		if up == nil {
			break
		}
		x = up
	}
	for _, x := range chain {
		reaches[x.id] = ok
	}
	return ok
}

// finalInvariants are what real mode can check, on the final tables
// alone: its events are not recorded.
var finalInvariants = []struct {
	name  string
	check func(run *Run) string
}{
	{InvNoOrphan, everyTaskFinished},
	{InvBarrier, everyNurseryEnded},
	{InvErrorOverCancel, failedChildMeansChildFailed},
}

// checkFinal checks finalInvariants on a real-mode run.
func checkFinal(run *Run) []Check {
	checks := make([]Check, 0, len(finalInvariants))
	for _, inv := range finalInvariants {
		bad := inv.check(run)
		checks = append(checks, Check{Class: ClassInvariant, Name: inv.name, OK: bad == "", Detail: bad})
	}
	return checks
}

func everyTaskFinished(run *Run) string {
	for _, t := range run.Tasks {
		if t.Result == "-" {
			return fmt.Sprintf("task t%d (%s) never finished", t.ID, t.Name)
		}
	}
	return ""
}

func everyNurseryEnded(run *Run) string {
	for _, n := range run.Nurseries {
		if n.State != nursery.Closed.String() && n.State != nursery.Cancelled.String() {
			return fmt.Sprintf("nursery %s (n%d) ended in %s", n.Label, n.ID, n.State)
		}
	}
	return ""
}

func failedChildMeansChildFailed(run *Run) string {
	for _, n := range run.Nurseries {
		for _, r := range n.Results {
			if pr, err := nursery.ParseResult(r); err == nil && pr.IsError() && n.Result != nursery.ChildFailed.String() {
				return fmt.Sprintf("nursery %s (n%d) ended %s though a child failed", n.Label, n.ID, n.Result)
			}
		}
	}
	return ""
}
