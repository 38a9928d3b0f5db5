package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim/sweep"
)

// sweepFlags is the flag vocabulary of every subcommand that runs many
// seeds (check, fuzz, explore): the same names, meanings and checks in
// each. A subcommand registers them with add and reads them, checked,
// with resolve.
type sweepFlags struct {
	seeds     int
	seedStart uint64
	workers   string
	jobs      int
	shard     string
	// strategy is --strategy and --pct-depth, registered by addStrategy:
	// check and fuzz take them, explore does not (it is a strategy of
	// its own).
	strategy strategyFlags

	// Resolved by resolve.
	workerList []int
	shardOf    sweep.Shard
}

// add registers the flags; defaultWorkers is what --workers means when
// it is not given.
func (s *sweepFlags) add(cmd *cobra.Command, defaultWorkers []int) {
	f := cmd.Flags()
	f.IntVar(&s.seeds, "seeds", 0, "seeds to run: S..S+N-1 (S is --seed-start)")
	f.Uint64Var(&s.seedStart, "seed-start", 1, "first seed")
	s.addWorkers(cmd, defaultWorkers)
	s.addJobs(cmd)
}

// addJobs registers --jobs and --shard alone, for a subcommand that
// takes no seeds but runs its jobs through sweep (explore).
func (s *sweepFlags) addJobs(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&s.jobs, "jobs", runtime.NumCPU(), "runs executed in parallel (the result does not depend on it)")
	onceStringVar(cmd, &s.shard, "shard", "", `run shard K of N of the seeds ("K/N", or "auto" from the environment: docs/check.md#sharding)`)
}

// addWorkers registers --workers alone, for a subcommand that takes no
// seeds (explore); resolve still parses it.
func (s *sweepFlags) addWorkers(cmd *cobra.Command, defaultWorkers []int) {
	cmd.Flags().StringVar(&s.workers, "workers", joinInts(defaultWorkers), fmt.Sprintf("comma-separated worker counts, each 1..%d", sched.WorkersMax))
}

// addStrategy registers --strategy and --pct-depth: the seeded driver's
// strategy for every run of the sweep.
func (s *sweepFlags) addStrategy(cmd *cobra.Command) { s.strategy.add(cmd) }

// resolve checks the flags that were given and parses the lists. A
// bad value is bad input (exit 2).
func (s *sweepFlags) resolve(cmd *cobra.Command) error {
	f := cmd.Flags()
	switch {
	case f.Changed("seeds") && s.seeds < 1:
		return badInput(fmt.Errorf("--seeds must be at least 1, not %d", s.seeds))
	case s.jobs < 1:
		return badInput(fmt.Errorf("--jobs must be at least 1, not %d", s.jobs))
	}
	if err := s.strategy.check(); err != nil {
		return badInput(err)
	}
	if err := s.resolveWorkers(); err != nil {
		return err
	}
	var err error
	if s.shardOf, err = sweep.ParseShard(s.shard, os.Getenv); err != nil {
		return badInput(err)
	}
	return nil
}

// resolveWorkers parses --workers into workerList; it is all of resolve
// that applies to a subcommand registering addWorkers alone.
func (s *sweepFlags) resolveWorkers() error {
	var err error
	if s.workerList, err = parseWorkerList(s.workers); err != nil {
		return badInput(err)
	}
	return nil
}

// parseWorkerList parses --workers: "1,2,4,8".
func parseWorkerList(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("--workers %q has an empty entry (want a comma-separated list such as 1,2,4,8)", s)
		}
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("--workers: %q is not a number (want a comma-separated list such as 1,2,4,8)", part)
		}
		if n < 1 || n > sched.WorkersMax {
			return nil, fmt.Errorf("--workers: %d is out of range 1..%d", n, sched.WorkersMax)
		}
		if seen[n] {
			return nil, fmt.Errorf("--workers: %d is listed twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
