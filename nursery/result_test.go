package nursery

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestResultGolden renders every kind of Result with String, parses each
// string back with ParseResult, and compares the whole table, including the
// texts ParseResult must refuse, with testdata/results.golden. Run with
// -update to regenerate the file, then read the diff.
func TestResultGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr string
		r    Result
	}{
		{"Result{}", Result{}},
		{"OK()", OK()},
		{"OKValue(3)", OKValue(3)},
		{"OKValue(0)", OKValue(0)},
		{"OKValue(-42)", OKValue(-42)},
		{"OKValue(math.MaxInt64)", OKValue(math.MaxInt64)},
		{"OKValue(math.MinInt64)", OKValue(math.MinInt64)},
		{`Err("Failed")`, Err("Failed")},
		{`Err("")`, Err("")},
		{`Err("a:b")`, Err("a:b")},
		{`Err("ResourceExhausted")`, Err("ResourceExhausted")},
		{`Panic("boom")`, Panic("boom")},
		{`Panic("x: y")`, Panic("x: y")},
	}
	for _, r := range allReasons {
		cases = append(cases, struct {
			expr string
			r    Result
		}{"CancelledBy(" + r.String() + ")", CancelledBy(r)})
	}
	var b strings.Builder
	b.WriteString("# Result.String: constructor, then its text; every text parses back to the same Result.\n")
	for _, tc := range cases {
		s := tc.r.String()
		back, err := ParseResult(s)
		if err != nil || back != tc.r {
			t.Errorf("ParseResult(%q) = %#v, %v; want %#v", s, back, err, tc.r)
		}
		fmt.Fprintf(&b, "%-32s %s\n", tc.expr, s)
	}
	b.WriteString("\n# ParseResult refuses:\n")
	for _, s := range []string{"", "ok:", "ok:x", "ok:1.5", "ok:99999999999999999999", "err", "panic",
		"cancelled", "cancelled:", "cancelled:NoReason", "cancelled:timeout", "pending:x", "OK", "fail:x"} {
		r, err := ParseResult(s)
		if err == nil || !errors.Is(err, ErrBadResultText) {
			t.Errorf("ParseResult(%q) = %v, %v; want an error", s, r, err)
			continue
		}
		fmt.Fprintf(&b, "%-32q %v\n", s, err)
	}
	path := filepath.Join("testdata", "results.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("%s differs (run with -update and read the diff):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestResultRoundTrip: String then ParseResult is the identity on every
// valid Result.
func TestResultRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		var r Result
		switch rapid.IntRange(0, 4).Draw(rt, "kind") {
		case 0:
			r = OK()
		case 1:
			r = OKValue(rapid.Int64().Draw(rt, "value"))
		case 2:
			r = Err(rapid.String().Draw(rt, "msg"))
		case 3:
			r = Panic(rapid.String().Draw(rt, "msg"))
		case 4:
			r = CancelledBy(rapid.SampledFrom(allReasons).Draw(rt, "reason"))
		}
		back, err := ParseResult(r.String())
		if err != nil || back != r {
			rt.Fatalf("ParseResult(%q) = %#v, %v; want %#v", r.String(), back, err, r)
		}
	})
}
