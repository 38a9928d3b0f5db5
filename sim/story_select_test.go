package sim_test

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
)

// TestStorySelect: the channel operations a Select or a TrySend completes
// are in the story as a Send's and a Recv's are, with the peer task: a
// buffered value's sender, a parked task, or a select waiting on the
// other side. A hand-over between two tasks is one event, the side that
// completed it naming the other (a send to a waiting receiver, a receive
// from a waiting sender or from the buffer). main receives five values,
// all from "producer": five events pair the two, each naming the other.
func TestStorySelect(t *testing.T) {
	pairLine := regexp.MustCompile(`chan task=(\d+) op=(send|recv) ch=(jobs|ready) peer=(\d+)`)
	for seed := uint64(0); seed < 20; seed++ {
		for _, workers := range []int{1, 2} {
			var tr bytes.Buffer
			var main, producer uint64
			r, err := sim.RunBody(sim.Body{Name: "story-select", Source: "story select\n", Seed: seed,
				Sched: sched.Config{Workers: workers, Budget: sched.Unlimited}, Trace: &tr},
				func(t *sched.Task) error {
					main = t.ID()
					jobs := sched.NewChan[int](t.Scheduler(), "jobs", 1)
					ready := sched.NewChan[int](t.Scheduler(), "ready", 0)
					return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
						n.Go("producer", func(t *sched.Task) error {
							producer = t.ID()
							for i := range 4 {
								if _, err := sched.Select(t, jobs.SendCase(i), ready.SendCase(i)); err != nil {
									return err
								}
							}
							for {
								sent, err := jobs.TrySend(t, 9)
								if err != nil || sent {
									return err
								}
								if err := t.Yield(); err != nil {
									return err
								}
							}
						})
						for got := 0; got < 5; {
							var v int
							if _, err := sched.Select(t, jobs.RecvCase(&v, nil), ready.RecvCase(&v, nil)); err != nil {
								return err
							}
							got++
						}
						return nil
					})
				})
			if err != nil || r.Outcome != sim.OutcomeOK {
				t.Fatalf("seed %d, %d workers: %v %v %s", seed, workers, err, r.Outcome, r.Result)
			}
			pairs := pairLine.FindAllStringSubmatch(tr.String(), -1)
			if len(pairs) != 5 {
				t.Fatalf("seed %d, %d workers: %d hand-overs in the story, want 5:\n%s", seed, workers, len(pairs), tr.String())
			}
			for _, m := range pairs {
				from, to := producer, main
				if m[2] == "recv" {
					from, to = main, producer
				}
				if m[1] != fmt.Sprint(from) || m[4] != fmt.Sprint(to) {
					t.Errorf("seed %d, %d workers: %q: want task=%d peer=%d", seed, workers, m[0], from, to)
				}
			}
		}
	}
}
