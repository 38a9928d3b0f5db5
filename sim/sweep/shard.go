package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables --shard auto reads, in this order of
// preference. A Kubernetes Indexed Job sets JOB_COMPLETION_INDEX (0-based)
// on each pod; the count is the Job's .spec.completions, which the Job
// passes down as SHARD_COUNT (docs/ci.md shows the manifest). A GitHub
// Actions matrix sets neither: its job passes the matrix values as
// SHARD_INDEX (1-based, as --shard K/N) and SHARD_COUNT.
const (
	EnvK8sIndex = "JOB_COMPLETION_INDEX"
	EnvIndex    = "SHARD_INDEX"
	EnvCount    = "SHARD_COUNT"
)

// ShardsMax bounds N: more shards than this is a typing mistake.
const ShardsMax = 1 << 20

// Shard is part K of N of a sweep, K in 1..N. The zero value is the whole
// sweep.
type Shard struct{ K, N int }

// ParseShard parses a --shard value: "" (the whole sweep), "K/N", or
// "auto" (read from getenv, see EnvK8sIndex).
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	switch s {
	case "":
		return Shard{}, nil
	case "auto":
		return shardFromEnv(getenv)
	}
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want K/N (such as 2/3) or auto", s)
	}
	return newShard(k, n, 1, "--shard "+strconv.Quote(s))
}

func shardFromEnv(getenv func(string) string) (Shard, error) {
	count := getenv(EnvCount)
	if count == "" {
		return Shard{}, fmt.Errorf("--shard auto: %s is not set (the number of shards; docs/check.md#sharding)", EnvCount)
	}
	if idx := getenv(EnvK8sIndex); idx != "" {
		return newShard(idx, count, 0, fmt.Sprintf("--shard auto (%s=%q, %s=%q)", EnvK8sIndex, idx, EnvCount, count))
	}
	if idx := getenv(EnvIndex); idx != "" {
		return newShard(idx, count, 1, fmt.Sprintf("--shard auto (%s=%q, %s=%q)", EnvIndex, idx, EnvCount, count))
	}
	return Shard{}, fmt.Errorf("--shard auto: neither %s (Kubernetes Indexed Job) nor %s is set", EnvK8sIndex, EnvIndex)
}

// newShard parses an index (base 0 or 1) and a count.
func newShard(k, n string, base int, what string) (Shard, error) {
	nv, err := strconv.Atoi(n)
	if err != nil || nv < 1 || nv > ShardsMax {
		return Shard{}, fmt.Errorf("%s: the count %q is not a number in 1..%d", what, n, ShardsMax)
	}
	kv, err := strconv.Atoi(k)
	if err != nil || kv < base || kv > nv-1+base {
		return Shard{}, fmt.Errorf("%s: the index %q is not a number in %d..%d", what, k, base, nv-1+base)
	}
	return Shard{K: kv - base + 1, N: nv}, nil
}

// Whole reports whether s is the whole sweep.
func (s Shard) Whole() bool { return s.N <= 1 }

// Count is how many of total jobs s owns.
func (s Shard) Count(total int64) int64 {
	if s.Whole() {
		return total
	}
	first := int64(s.K - 1)
	if total <= first {
		return 0
	}
	return (total-first-1)/int64(s.N) + 1
}

// Index is the index in the whole sweep of s's j-th job.
func (s Shard) Index(j int64) int64 {
	if s.Whole() {
		return j
	}
	return j*int64(s.N) + int64(s.K-1)
}

// Local is Index's inverse: the position among s's jobs of job i of the
// whole sweep, which s owns.
func (s Shard) Local(i int64) int64 {
	if s.Whole() {
		return i
	}
	return i / int64(s.N)
}

// Owns reports whether job i of the whole sweep is s's.
func (s Shard) Owns(i int64) bool { return s.Whole() || i%int64(s.N) == int64(s.K-1) }

// String is the --shard value that selects s ("" for the whole sweep).
func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
