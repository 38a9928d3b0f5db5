package nursery

import (
	"errors"
	"github.com/cbcsim/cbcsim/internal/mutant"
	"slices"
	"strings"
	"testing"
)

// driver wraps a Nursery with calls that fail the test on a refusal.
type driver struct {
	t  *testing.T
	n  *Nursery
	fx Effects
}

func drive(t *testing.T, cfg Config) *driver {
	t.Helper()
	return &driver{t: t, n: New(cfg)}
}

func (d *driver) spawn(want Admit) Child {
	d.t.Helper()
	c, admit, err := d.n.Spawn(&d.fx)
	if err != nil || admit != want {
		d.t.Fatalf("Spawn = %d, %v, %v; want %v", c, admit, err, want)
	}
	return c
}

func (d *driver) start(cs ...Child) {
	d.t.Helper()
	for _, c := range cs {
		if err := d.n.Start(c); err != nil {
			d.t.Fatalf("Start(%d): %v", c, err)
		}
	}
}

func (d *driver) complete(c Child, r Result) *Effects {
	d.t.Helper()
	if err := d.n.Complete(c, r, &d.fx); err != nil {
		d.t.Fatalf("Complete(%d, %v): %v", c, r, err)
	}
	return &d.fx
}

func (d *driver) close() *Effects {
	d.t.Helper()
	if err := d.n.Close(&d.fx); err != nil {
		d.t.Fatalf("Close: %v", err)
	}
	return &d.fx
}

// results renders Results() in the scenario spelling.
func (d *driver) results() string {
	var b []string
	for _, r := range d.n.Results() {
		b = append(b, r.String())
	}
	return "[" + strings.Join(b, " ") + "]"
}

func (d *driver) expect(state State, outcome Outcome, results string) {
	d.t.Helper()
	if d.n.State() != state || d.n.Outcome() != outcome || d.results() != results {
		d.t.Fatalf("got %v %v %s; want %v %v %s", d.n.State(), d.n.Outcome(), d.results(), state, outcome, results)
	}
}

func eqChildren(got []Child, want ...Child) bool { return slices.Equal(got, want) }

// An error outranks a cancellation, whichever comes first
// (docs/spec.md#error-outranks-cancel).
func TestErrorOutranksCancel(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{FailFast, CancelRemaining, CollectAll} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Run("child errors, then cancel", func(t *testing.T) {
				d := drive(t, Config{Mode: mode})
				a, b := d.spawn(AdmitRun), d.spawn(AdmitRun)
				d.start(a, b)
				d.complete(a, Err("Failed"))
				d.n.Cancel(ExplicitCancel, &d.fx)
				mark, ok := d.n.Marked(b)
				if !ok {
					t.Fatal("b was not marked")
				}
				d.complete(b, CancelledBy(mark))
				d.close()
				// FailFast marked b on the error (SiblingFailed). CancelRemaining
				// left the started b running, so the explicit cancel marked it.
				// CollectAll went Cancelling only on the explicit cancel.
				want := map[Mode]string{
					FailFast:        "[err:Failed cancelled:SiblingFailed]",
					CancelRemaining: "[err:Failed cancelled:ExplicitCancel]",
					CollectAll:      "[err:Failed cancelled:ExplicitCancel]",
				}[mode]
				d.expect(Cancelled, ChildFailed, want)
				if mode != CollectAll && d.n.CancelReason() != SiblingFailed {
					t.Fatalf("CancelReason %v", d.n.CancelReason())
				}
			})
			t.Run("cancel, then child errors", func(t *testing.T) {
				d := drive(t, Config{Mode: mode})
				a, b := d.spawn(AdmitRun), d.spawn(AdmitRun)
				d.start(a, b)
				d.n.Cancel(ExplicitCancel, &d.fx)
				if !eqChildren(d.fx.Cancel, a, b) {
					t.Fatalf("Cancel marked %v", d.fx.Cancel)
				}
				fx := d.complete(a, Err("Failed")) // marked, but failed before its checkpoint
				if len(fx.Cancel) != 0 || len(fx.Transitions) != 0 {
					t.Fatalf("an error in Cancelling re-triggered: %+v", *fx)
				}
				d.complete(b, CancelledBy(ExplicitCancel))
				d.close()
				d.expect(Cancelled, ChildFailed, "[err:Failed cancelled:ExplicitCancel]")
			})
			t.Run("cancel, all children clean exit", func(t *testing.T) {
				d := drive(t, Config{Mode: mode})
				a, b := d.spawn(AdmitRun), d.spawn(AdmitRun)
				d.start(a)
				d.n.Cancel(ExplicitCancel, &d.fx)
				d.complete(a, OK()) // it returned before its checkpoint: keeps ok
				d.complete(b, CancelledBy(ExplicitCancel))
				if fx := d.close(); !fx.Terminal || !slices.Equal(fx.Transitions, []Transition{{Cancelling, Cancelled}}) {
					t.Fatalf("Close effects %+v", *fx)
				}
				d.expect(Cancelled, OutcomeCancelled, "[ok cancelled:ExplicitCancel]")
			})
			t.Run("normal completion", func(t *testing.T) {
				d := drive(t, Config{Mode: mode})
				a, b := d.spawn(AdmitRun), d.spawn(AdmitRun)
				d.start(a, b)
				d.close()
				d.complete(b, OKValue(2))
				if fx := d.complete(a, OKValue(1)); !fx.Terminal {
					t.Fatalf("last completion not terminal: %+v", *fx)
				}
				d.expect(Closed, Success, "[ok:1 ok:2]")
			})
		})
	}
}

