package nursery

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestLeanMatchesFull drives a Lean nursery and a full one with the same
// random calls (modes and limits where Lean applies) and checks that they
// agree on everything a lean nursery still knows: state, outcome, first
// error, counts and effects, with CancelAll standing for a non-empty Cancel.
func TestLeanMatchesFull(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]Mode{FailFast, CollectAll}).Draw(rt, "mode")
		spawns := rapid.Bool().Draw(rt, "child_spawns")
		full, lean := New(Config{Mode: mode, ChildSpawns: spawns}), New(Config{Mode: mode, Lean: true, ChildSpawns: spawns})
		if full.Lean() || !lean.Lean() {
			rt.Fatalf("Lean() = %v, %v", full.Lean(), lean.Lean())
		}
		var unfinished []Child // admitted and unfinished, as the caller knows them
		var fe, le Effects
		compare := func(op string) {
			switch {
			case full.State() != lean.State(), full.Outcome() != lean.Outcome(),
				full.CancelReason() != lean.CancelReason(), full.Awaiting() != lean.Awaiting(),
				full.Len() != lean.Len(), full.Running() != lean.Running(),
				full.AllFinished() != lean.AllFinished():
				rt.Fatalf("%s: full %s/%s/%d running, lean %s/%s/%d running", op,
					full.State(), full.Outcome(), full.Running(), lean.State(), lean.Outcome(), lean.Running())
			}
			fc, fr, fok := full.FirstError()
			lc, lr, lok := lean.FirstError()
			if fc != lc || fr != lr || fok != lok {
				rt.Fatalf("%s: first error full %d %s %v, lean %d %s %v", op, fc, fr, fok, lc, lr, lok)
			}
			if !slices.Equal(fe.Transitions, le.Transitions) || fe.Terminal != le.Terminal || fe.Reason != le.Reason ||
				(len(fe.Cancel) > 0) != le.CancelAll || len(le.Cancel)+len(le.Dropped)+len(le.Release) != 0 {
				rt.Fatalf("%s: effects full %+v, lean %+v", op, fe, le)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"Spawn": func(rt *rapid.T) {
				fc, fa, ferr := full.Spawn(&fe)
				lc, la, lerr := leanSpawn(rt, lean, &le, ferr == nil && fa == AdmitRun)
				if fc != lc || fa != la || (ferr == nil) != (lerr == nil) {
					rt.Fatalf("Spawn: full %d %s %v, lean %d %s %v", fc, fa, ferr, lc, la, lerr)
				}
				if ferr == nil && fa == AdmitRun {
					unfinished = append(unfinished, fc)
				}
				compare("Spawn")
			},
			"Complete": func(rt *rapid.T) {
				if len(unfinished) == 0 {
					rt.Skip("no unfinished child")
				}
				i := rapid.IntRange(0, len(unfinished)-1).Draw(rt, "child")
				c := unfinished[i]
				r := rapid.SampledFrom([]Result{OK(), OKValue(3), Err("Failed"), Panic("boom"), CancelledBy(SiblingFailed)}).Draw(rt, "result")
				ferr, lerr := full.Complete(c, r, &fe), lean.Complete(c, r, &le)
				if ferr != nil || lerr != nil {
					rt.Fatalf("Complete(%d): full %v, lean %v", c, ferr, lerr)
				}
				unfinished = slices.Delete(unfinished, i, i+1)
				compare("Complete")
			},
			"FinishMany": func(rt *rapid.T) {
				// k children end without an error: k calls of Complete on
				// the full nursery, one FinishMany on the lean one.
				k := rapid.IntRange(0, len(unfinished)).Draw(rt, "k")
				fe.Reset()
				for _, c := range unfinished[:k] {
					r := rapid.SampledFrom([]Result{OK(), OKValue(1), CancelledBy(Timeout)}).Draw(rt, "result")
					if err := full.Complete(c, r, &fe); err != nil {
						rt.Fatalf("Complete(%d): %v", c, err)
					}
				}
				if k == 0 {
					full.settle(&fe) // what FinishMany(0) does: settle only
				}
				if err := lean.FinishMany(k, &le); err != nil {
					rt.Fatalf("FinishMany(%d): %v", k, err)
				}
				unfinished = unfinished[k:]
				compare("FinishMany")
			},
			"Cancel": func(rt *rapid.T) {
				r := rapid.SampledFrom([]Reason{ExplicitCancel, NurseryExited, ResourceExhausted}).Draw(rt, "reason")
				full.Cancel(r, &fe)
				lean.Cancel(r, &le)
				compare("Cancel")
			},
			"Timeout": func(rt *rapid.T) {
				full.Timeout(&fe)
				lean.Timeout(&le)
				compare("Timeout")
			},
			"Close": func(rt *rapid.T) {
				ferr, lerr := full.Close(&fe), lean.Close(&le)
				if (ferr == nil) != (lerr == nil) {
					rt.Fatalf("Close: full %v, lean %v", ferr, lerr)
				}
				compare("Close")
			},
		})
	})
}

