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