// The three modes, one example each (docs/spec.md#nursery-modes).
func TestModeExamples(t *testing.T) {
	t.Parallel()
	t.Run("fail_fast", func(t *testing.T) {
		d := drive(t, Config{Mode: FailFast})
		slow, fail, medium := d.spawn(AdmitRun), d.spawn(AdmitRun), d.spawn(AdmitRun)
		d.start(slow, fail, medium)
		d.close()
		fx := d.complete(fail, Err("Failed"))
		if !eqChildren(fx.Cancel, slow, medium) || fx.Reason != SiblingFailed ||
			!slices.Equal(fx.Transitions, []Transition{{Closing, Cancelling}}) {
			t.Fatalf("effects of the first error: %+v", *fx)
		}
		d.complete(medium, CancelledBy(SiblingFailed))
		if fx := d.complete(slow, CancelledBy(SiblingFailed)); !fx.Terminal {
			t.Fatalf("not terminal: %+v", *fx)
		}
		d.expect(Cancelled, ChildFailed, "[cancelled:SiblingFailed err:Failed cancelled:SiblingFailed]")
		if c, r, ok := d.n.FirstError(); !ok || c != fail || r.ErrorText() != "Failed" {
			t.Fatalf("FirstError = %d %v %v", c, r, ok)
		}
	})
	t.Run("cancel_remaining", func(t *testing.T) {
		d := drive(t, Config{Mode: CancelRemaining, MaxConcurrent: 2})
		slow, fail, queued := d.spawn(AdmitRun), d.spawn(AdmitRun), d.spawn(AdmitPending)
		d.start(slow, fail)
		d.close()
		fx := d.complete(fail, Err("Failed"))
		if len(fx.Cancel) != 0 || !eqChildren(fx.Dropped, queued) || len(fx.Release) != 0 || fx.Reason != SiblingFailed {
			t.Fatalf("effects of the first error: %+v", *fx)
		}
		if d.n.Running() != 1 || d.n.PendingCount() != 0 {
			t.Fatalf("running %d pending %d", d.n.Running(), d.n.PendingCount())
		}
		d.complete(slow, OK())
		d.expect(Cancelled, ChildFailed, "[ok err:Failed cancelled:SiblingFailed]")
	})
	t.Run("collect_all", func(t *testing.T) {
		d := drive(t, Config{Mode: CollectAll})
		var cs [4]Child
		for i := range cs {
			cs[i] = d.spawn(AdmitRun)
			d.start(cs[i])
		}
		d.close()
		for i, r := range []Result{OKValue(1), Err("e1"), OKValue(2), Err("e2")} {
			fx := d.complete(cs[i], r)
			if len(fx.Cancel)+len(fx.Dropped) != 0 || fx.Reason != NoReason {
				t.Fatalf("collect_all cancelled: %+v", *fx)
			}
		}
		d.expect(Closed, ChildFailed, "[ok:1 err:e1 ok:2 err:e2]")
		if c, _, _ := d.n.FirstError(); c != cs[1] {
			t.Fatalf("FirstError child %d", c)
		}
	})
}