// TestLeanNotAllowed: cancel_remaining and max_concurrent tell children
// apart, so Lean is ignored for them.
func TestLeanNotAllowed(t *testing.T) {
	t.Parallel()
	if err := New(Config{}).FinishMany(0, nil); !errors.Is(err, ErrNotLean) {
		t.Fatalf("FinishMany on a full nursery: %v", err)
	}
	for _, cfg := range []Config{{Mode: CancelRemaining, Lean: true}, {MaxConcurrent: 2, Lean: true}} {
		if n := New(cfg); n.Lean() || n.Config().Lean {
			t.Fatalf("%+v: nursery is lean", cfg)
		}
	}
}

// leanSpawn is lean.Spawn, or, when drawn, AdmitLean first: it must admit
// exactly when Spawn would admit to run (run), leave out untouched (it
// produces no effects; out is then reset as Spawn would), and change
// nothing when it declines, Spawn then doing the spawn.
func leanSpawn(rt *rapid.T, lean *Nursery, out *Effects, run bool) (Child, Admit, error) {
	if !rapid.Bool().Draw(rt, "admit_lean") {
		return lean.Spawn(out)
	}
	before, n, running := *out, lean.Len(), lean.Running()
	c, ok := lean.AdmitLean()
	if ok != run {
		rt.Fatalf("AdmitLean admitted %v, Spawn would admit to run %v", ok, run)
	}
	if !ok {
		if c != -1 || lean.Len() != n || lean.Running() != running {
			rt.Fatalf("AdmitLean declined but returned %d, Len %d to %d, Running %d to %d", c, n, lean.Len(), running, lean.Running())
		}
		return lean.Spawn(out)
	}
	if !slices.Equal(before.Transitions, out.Transitions) || before.Terminal != out.Terminal || before.CancelAll != out.CancelAll {
		rt.Fatalf("AdmitLean changed the effects: %+v to %+v", before, *out)
	}
	out.Reset()
	return c, AdmitRun, nil
}

// TestAdmitAhead: AdmitAhead(k) admits exactly what k calls of AdmitLean
// would, in every state a nursery can be in, and declines (changing
// nothing) exactly when AdmitLean would.
func TestAdmitAhead(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := Config{Mode: rapid.SampledFrom([]Mode{FailFast, CollectAll}).Draw(rt, "mode"), Lean: rapid.Bool().Draw(rt, "lean"), ChildSpawns: rapid.Bool().Draw(rt, "child_spawns")}
		ops := rapid.SliceOfN(rapid.IntRange(0, 3), 0, 6).Draw(rt, "ops")
		k := rapid.IntRange(0, 5).Draw(rt, "k")
		// The same steps on three nurseries: one asked whether it would
		// admit, one admitting k times, one admitting k ahead.
		var ns [3]*Nursery
		for i := range ns {
			n := New(cfg)
			for _, op := range ops {
				switch op {
				case 0:
					n.Spawn(nil)
				case 1:
					n.Cancel(ExplicitCancel, nil)
				case 2:
					n.Close(nil)
				case 3:
					if n.Running() > 0 {
						n.FinishMany(1, nil)
					}
				}
			}
			ns[i] = n
		}
		_, would := ns[0].AdmitLean()
		for range k {
			ns[1].AdmitLean()
		}
		len0, running0 := ns[2].Len(), ns[2].Running()
		if got := ns[2].AdmitAhead(k); got != would {
			rt.Fatalf("AdmitAhead(%d) = %v, AdmitLean would admit: %v", k, got, would)
		}
		if !would && (ns[2].Len() != len0 || ns[2].Running() != running0) {
			rt.Fatalf("AdmitAhead declined but Len %d to %d, Running %d to %d", len0, ns[2].Len(), running0, ns[2].Running())
		}
		if ns[1].Len() != ns[2].Len() || ns[1].Running() != ns[2].Running() || ns[1].State() != ns[2].State() {
			rt.Fatalf("k=%d: Len %d and %d, Running %d and %d", k, ns[1].Len(), ns[2].Len(), ns[1].Running(), ns[2].Running())
		}
	})
}
