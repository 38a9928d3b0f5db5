package bench

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"time"
)

// stopwatch is Run's Timer: testing.B's timer without the testing flags,
// so that the CLI chooses how long each measurement lasts.
type stopwatch struct {
	on      bool
	start   time.Time
	elapsed time.Duration
	cpu     time.Duration // process CPU time while on; cpuOK when measured
	cpuOK   bool
	mallocs uint64 // allocations while on, as testing.B counts them
	mem     runtime.MemStats
	metrics map[string]float64
}

func (s *stopwatch) StartTimer() {
	if s.on {
		return
	}
	runtime.ReadMemStats(&s.mem)
	s.mallocs -= s.mem.Mallocs
	c, ok := cpuTime()
	s.cpu -= c
	s.cpuOK = ok
	s.start = time.Now()
	s.on = true
}

func (s *stopwatch) StopTimer() {
	if !s.on {
		return
	}
	s.elapsed += time.Since(s.start)
	c, _ := cpuTime()
	s.cpu += c
	runtime.ReadMemStats(&s.mem)
	s.mallocs += s.mem.Mallocs
	s.on = false
}

func (s *stopwatch) ResetTimer() {
	if s.on {
		runtime.ReadMemStats(&s.mem)
		s.mallocs = -s.mem.Mallocs
		c, _ := cpuTime()
		s.cpu = -c
		s.start = time.Now()
	} else {
		s.mallocs, s.cpu = 0, 0
	}
	s.elapsed = 0
}

func (s *stopwatch) ReportMetric(n float64, unit string) { s.metrics[unit] = n }

// Sample is one measurement of a workload.
type Sample struct {
	N           int     // operations
	NsPerOp     float64 // elapsed nanoseconds per operation
	AllocsPerOp float64 // heap allocations per operation
	// Cores is the process's CPU time over the elapsed time (0 where the
	// platform does not report CPU time): below the worker count, the
	// machine did not give the run that many processors, or the workers
	// were idle.
	Cores   float64
	Metrics map[string]float64 // what the workload reported (steals/op, B/task, ...)
}

// measure runs f once with n operations.
func measure(f Func, n int) (Sample, error) {
	sw := &stopwatch{metrics: map[string]float64{}}
	runtime.GC()
	sw.StartTimer()
	err := f(sw, n)
	sw.StopTimer()
	if err != nil {
		return Sample{}, err
	}
	s := Sample{
		N:           n,
		NsPerOp:     float64(sw.elapsed.Nanoseconds()) / float64(n),
		AllocsPerOp: float64(sw.mallocs) / float64(n),
		Metrics:     sw.metrics,
	}
	if sw.cpuOK && sw.elapsed > 0 {
		s.Cores = float64(sw.cpu) / float64(sw.elapsed)
	}
	return s, nil
}

// autoN grows n as testing.B does until one run of f lasts at least d or
// n reaches nMax, and returns that last run. Every run before it is a
// warm-up of the next.
func autoN(f Func, d time.Duration, nMax int) (Sample, error) {
	n := 1
	for {
		s, err := measure(f, n)
		if err != nil {
			return s, err
		}
		took := time.Duration(s.NsPerOp * float64(n))
		if took >= d || n >= nMax {
			return s, nil
		}
		// Aim 20% past d, growing at most 100x and at least by one.
		next := int(math.Min(float64(n)*100, float64(d)*1.2/math.Max(s.NsPerOp, 1)))
		n = min(max(next, n+1), nMax)
	}
}

// medianOf returns the sample with the median value.
func medianOf(runs []Sample, value func(Sample) float64) Sample {
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b Sample) int { return cmp.Compare(value(a), value(b)) })
	return runs[len(runs)/2]
}

// valuesOf maps each sample to its figure.
func valuesOf(runs []Sample, value func(Sample) float64) []float64 {
	out := make([]float64, len(runs))
	for i, s := range runs {
		out[i] = value(s)
	}
	return out
}

// medianRatio is the median of the per-round ratios peer/base: a round
// measures every implementation once, one after the other, so a round the
// machine slowed down for everyone still gives a fair ratio, where the
// ratio of two medians taken minutes apart would not.
func medianRatio(base, peer []float64) float64 {
	r := make([]float64, 0, len(base))
	for i := range min(len(base), len(peer)) {
		if base[i] > 0 {
			r = append(r, peer[i]/base[i])
		}
	}
	if len(r) == 0 {
		return 0
	}
	slices.Sort(r)
	return r[len(r)/2]
}