// A timeout in each mode: 0 started, 1 admitted but not started, 2 pending.
func TestTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode    Mode
		cancel  []Child
		results string
	}{
		{FailFast, []Child{0, 1}, "[cancelled:Timeout cancelled:Timeout cancelled:Timeout]"},
		{CancelRemaining, []Child{1}, "[ok:7 cancelled:Timeout cancelled:Timeout]"},
		{CollectAll, []Child{0, 1}, "[cancelled:Timeout cancelled:Timeout cancelled:Timeout]"},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			d := drive(t, Config{Mode: tc.mode, MaxConcurrent: 2})
			d.spawn(AdmitRun)
			d.spawn(AdmitRun)
			d.spawn(AdmitPending)
			d.start(0)
			d.close()
			d.n.Timeout(&d.fx)
			fx := d.fx
			if !slices.Equal(fx.Cancel, tc.cancel) || !eqChildren(fx.Dropped, 2) || fx.Reason != Timeout ||
				!slices.Equal(fx.Transitions, []Transition{{Closing, Cancelling}}) {
				t.Fatalf("Timeout effects %+v", fx)
			}
			d.complete(1, CancelledBy(Timeout))
			if tc.mode == CancelRemaining {
				d.complete(0, OKValue(7)) // it ran on
			} else {
				d.complete(0, CancelledBy(Timeout))
			}
			d.expect(Cancelled, OutcomeCancelled, tc.results)
			if d.n.CancelReason() != Timeout {
				t.Fatalf("CancelReason %v", d.n.CancelReason())
			}
		})
	}
}

// Every forbidden pair is refused by Allowed, and the five allowed ones
// are exactly those of docs/spec.md#nursery-states.
func TestAllowed(t *testing.T) {
	t.Parallel()
	ok := map[Transition]bool{
		{Open, Closing}: true, {Open, Cancelling}: true, {Closing, Closed}: true,
		{Closing, Cancelling}: true, {Cancelling, Cancelled}: true,
	}
	for from := Open; from <= Cancelled; from++ {
		for to := Open; to <= Cancelled; to++ {
			if Allowed(from, to) != ok[Transition{from, to}] {
				t.Errorf("Allowed(%v, %v) = %v", from, to, Allowed(from, to))
			}
		}
	}
}

