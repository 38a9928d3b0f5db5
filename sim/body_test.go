package sim

import (
	"bytes"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/trace"
)

// bodyProgram: main opens a fail_fast nursery of yielding children, one of
// which fails once the others have yielded a few times.
func bodyProgram(t *sched.Task) error {
	return t.Nursery(sched.NurseryOptions{Label: "n"}, func(n *sched.Nursery) error {
		for i := 0; i < 6; i++ {
			fail := i == 5
			if err := n.Go("child", func(t *sched.Task) error {
				for j := 0; j < 4; j++ {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				if fail {
					return &sched.SchedError{Code: "boom"}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

func runBody(t *testing.T, seed uint64, workers int) (*BodyRun, []byte) {
	t.Helper()
	var buf bytes.Buffer
	r, err := RunBody(Body{Name: "body", Source: "a Go body\n", Seed: seed, Sched: sched.Config{Workers: workers, Budget: sched.Unlimited}, Trace: &buf}, bodyProgram)
	if err != nil {
		t.Fatal(err)
	}
	return r, buf.Bytes()
}

func TestRunBodyDeterministic(t *testing.T) {
	r1, a := runBody(t, 7, 2)
	_, b := runBody(t, 7, 2)
	if !bytes.Equal(a, b) {
		t.Fatalf("same body, seed and workers: traces differ (%d and %d bytes)", len(a), len(b))
	}
	if r1.Outcome != OutcomeFailed || r1.Result.Kind != nursery.KindErr {
		t.Fatalf("outcome %s result %s, want failed with the child's error", r1.Outcome, r1.Result)
	}
	for _, c := range r1.Checks {
		if !c.OK {
			t.Errorf("invariant %s: %s", c.Name, c.Detail)
		}
	}
	if _, err := trace.Parse(bytes.NewReader(a)); err != nil {
		t.Fatalf("the trace does not parse: %v", err)
	}
	_, c := runBody(t, 8, 4)
	if d := trace.Diff(mustParse(t, a), mustParse(t, c)); d.Equal() {
		t.Fatal("seed 8 on 4 workers wrote the same trace as seed 7 on 2")
	}
}

func TestRunBodyBadSeed(t *testing.T) {
	if _, err := RunBody(Body{Seed: 1 << 63}, bodyProgram); err == nil {
		t.Fatal("seed 2^63 accepted")
	}
}

func mustParse(t *testing.T, b []byte) *trace.Trace {
	t.Helper()
	tr, err := trace.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
