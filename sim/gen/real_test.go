package gen

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sim"
)

// TestRealLeanSmoke runs generated scenarios on real workers the way a Go
// program's scheduler runs (sim.ModeRealLean: tasks and nurseries reused,
// lean nurseries whose children end lock-free and learn of a cancellation
// at their checkpoints), under -race in CI. Real runs interleave as the OS
// schedules them, so there is no trace to check; what must hold anyway is
// what the seeded fuzzer demands of every generated scenario: the run ends,
// and not as a deadlock, a livelock or a crash of the scheduler.
// GEN_REAL_SEEDS=N runs N seeds instead of 150.
func TestRealLeanSmoke(t *testing.T) {
	t.Parallel()
	n := 150
	if s := os.Getenv("GEN_REAL_SEEDS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 40
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		sc := Scenario().Example(int(seed))
		_, workers := RunSeed(seed, []int{1, 2, 4})
		opts := sim.Options{Workers: workers, Mode: sim.ModeRealLean}
		cfg, err := sim.Resolve(sc, opts)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		done := make(chan *sim.Run, 1)
		go func() {
			run, err := sim.Execute(sc, cfg, opts)
			if err != nil {
				t.Errorf("seed %d: %v", seed, err)
			}
			done <- run
		}()
		select {
		case run := <-done:
			if run == nil {
				return
			}
			switch run.Outcome {
			case sim.OutcomeDeadlock, sim.OutcomeLivelock, sim.OutcomeCrash:
				t.Fatalf("seed %d, %d workers: outcome %s (main %s)%s\n%s", seed, workers, run.Outcome, run.Result, run.Crash, sc.Source)
			}
		case <-time.After(time.Minute):
			t.Fatalf("seed %d, %d workers: no result after a minute\n%s", seed, workers, sc.Source)
		}
	}
}
