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

// Uint64 returns the next 64 random bits. (Written on locals, so that it
// inlines: the seeded driver draws on every decision.)
func (x *Xoshiro) Uint64() uint64 {
	s0, s1, s2, s3 := x.s[0], x.s[1], x.s[2], x.s[3]
	result := bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	x.s = [4]uint64{s0, s1, s2, bits.RotateLeft64(s3, 45)}
	return result
}

// Intn returns a uniform integer in [0, n) without modulo bias (Lemire's
// multiply-shift with rejection). n must be positive. It is too big to be
// inlined: a caller on a hot path writes its common case out, as
// IntnRest says.
func (x *Xoshiro) Intn(n int) int {
	hi, lo := bits.Mul64(x.Uint64(), uint64(n))
	if n <= 0 || lo < uint64(n) {
		return x.IntnRest(n, hi, lo)
	}
	return int(hi)
}

// IntnRest is Intn past its first draw, for a caller that writes Intn's
// common case out: hi, lo := bits.Mul64(x.Uint64(), uint64(n)), and hi
// is the result when n > 0 and lo >= n; else IntnRest(n, hi, lo) is.
func (x *Xoshiro) IntnRest(n int, hi, lo uint64) int {
	if n <= 0 {
		panic("sched: Xoshiro.Intn: n <= 0")
	}
	bound := uint64(n)
	threshold := -bound % bound
	for lo < threshold {
		hi, lo = bits.Mul64(x.Uint64(), bound)
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
