package scenario

import (
	"os"
	"strings"
	"testing"
)

// TestEveryOpHasItsRows: every operation's definition has each part the
// packages that use it need, and the kinds run 1..n without a gap. A new
// op file that leaves a part out is caught here, not by a scenario (or a
// fuzzer run) that uses it. The other packages' tests run each part on
// the op's Sample (TestEveryOpExecutes in sim, TestFormatEveryOpSample and
// TestEveryOpHasSafetyRow in gen).
func TestEveryOpHasItsRows(t *testing.T) {
	t.Parallel()
	kinds := OpKinds()
	if len(kinds) == 0 || len(kinds) != len(opDefs)-1 {
		t.Fatalf("kinds %v: want 1..%d without a gap", kinds, len(opDefs)-1)
	}
	for i, k := range kinds {
		d := k.Def()
		switch {
		case int(k) != i+1:
			t.Errorf("op %s has kind %d, want %d (kinds are numbered without gaps)", k, k, i+1)
		case d.Name == "":
			t.Errorf("op %d has no name", k)
		case d.Decode == nil:
			t.Errorf("op %s has no Decode", k)
		case d.Exec == nil:
			t.Errorf("op %s has no Exec", k)
		case d.Safety == nil:
			t.Errorf("op %s has no Safety row", k)
		case d.Gen != nil && (d.Gen.Draw == nil || d.Gen.Weight < 1):
			t.Errorf("op %s has a Gen row without a Draw or a weight", k)
		case d.Gen != nil && (k.HasBody() || d.Safety.Ref):
			t.Errorf("op %s has a Gen row but is not plain (a body, or names a task): the builder draws it", k)
		}
		if opKindOf(k.String()) != k {
			t.Errorf("op %s does not round-trip through its name", k)
		}
	}
}

// TestEveryOpSampleLoads: each operation's Sample loads in SampleSource,
// and has an op of its kind.
func TestEveryOpSampleLoads(t *testing.T) {
	t.Parallel()
	for _, k := range OpKinds() {
		sc, err := Parse("sample.toml", SampleSource(k))
		if err != nil {
			t.Errorf("op %s: its Sample does not load: %v", k, err)
			continue
		}
		has := false
		for _, op := range sc.Tasks["main"].Ops[0].Body[1:] {
			has = has || op.Kind == k
		}
		if !has {
			t.Errorf("op %s: its Sample has no %s op", k, k)
		}
	}
}

// TestEveryOpHasADocRow: docs/scenarios.md's operation table has a row
// naming each operation (`KEY = ...`), so a new operation is documented
// where users look for it.
func TestEveryOpHasADocRow(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, part := range strings.Split(cell, "`") {
			if key, _, ok := strings.Cut(part, " = "); ok {
				rows[key] = true
			}
		}
	}
	for _, k := range OpKinds() {
		if !rows[k.String()] {
			t.Errorf("op %s has no row in docs/scenarios.md's operation table", k)
		}
	}
}
