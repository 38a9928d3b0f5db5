package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "cockroach_2448", Subtype: commChan, Body: cockroach2448})

// cockroach2448: multiraft's state loop, when it has nothing else to do,
// handles a write response by sending an event to the store, blocking
// until the store takes it. The store handles an event by running its
// callback, which sends on the state loop's callback channel, blocking
// until the state loop takes it. When the state loop chose to send its
// next event before the store's callback was ready, each waits for the
// other. The fix has the state loop take callbacks while it waits to send
// an event. (GoKer's loops run until a stopper nobody stops; here each
// side handles a fixed number of events, so that a run that does not
// deadlock ends.)
func cockroach2448(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const events = 3
		s := t.Scheduler()
		eventsCh := sched.NewChan[int](s, "events", 0)
		callbackCh := sched.NewChan[int](s, "callback_chan", 0)
		sent, callbacks := 0, 0
		// sendEvent sends one event; the fixed one runs callbacks meanwhile.
		sendEvent := func(t *sched.Task) error {
			for {
				cases := []sched.SelectCase{eventsCh.SendCase(sent)}
				if fixed {
					cases = append(cases, callbackCh.RecvCase(nil, nil))
				}
				i, err := sched.Select(t, cases...)
				if err != nil {
					return err
				}
				if i == 0 {
					sent++
					return nil
				}
				callbacks++
			}
		}
		state := func(t *sched.Task) error {
			for sent < events || callbacks < events {
				cases := []sched.SelectCase{callbackCh.RecvCase(nil, nil)}
				if sent < events {
					cases = append(cases, sched.DefaultCase())
				}
				i, err := sched.Select(t, cases...)
				if err != nil {
					return err
				}
				if i == 0 {
					callbacks++
				} else if err := sendEvent(t); err != nil { // handleWriteResponse
					return err
				}
			}
			return nil
		}
		processRaft := func(t *sched.Task) error {
			for i := 0; i < events; i++ {
				e, _, err := eventsCh.Recv(t)
				if err != nil {
					return err
				}
				if err := callbackCh.Send(t, e); err != nil { // the event's callback
					return err
				}
			}
			return nil
		}
		return scope(t, func(n *sched.Nursery) error {
			return goAll(n, task{"process_raft", processRaft}, task{"state_start", state})
		})
	}
}
