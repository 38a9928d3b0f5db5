package sweep

import (
	"context"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestShardsPartitionTheSweep: for any total and N, the N shards' jobs
// together are 0..total-1, each exactly once.
func TestShardsPartitionTheSweep(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.Int64Range(0, 500).Draw(t, "total")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		seen := make([]int, total)
		for k := 1; k <= n; k++ {
			s := Shard{K: k, N: n}
			for j := range s.Count(total) {
				i := s.Index(j)
				if i < 0 || i >= total || !s.Owns(i) {
					t.Fatalf("shard %v job %d is index %d of %d", s, j, i, total)
				}
				seen[i]++
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("index %d run %d times", i, c)
			}
		}
	})
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	cases := []struct {
		flag string
		env  map[string]string
		want Shard
		err  string
	}{
		{"", nil, Shard{}, ""},
		{"1/1", nil, Shard{1, 1}, ""},
		{"2/3", nil, Shard{2, 3}, ""},
		{"0/3", nil, Shard{}, "index \"0\" is not a number in 1..3"},
		{"4/3", nil, Shard{}, "index \"4\""},
		{"1/0", nil, Shard{}, "count \"0\""},
		{"x", nil, Shard{}, "want K/N"},
		{"auto", map[string]string{EnvK8sIndex: "0", EnvCount: "3"}, Shard{1, 3}, ""},
		{"auto", map[string]string{EnvK8sIndex: "2", EnvCount: "3"}, Shard{3, 3}, ""},
		{"auto", map[string]string{EnvK8sIndex: "3", EnvCount: "3"}, Shard{}, "not a number in 0..2"},
		{"auto", map[string]string{EnvIndex: "3", EnvCount: "3"}, Shard{3, 3}, ""},
		{"auto", map[string]string{EnvIndex: "1"}, Shard{}, EnvCount + " is not set"},
		{"auto", map[string]string{EnvCount: "3"}, Shard{}, "neither"},
	}
	for _, c := range cases {
		getenv := none
		if c.env != nil {
			getenv = env(c.env)
		}
		got, err := ParseShard(c.flag, getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %v: error %v, want one containing %q", c.flag, c.env, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q %v: %v, %v; want %v", c.flag, c.env, got, err, c.want)
		}
	}
}

// TestRunStopsInOrder: after a Stop, every job below Handed ran, and none
// at or above it did.
func TestRunStopsInOrder(t *testing.T) {
	t.Parallel()
	for _, jobs := range []int{1, 2, 7} {
		var mu sync.Mutex
		ran := map[int64]bool{}
		st := Run(context.Background(), 1000, Options{Jobs: jobs}, func(j int64) Verdict {
			mu.Lock()
			ran[j] = true
			mu.Unlock()
			if j == 100 {
				return Stop
			}
			return Passed
		})
		if st.Handed < 101 || st.Failed != 1 {
			t.Fatalf("jobs %d: %+v", jobs, st)
		}
		for j := range int64(1000) {
			if ran[j] != (j < st.Handed) {
				t.Fatalf("jobs %d: job %d ran=%v, handed %d", jobs, j, ran[j], st.Handed)
			}
		}
	}
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	st := Run(ctx, 1_000_000, Options{Jobs: 2}, func(j int64) Verdict {
		if j == 10 {
			cancel()
		}
		return Passed
	})
	if st.Handed >= 1_000_000 {
		t.Fatalf("a cancelled sweep ran every job: %+v", st)
	}
}

// A session's batches each run their own jobs 0..n-1, stop on their own
// Stop, and add up in Close.
func TestSessionBatches(t *testing.T) {
	t.Parallel()
	s := Start(context.Background(), 100, Options{Jobs: 2})
	a := s.Batch(10, func(j int64) Verdict { return Passed })
	b := s.Batch(10, func(j int64) Verdict {
		if j == 3 {
			return Stop
		}
		return Passed
	})
	c := s.Batch(5, func(j int64) Verdict { return Failed })
	all := s.Close()
	if a.Handed != 10 || a.Failed != 0 || b.Handed < 4 || b.Failed != 1 || c.Handed != 5 || c.Failed != 5 {
		t.Fatalf("batches %+v %+v %+v", a, b, c)
	}
	if all.Handed != a.Handed+b.Handed+c.Handed || all.Failed != 6 {
		t.Fatalf("session %+v", all)
	}
}
