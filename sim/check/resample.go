package check

// The resampled runs: which runs a check executes twice, where their
// second executions go in the job order, and the comparison of the two
// traces when both are done.

import (
	"bytes"
	"cmp"
	"errors"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched/driver"
)

// sample is a run executed twice; each execution writes its own spool (a
// temporary file, hashed as written). Whichever execution finishes second
// compares the two hashes and, when they agree, removes both, so that
// disk holds only the traces of runs in flight and of those that differ,
// and memory only their hashes.
type sample struct {
	sc, wi        int
	seed          uint64
	at            int64 // the job of its second execution (placeSeconds)
	first, second *spool
	finished      atomic.Int32 // executions done; the one that makes it 2 compares

	// Set by compare.
	line   int
	la, lb string
	differ bool
	err    error // reading the spools back failed
}

// executed records one execution. Called by a job goroutine, once per
// execution; the atomic add orders the other execution's writes to its
// spool before the compare.
func (s *sample) executed() {
	if s.finished.Add(1) != 2 {
		return
	}
	if bytes.Equal(s.first.sum(), s.second.sum()) {
		s.first.remove()
		s.second.remove()
		return
	}
	s.differ = true
	s.line, s.la, s.lb, _, s.err = diffSpools(s.first, s.second)
	if s.err == nil && s.line == 0 {
		s.err = errors.New("the traces' hashes differ but no line does")
	}
}

// removeSpools deletes the files of a sample, once the report is written.
func (s *sample) removeSpools() {
	s.first.remove()
	s.second.remove()
}

// pickSamples picks the runs executed twice, over the whole check, and
// keeps those of this shard.
func (c *checker) pickSamples() {
	o := c.o
	rng := driver.NewXoshiro(resampleSeed)
	for i := range c.scs {
		for _, p := range pickResample(rng, len(o.Workers), o.Seeds, o.Resample) {
			ri := c.runIndex(i, p.wi, p.seed)
			if !o.Shard.Owns(ri) {
				continue // another shard runs it, and runs it twice
			}
			s := &sample{sc: i, wi: p.wi, seed: o.SeedStart + uint64(p.seed)}
			c.samples = append(c.samples, s)
			c.sampleOf[ri] = s
		}
	}
}

type runRef struct{ wi, seed int } // worker index, seed index

// pickResample chooses k distinct runs out of nw worker counts × seeds,
// spread over the worker counts: the i-th pick takes worker count
// (off+i) mod nw, or the next one with seeds left, and a random seed not
// yet picked for it. k ≥ nw×seeds picks every run. The result is sorted.
func pickResample(rng *driver.Xoshiro, nw, seeds, k int) []runRef {
	var out []runRef
	if k <= 0 {
		return nil
	}
	if int64(k) >= int64(nw)*int64(seeds) {
		for wi := 0; wi < nw; wi++ {
			for s := 0; s < seeds; s++ {
				out = append(out, runRef{wi, s})
			}
		}
		return out
	}
	picked := map[runRef]bool{}
	perWorker := make([]int, nw)
	off := rng.Intn(nw)
	for i := 0; i < k; i++ {
		wi := (off + i) % nw
		// Bounded: fewer than nw×seeds runs are picked, so some worker
		// count has a seed left, and that one has a free seed.
		for perWorker[wi] == seeds {
			wi = (wi + 1) % nw
		}
		s := rng.Intn(seeds)
		for picked[runRef{wi, s}] {
			s = (s + 1) % seeds
		}
		picked[runRef{wi, s}] = true
		perWorker[wi]++
		out = append(out, runRef{wi, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].wi != out[j].wi {
			return out[i].wi < out[j].wi
		}
		return out[i].seed < out[j].seed
	})
	return out
}

// resampleLag is how many jobs after its first a sampled run's second
// execution is handed out at least (placeSeconds); with over 64 job
// goroutines, 4 a goroutine.
const resampleLag = 256

// placeSeconds places the second executions among this shard's runs
// positions 0..runs-1: sampled run k (in the order of their positions)
// goes at job q+k, where q is its position plus one plus the lag, or
// runs when that is past the end. So a second execution runs at another
// time than its first, beside other runs, on whichever goroutine takes
// it (what the resample is for: docs/check.md), and yet a check stopped
// part way has compared the samples it ran a lag before it stopped,
// rather than none. It returns the samples in the order of their jobs,
// which increase strictly.
func (c *checker) placeSeconds(runs int64) []*sample {
	jobs := c.o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU() // sweep.Run's default
	}
	lag := max(resampleLag, 4*int64(jobs))
	pos := func(s *sample) int64 {
		return c.o.Shard.Local(c.runIndex(s.sc, s.wi, int(s.seed-c.o.SeedStart)))
	}
	order := slices.Clone(c.samples)
	slices.SortFunc(order, func(a, b *sample) int { return cmp.Compare(pos(a), pos(b)) })
	for k, s := range order {
		s.at = min(pos(s)+1+lag, runs) + int64(k)
	}
	return order
}

// jobOf says what job j is among this shard's runs and the second
// executions placed by placeSeconds (seconds, in job order): the sample
// whose second execution it is, or else the position of its run.
func jobOf(seconds []*sample, j int64) (*sample, int64) {
	k := sort.Search(len(seconds), func(k int) bool { return seconds[k].at >= j })
	if k < len(seconds) && seconds[k].at == j {
		return seconds[k], 0
	}
	return nil, j - int64(k) // k second executions come before j
}
