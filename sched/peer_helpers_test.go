package sched_test

import (
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// The peer tests (peer_*_test.go) port test cases of errgroup, conc, Trio
// and the JDK's StructuredTaskScope whose semantics map onto sched. Each
// names the test it ports; where sched differs on purpose, the test says
// so and docs/semantics.md ("Peers") gives the reason. They use only the
// exported API, as a user would, on 1, 2 and 4 workers with the library's
// default (lean) configuration.

// peerWorkers are the worker counts every peer test runs on.
var peerWorkers = []int{1, 2, 4}

// peerRun runs main on a scheduler of the given workers with the Unlimited
// budget, failing the test if the run has not ended within a minute.
func peerRun(t *testing.T, workers int, main sched.Func) sched.Result {
	t.Helper()
	s, err := sched.New(sched.Config{Workers: workers, Budget: sched.Unlimited})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan sched.Result, 1)
	go func() { done <- s.Run("main", main) }()
	select {
	case res := <-done:
		return res
	case <-time.After(time.Minute):
		t.Fatalf("workers %d: the run has not ended after a minute", workers)
		return sched.Result{}
	}
}

// peerNursery runs body as the only nursery of a run on each peer worker
// count and calls check with what Task.Nursery returned. The run itself
// must end ok (the nursery's error is handed to check, not to main).
func peerNursery(t *testing.T, o sched.NurseryOptions, body func(t *sched.Task, n *sched.Nursery) error, check func(workers int, err error)) {
	t.Helper()
	for _, workers := range peerWorkers {
		var got error
		res := peerRun(t, workers, func(root *sched.Task) error {
			got = root.Nursery(o, func(n *sched.Nursery) error { return body(root, n) })
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		check(workers, got)
	}
}
