package link

import (
	"math"
	"math/bits"
	"testing"

	"pgregory.net/rapid"
)

// refNext is xoshiro256** as its authors write it, on an array.
func refNext(s *[4]uint64) uint64 {
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// refIntn is Lemire's multiply-shift with rejection, in one piece.
func refIntn(s *[4]uint64, n int) int {
	bound := uint64(n)
	hi, lo := bits.Mul64(refNext(s), bound)
	if lo < bound {
		threshold := -bound % bound
		for lo < threshold {
			hi, lo = bits.Mul64(refNext(s), bound)
		}
	}
	return int(hi)
}

// TestXoshiroKnownAnswers: from the state {1, 2, 3, 4} the first outputs
// are those of the reference implementation (11520, 0, 1509978240).
func TestXoshiroKnownAnswers(t *testing.T) {
	x := &Xoshiro{s: [4]uint64{1, 2, 3, 4}}
	for i, want := range []uint64{11520, 0, 1509978240} {
		if got := x.Uint64(); got != want {
			t.Fatalf("output %d: %d, want %d", i, got, want)
		}
	}
}

// TestXoshiroMatchesReference: from any state, Uint64 and Intn (for any
// positive n, the rejection zone's large ones included) draw what the
// reference does, value for value, and leave the same state. A trace's
// steal victims and the seeded driver's choices are these draws.
func TestXoshiroMatchesReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var s [4]uint64
		for i := range s {
			s[i] = rapid.Uint64().Draw(rt, "s")
		}
		x := &Xoshiro{s: s}
		for range rapid.IntRange(1, 50).Draw(rt, "draws") {
			if rapid.Bool().Draw(rt, "intn") {
				n := rapid.OneOf(rapid.IntRange(1, 300), rapid.IntRange(math.MaxInt/2+1, math.MaxInt)).Draw(rt, "n")
				if got, want := x.Intn(n), refIntn(&s, n); got != want {
					rt.Fatalf("Intn(%d) = %d, reference %d", n, got, want)
				}
			} else if got, want := x.Uint64(), refNext(&s); got != want {
				rt.Fatalf("Uint64 = %d, reference %d", got, want)
			}
			if x.s != s {
				rt.Fatalf("state %v, reference %v", x.s, s)
			}
		}
	})
}

// TestIntnRefusesNonPositive: n <= 0 panics, as it did.
func TestIntnRefusesNonPositive(t *testing.T) {
	for _, n := range []int{0, -1, math.MinInt} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Intn(%d) did not panic", n)
				}
			}()
			NewXoshiro(1).Intn(n)
		}()
	}
}
