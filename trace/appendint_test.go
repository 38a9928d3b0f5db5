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
	t.Parallel()
	for _, v := range []int64{0, 1, 9, 10, 99, 100, -1, -9, -10, math.MaxInt64, math.MinInt64} {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	// Every digit count's edges, where the count's estimate is corrected.
	edges := []uint64{math.MaxUint64, math.MaxUint64 - 1}
	for p := uint64(1); p <= 1e19; p *= 10 {
		edges = append(edges, p-1, p, p+1)
		if p == 1e19 {
			break
		}
	}
	for _, u := range edges {
		if got, want := string(appendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Errorf("appendUint(%d) = %q, want %q", u, got, want)
		}
	}
	// Every value of the short path (under 10,000) and past it.
	for u := uint64(0); u < 20_000; u++ {
		if got, want := string(appendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", u, got, want)
		}
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