// Each state, reached through the API, and every call a forbidden
// transition would need: the call is refused (or is a documented no-op) and
// the state does not move along a forbidden edge.
func TestForbiddenTransitions(t *testing.T) {
	t.Parallel()
	build := map[State]func(d *driver){
		Open: func(d *driver) { d.spawn(AdmitRun) },
		Closing: func(d *driver) {
			d.spawn(AdmitRun)
			d.close()
		},
		Cancelling: func(d *driver) {
			d.spawn(AdmitRun)
			d.n.Cancel(ExplicitCancel, &d.fx)
		},
		Closed: func(d *driver) {
			c := d.spawn(AdmitRun)
			d.close()
			d.complete(c, OK())
		},
		Cancelled: func(d *driver) {
			c := d.spawn(AdmitRun)
			d.close()
			d.n.Cancel(ExplicitCancel, &d.fx)
			d.complete(c, CancelledBy(ExplicitCancel))
		},
	}
	type call struct {
		name string
		do   func(d *driver) error
	}
	calls := []call{
		{"Spawn", func(d *driver) error { _, _, err := d.n.Spawn(&d.fx); return err }},
		{"Start", func(d *driver) error { return d.n.Start(0) }},
		{"Complete", func(d *driver) error { return d.n.Complete(0, OK(), &d.fx) }},
		{"Close", func(d *driver) error { return d.n.Close(&d.fx) }},
		{"Cancel", func(d *driver) error { d.n.Cancel(ResourceExhausted, &d.fx); return nil }},
		{"Timeout", func(d *driver) error { d.n.Timeout(&d.fx); return nil }},
	}
	// want[state][call]: the refusal, or nil and the state after.
	type res struct {
		err   error
		after State
	}
	want := map[State]map[string]res{
		Open: {
			"Spawn": {nil, Open}, "Start": {nil, Open}, "Complete": {nil, Open},
			"Close": {nil, Closing}, "Cancel": {nil, Cancelling}, "Timeout": {nil, Cancelling},
		},
		Closing: { // Closing → Open is forbidden: Spawn and a second Close refuse
			"Spawn": {ErrNotOpen, Closing}, "Start": {nil, Closing}, "Complete": {nil, Closed},
			"Close": {ErrAwaiting, Closing}, "Cancel": {nil, Cancelling}, "Timeout": {nil, Cancelling},
		},
		Cancelling: { // Cancelling → Open/Closing/Closed are forbidden
			"Spawn": {nil, Cancelling}, "Start": {nil, Cancelling}, "Complete": {nil, Cancelling},
			"Close": {nil, Cancelling}, "Cancel": {nil, Cancelling}, "Timeout": {nil, Cancelling},
		},
		Closed: {
			"Spawn": {ErrTerminal, Closed}, "Start": {ErrTerminal, Closed}, "Complete": {ErrTerminal, Closed},
			"Close": {ErrTerminal, Closed}, "Cancel": {nil, Closed}, "Timeout": {nil, Closed},
		},
		Cancelled: {
			"Spawn": {ErrTerminal, Cancelled}, "Start": {ErrTerminal, Cancelled}, "Complete": {ErrTerminal, Cancelled},
			"Close": {ErrTerminal, Cancelled}, "Cancel": {nil, Cancelled}, "Timeout": {nil, Cancelled},
		},
	}
	for state := Open; state <= Cancelled; state++ {
		for _, c := range calls {
			t.Run(state.String()+"/"+c.name, func(t *testing.T) {
				d := drive(t, Config{})
				build[state](d)
				if d.n.State() != state {
					t.Fatalf("built %v, want %v", d.n.State(), state)
				}
				reasonBefore := d.n.CancelReason()
				d.fx.Reset() // Start takes no Effects
				err := c.do(d)
				w := want[state][c.name]
				if (w.err == nil) != (err == nil) || (w.err != nil && !errors.Is(err, w.err)) {
					t.Fatalf("error %v, want %v", err, w.err)
				}
				if d.n.State() != w.after {
					t.Fatalf("state %v, want %v", d.n.State(), w.after)
				}
				for _, tr := range d.fx.Transitions {
					if !Allowed(tr.From, tr.To) {
						t.Fatalf("forbidden transition %v", tr)
					}
				}
				if state.Terminal() || err != nil {
					// Refusals and no-ops change nothing and report nothing.
					if len(d.fx.Cancel)+len(d.fx.Dropped)+len(d.fx.Release)+len(d.fx.Transitions) != 0 || d.fx.Terminal {
						t.Fatalf("effects %+v", d.fx)
					}
					if d.n.CancelReason() != reasonBefore {
						t.Fatalf("reason changed to %v", d.n.CancelReason())
					}
				}
			})
		}
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	d := drive(t, Config{MaxConcurrent: 1})
	a := d.spawn(AdmitRun)
	p := d.spawn(AdmitPending)
	d.start(a)
	for _, tc := range []struct {
		err  error
		is   error
		text string
	}{
		{d.n.Start(a), ErrStarted, "nursery: Start: child already started"},
		{d.n.Start(p), ErrNotAdmitted, "nursery: Start: child not admitted"},
		{d.n.Start(9), ErrBadChild, "nursery: Start: unknown child"},
		{d.n.Start(-1), ErrBadChild, "nursery: Start: unknown child"},
		{d.n.Complete(p, OK(), nil), ErrNotAdmitted, "nursery: Complete: child not admitted"},
		{d.n.Complete(a, Result{}, nil), ErrBadResult, "nursery: Complete: invalid result"},
		{d.n.Complete(a, CancelledBy(NoReason), nil), ErrBadResult, "nursery: Complete: invalid result"},
		{d.n.Complete(a, Result{Kind: 7}, nil), ErrBadResult, "nursery: Complete: invalid result"},
	} {
		if !errors.Is(tc.err, tc.is) || tc.err.Error() != tc.text {
			t.Errorf("%v: want %q (%v)", tc.err, tc.text, tc.is)
		}
	}
	d.complete(a, OK())
	if err := d.n.Complete(a, OK(), nil); !errors.Is(err, ErrFinished) || err.Error() != "nursery: Complete: child already finished" {
		t.Errorf("second Complete: %v", err)
	}
	d.close()
	if err := d.n.Close(nil); !errors.Is(err, ErrAwaiting) || err.Error() != "nursery: Close: owner already awaits" {
		t.Errorf("second Close: %v", err)
	}
	if _, _, err := d.n.Spawn(nil); !errors.Is(err, ErrNotOpen) || err.Error() != "nursery: Spawn: not open" {
		t.Errorf("Spawn while Closing: %v", err)
	}
	d.complete(p, OK())
	if _, _, err := d.n.Spawn(nil); !errors.Is(err, ErrNotOpen) || !errors.Is(err, ErrTerminal) {
		t.Errorf("Spawn when Closed: %v", err)
	}
}

// The first cancellation's reason is kept; pending children are admitted
// in spawn order.
func TestReasonKeptAndReleaseOrder(t *testing.T) {
	t.Parallel()
	d := drive(t, Config{Mode: CollectAll, MaxConcurrent: 1})
	a := d.spawn(AdmitRun)
	p1, p2 := d.spawn(AdmitPending), d.spawn(AdmitPending)
	d.start(a)
	if fx := d.complete(a, Err("x")); !eqChildren(fx.Release, p1) {
		t.Fatalf("release %v", fx.Release)
	}
	d.start(p1)
	if fx := d.complete(p1, OK()); !eqChildren(fx.Release, p2) {
		t.Fatalf("release %v", fx.Release)
	}
	d.n.Timeout(&d.fx)
	d.n.Cancel(ExplicitCancel, &d.fx)
	if d.n.CancelReason() != Timeout {
		t.Fatalf("reason %v", d.n.CancelReason())
	}
	if r, ok := d.n.Marked(p2); !ok || r != Timeout {
		t.Fatalf("p2 marked %v %v", r, ok)
	}
}

// In Cancelling, while the owner is still in its body, a spawn is created
// already cancelled and does not make the nursery terminal; after Close it
// is refused.
func TestSpawnWhileCancelling(t *testing.T) {
	t.Parallel()
	d := drive(t, Config{})
	d.n.Cancel(NurseryExited, &d.fx)
	c := d.spawn(AdmitCancelled)
	if d.n.Terminal() || !d.n.AllFinished() || d.n.Running() != 0 {
		t.Fatalf("state %v", d.n.State())
	}
	fx := d.close()
	if !fx.Terminal {
		t.Fatalf("Close effects %+v", *fx)
	}
	d.expect(Cancelled, OutcomeCancelled, "[cancelled:NurseryExited]")
	if r := d.n.Result(c); r != CancelledBy(NurseryExited) {
		t.Fatalf("child result %v", r)
	}

	d = drive(t, Config{})
	a := d.spawn(AdmitRun)
	d.close()
	d.n.Cancel(ExplicitCancel, &d.fx)
	if _, _, err := d.n.Spawn(&d.fx); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("Spawn after Close in Cancelling: %v", err)
	}
	d.complete(a, CancelledBy(ExplicitCancel))
	d.expect(Cancelled, OutcomeCancelled, "[cancelled:ExplicitCancel]")
}

