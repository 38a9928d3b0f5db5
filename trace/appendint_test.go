package trace

import (
	"math"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendUint: the encoder's integer formatting writes what strconv
// writes, for the edges and for any value.
func TestAppendUint(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 99, 100, -1, -9, -10, math.MaxInt64, math.MinInt64} {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	if got, want := string(appendUint(nil, math.MaxUint64)), strconv.FormatUint(math.MaxUint64, 10); got != want {
		t.Errorf("appendUint(MaxUint64) = %q, want %q", got, want)
	}
	rapid.Check(t, func(t *rapid.T) {
		u := rapid.Uint64().Draw(t, "u")
		if got, want := string(appendUint(nil, u)), strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", u, got, want)
		}
		v := rapid.Int64().Draw(t, "v")
		if got, want := string(appendInt(nil, v)), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
	})
}
