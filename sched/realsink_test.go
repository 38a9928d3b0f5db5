package sched

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
)

// TestRealSinkSharedEmitter: in real mode with a sink and several
// workers, the events caused outside any worker (actor -1: a nursery
// timeout fired by the clock goroutine or by any worker's fireDue, and
// the cancellation it applies) come from several goroutines at once.
// Each must reach the sink whole; run under -race, this is the test of
// the scheduler's shared emitter (Scheduler.emitter).
func TestRealSinkSharedEmitter(t *testing.T) {
	const nurseries = 256
	log := &eventLog{}
	res, _ := hostRun(t, 4, 0, log, true, func(root *Task) error {
		return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for range nurseries {
				if err := n.Go("timed", func(c *Task) error {
					// The body sleeps past its nursery's timeout, which
					// cancels it: the timeout's note and the cancel
					// are events of actor -1.
					return c.Nursery(NurseryOptions{Timeout: 1}, func(m *Nursery) error {
						// Busy children keep every worker stepping, so
						// that the workers' fireDue, not only the clock
						// goroutine, fires timeouts.
						for range 2 {
							if err := m.Go("busy", func(b *Task) error {
								for {
									if err := b.Yield(); err != nil {
										return nil
									}
								}
							}); err != nil {
								return err
							}
						}
						for {
							if err := c.Sleep(1); err != nil {
								return nil
							}
						}
					})
				}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("main = %s", res)
	}
	notes := 0
	for _, line := range log.lines {
		if strings.HasPrefix(line, "-1 note ") && strings.Contains(line, "timeout=") {
			notes++
		}
	}
	if notes != nurseries {
		t.Fatalf("%d timeout notes from actor -1, want %d", notes, nurseries)
	}
}

// TestRealSinkBlockEvent: in real mode with a sink, a block event names
// what the task waited on, a nursery's await or a select, though another
// worker may wake the task and run it on at once: the event is read
// before the park (worker.suspended), as after it the task may have
// reused what its blocker points into. (Here, under -race, reading it
// after the park was not caught: with a sink nothing here is reused
// soon enough; the order is the fix's, the test the events'.) In 200
// rounds of 4 workers at least one of the two waits blocks.
func TestRealSinkBlockEvent(t *testing.T) {
	const rounds = 200
	log := &eventLog{}
	res, _ := hostRun(t, 4, 0, log, true, func(root *Task) error {
		a, b := NewChan[int](root.Scheduler(), "a", 0), NewChan[int](root.Scheduler(), "b", 0)
		for i := range rounds {
			err := root.Nursery(NurseryOptions{Label: "round"}, func(n *Nursery) error {
				n.Go("sender", func(c *Task) error {
					if i%2 == 0 {
						return a.Send(c, i)
					}
					return b.Send(c, i)
				})
				var got int
				_, err := Select(root, a.RecvCase(&got, nil), b.RecvCase(&got, nil))
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("main = %s", res)
	}
	var nurseryBlocks, selectBlocks int
	for _, line := range log.lines {
		if strings.Contains(line, " block ") && strings.Contains(line, "nursery round") {
			nurseryBlocks++
		}
		if strings.Contains(line, " block ") && strings.Contains(line, "select a b") {
			selectBlocks++
		}
	}
	if nurseryBlocks+selectBlocks == 0 {
		t.Fatalf("no block event names the nursery or the select in %d lines", len(log.lines))
	}
}