// A cancellation from outside reaches the children a cancel_remaining
// error left running; the nursery's own reason stays the first.
func TestCancelReachesChildrenLeftRunning(t *testing.T) {
	t.Parallel()
	d := drive(t, Config{Mode: CancelRemaining})
	a, b := d.spawn(AdmitRun), d.spawn(AdmitRun)
	d.start(a, b)
	if fx := d.complete(b, Panic("boom")); len(fx.Cancel) != 0 || d.n.State() != Cancelling {
		t.Fatalf("effects %+v", *fx)
	}
	d.n.Timeout(&d.fx) // cancel_remaining: a started, so it still runs on
	if len(d.fx.Cancel) != 0 || d.fx.Reason != NoReason {
		t.Fatalf("Timeout effects %+v", d.fx)
	}
	d.n.Cancel(Timeout, &d.fx) // e.g. the owner's nursery timed out
	if !eqChildren(d.fx.Cancel, a) || d.fx.Reason != Timeout || len(d.fx.Transitions) != 0 {
		t.Fatalf("Cancel effects %+v", d.fx)
	}
	d.n.Cancel(ExplicitCancel, &d.fx)
	if len(d.fx.Cancel) != 0 || d.fx.Reason != NoReason {
		t.Fatalf("second Cancel not a no-op: %+v", d.fx)
	}
	d.complete(a, CancelledBy(Timeout))
	d.close()
	d.expect(Cancelled, ChildFailed, "[cancelled:Timeout panic:boom]")
	if d.n.CancelReason() != SiblingFailed {
		t.Fatalf("reason %v", d.n.CancelReason())
	}
	if _, r, _ := d.n.FirstError(); r.ErrorText() != "panic:boom" {
		t.Fatalf("ErrorText %q", r.ErrorText())
	}
}

func TestCancelNoReasonPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "nursery: Cancel:") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	New(Config{}).Cancel(NoReason, nil)
}

func TestZeroValue(t *testing.T) {
	t.Parallel()
	var n Nursery
	if n.State() != Open || n.Mode() != FailFast || n.Outcome() != OutcomePending || !n.AllFinished() {
		t.Fatalf("zero Nursery: %v %v %v", n.State(), n.Mode(), n.Outcome())
	}
	if _, _, ok := n.FirstError(); ok {
		t.Fatal("zero Nursery has a first error")
	}
	if err := n.Close(nil); err != nil || n.State() != Closed || n.Outcome() != Success {
		t.Fatalf("Close on an empty nursery: %v, %v", err, n.State())
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for m := FailFast; m <= CollectAll; m++ {
		if got, ok := ParseMode(m.String()); !ok || got != m {
			t.Errorf("ParseMode(%q) = %v %v", m, got, ok)
		}
	}
	for _, r := range allReasons {
		if got, ok := ParseReason(r.String()); !ok || got != r {
			t.Errorf("ParseReason(%q) = %v %v", r, got, ok)
		}
	}
	if _, ok := ParseReason("NoReason"); ok {
		t.Error("ParseReason accepted NoReason")
	}
	if _, ok := ParseMode("FailFast"); ok {
		t.Error("ParseMode accepted FailFast")
	}
	got := []string{Open.String(), Cancelled.String(), ChildFailed.String(), OutcomeCancelled.String(), State(9).String()}
	want := []string{"Open", "Cancelled", "child_failed", "cancelled", "State(9)"}
	if !slices.Equal(got, want) {
		t.Errorf("names %v", got)
	}
}

// cycle is one nursery's life on a reused Nursery and Effects.
func cycle(n *Nursery, fx *Effects, mode Mode) {
	n.Reset(Config{Mode: mode, MaxConcurrent: 2})
	var cs [4]Child
	for i := range cs {
		cs[i], _, _ = n.Spawn(fx)
	}
	n.Start(cs[0])
	n.Start(cs[1])
	n.Complete(cs[0], OKValue(1), fx)
	for _, c := range fx.Release {
		n.Start(c)
	}
	n.Close(fx)
	n.Complete(cs[1], Err("Failed"), fx)
	for i := range cs {
		if n.Result(cs[i]).Kind == Pending {
			n.Complete(cs[i], CancelledBy(SiblingFailed), fx)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	if mutant.Enabled {
		t.Skip("a mutants build keeps the completion order each nursery records (results-completion-order): it allocates by design")
	}
	n, fx := New(Config{}), &Effects{}
	for _, mode := range []Mode{FailFast, CancelRemaining, CollectAll} {
		if a := testing.AllocsPerRun(100, func() { cycle(n, fx, mode) }); a != 0 {
			t.Errorf("%v: %v allocations per cycle", mode, a)
		}
		if !n.Terminal() {
			t.Fatalf("%v: cycle did not end: %v %s", mode, n.State(), (&driver{n: n}).results())
		}
	}
}

// BenchmarkCycle documents the cost of a nursery of four children.
func BenchmarkCycle(b *testing.B) {
	n, fx := New(Config{}), &Effects{}
	b.ReportAllocs()
	for b.Loop() {
		cycle(n, fx, CancelRemaining)
	}
}

// TestChildSpawns: with ChildSpawns, a spawn while the owner awaits is
// admitted (queued past MaxConcurrent as in Open) and the nursery waits
// for it; a terminal nursery still refuses.
func TestChildSpawns(t *testing.T) {
	t.Parallel()
	for _, lean := range []bool{false, true} {
		n := New(Config{Mode: CollectAll, ChildSpawns: true, Lean: lean})
		a, admit, err := n.Spawn(nil)
		if err != nil || admit != AdmitRun {
			t.Fatalf("lean %v: first spawn: %v %v", lean, admit, err)
		}
		if err := n.Close(nil); err != nil {
			t.Fatal(err)
		}
		b, admit, err := n.Spawn(nil) // a child spawns while the owner awaits
		if err != nil || admit != AdmitRun || n.State() != Closing {
			t.Fatalf("lean %v: spawn while Closing: %v %v, state %v", lean, admit, err, n.State())
		}
		if err := n.Complete(a, OK(), nil); err != nil || n.Terminal() {
			t.Fatalf("lean %v: the nursery ended with a child spawned late still running (%v)", lean, err)
		}
		if err := n.Complete(b, OK(), nil); err != nil || n.State() != Closed || n.Outcome() != Success {
			t.Fatalf("lean %v: after the late child: %v, state %v, outcome %v", lean, err, n.State(), n.Outcome())
		}
		if _, _, err := n.Spawn(nil); !errors.Is(err, ErrTerminal) {
			t.Fatalf("lean %v: spawn into a terminal nursery: %v", lean, err)
		}
	}
	n := New(Config{MaxConcurrent: 1, ChildSpawns: true})
	a, _, _ := n.Spawn(nil)
	n.Close(nil)
	if _, admit, err := n.Spawn(nil); err != nil || admit != AdmitPending {
		t.Fatalf("a late spawn past MaxConcurrent: %v %v, want AdmitPending", admit, err)
	}
	if err := n.Complete(a, OK(), nil); err != nil || len(n.Scratch().Release) != 1 {
		t.Fatalf("the queued late child was not released: %v, %+v", err, n.Scratch())
	}
}
