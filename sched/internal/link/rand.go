package link

import "math/bits"

// Xoshiro is the xoshiro256** generator of Blackman and Vigna. Every random
// choice the scheduler makes (victim selection) and every choice the seeded
// driver makes comes from one of these, seeded from the run's seed, so a run
// never touches a global source of randomness.
//
// A Xoshiro is not safe for concurrent use; each worker owns its own.
type Xoshiro struct{ s [4]uint64 }

// NewXoshiro returns a generator whose state is filled from seed by
// SplitMix64, as the algorithm's authors recommend.
func NewXoshiro(seed uint64) *Xoshiro {
	x := &Xoshiro{}
	x.Seed(seed)
	return x
}

// Seed resets the generator to the state derived from seed.
func (x *Xoshiro) Seed(seed uint64) {
	sm := seed
	for i := range x.s {
		x.s[i] = SplitMix64(&sm)
	}
}

// Uint64 returns the next 64 random bits.
func (x *Xoshiro) Uint64() uint64 {
	s := &x.s
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

// Intn returns a uniform integer in [0, n) without modulo bias (Lemire's
// multiply-shift with rejection). n must be positive.
func (x *Xoshiro) Intn(n int) int {
	if n <= 0 {
		panic("sched: Xoshiro.Intn: n <= 0")
	}
	bound := uint64(n)
	hi, lo := bits.Mul64(x.Uint64(), bound)
	if lo < bound {
		threshold := -bound % bound
		for lo < threshold {
			hi, lo = bits.Mul64(x.Uint64(), bound)
		}
	}
	return int(hi)
}

// SplitMix64 advances *state and returns the next output. It derives
// independent sub-seeds (one per worker, one for the driver) from one seed.
func SplitMix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
