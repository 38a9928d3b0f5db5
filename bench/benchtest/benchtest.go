// Package benchtest runs the workloads of package bench as Go
// benchmarks. It is apart from bench so that bench, which the cbcsim
// binary links, does not import testing.
package benchtest

import (
	"testing"

	"github.com/cbcsim/cbcsim/bench"
)

// Bench runs f as the benchmark b, after warm operations outside the
// timer. The warm-up takes the first-touch page faults, the fiber pool and
// the runtime's goroutine free list out of the figure; testing's own ramp
// of b.N (1, 100, 10000, ...) warms the rest. It reports allocations.
func Bench(b *testing.B, warm int, f bench.Func) {
	b.Helper()
	if warm > 0 {
		if err := f(bench.NopTimer{}, warm); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if err := f(b, b.N); err != nil {
		b.Fatal(err)
	}
}
