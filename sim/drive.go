package sim

import (
	"fmt"
	"math/bits"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/trace"
)

// drive is the seeded driver's loop, whatever the root task runs (a
// scenario's program in Execute, a Go body in RunBody): fire the timers
// that are due, let the chooser pick one of the workers that can act and
// step it, until main is done, the step bound is passed (livelock), no worker can act and
// no timer is pending (deadlock), or the scheduler panics (crash). It
// returns the steps taken; an error is a recorded decision that did not
// apply (ScheduleError).
//
// MaxSteps bounds the busy steps, those that ran or took a task, as in
// real mode: an idle worker's look for work that ends in parking is not
// progress of the program, and counting it made a correct program
// livelock on 256 workers. Idle steps stay bounded: a parked worker wakes
// only when work is pushed or a timer fires, so there are at most Workers
// of them per busy step or timer.
func drive(run *Run, s *driver.Scheduler, sk *sink, ch chooser) (int64, error) {
	step, crash, err := driveSteps(run, s, sk, ch)
	if crash != "" {
		run.Outcome, run.Crash = OutcomeCrash, crash
		sk.Emit(-1, trace.KindNote, []trace.Field{trace.S(trace.KeyCrash, crash)})
	}
	return step, err
}

// driveSteps is drive's loop, carried by the scheduler on its loop
// fibers (driver.Scheduler.Carry) as real mode carries each worker's
// loop: a step that starts a task without a fiber leaves it to run
// inline, on the loop's own stack, and the task takes that fiber with it
// when it suspends; the loop goes on on another (stepLoop.untilInline).
// A worker's step that panics (the scheduler itself, not a task: those
// are results) ends it with crash set to the panic's text, at the step
// that panicked, so that a scheduler bug found by a seed is reported like
// a broken invariant; a panic anywhere else in the loop is a bug of the
// simulator and goes on up. The recover is here, once a run, rather than
// in a function deferred around every step: that deferred recover was 5%
// of a seeded step (docs/performance.md#the-seeded-step).
//
// Between two steps the loop does what stepLoop.end and stepLoop.begin
// do. When a step ends at a checkpoint, the scheduler asks the sink to
// do it already, on the task's fiber (sink.NextStep): if the next
// step is the same worker's, the task goes on without switching back
// to the loop, and otherwise the loop picks up the decision taken there.
func driveSteps(run *Run, s *driver.Scheduler, sk *sink, ch chooser) (step int64, crash string, err error) {
	l := &stepLoop{run: run, s: s, sk: sk, ch: ch, workers: s.Workers(), maxSteps: run.Config.MaxSteps}
	l.ready = make([]driver.Worker, 0, len(l.workers))
	l.readyIDs = make([]int, 0, len(l.workers))
	l.inTask = ch.inTask()
	// The random walk and the replay's check are called directly, not
	// through the interface: a call per step each.
	l.random, _ = ch.(*randomChooser)
	_, l.checks = ch.(*scheduleChooser)
	sk.loop = l
	defer func() {
		sk.loop = nil
		if l.stepping {
			if r := recover(); r != nil {
				step, crash = l.step, fmt.Sprint(r)
			}
		}
	}()
	s.Carry(l.untilInline, l.hostSteps)
	if l.err != nil {
		s.Abort()
		return l.step, "", &ScheduleError{Err: l.err, Step: l.step}
	}
	return l.step, "", nil
}

// untilInline is the driver's loop as the scheduler carries it: it takes
// steps until one leaves a task to run inline (true: the step goes on in
// that task, on the loop's stack) or the run is over (false). The step in
// flight, begun and not yet ended, may end elsewhere: at a checkpoint of
// its task (NextStep), or by a loop that another fiber took over while
// this one resumed a task (a relay); a step whose task ran inline and
// ended, or suspended without a checkpoint's decision, ends when the loop
// is entered again.
func (l *stepLoop) untilInline() bool {
	if !l.resume() {
		return false
	}
	for !l.over {
		// take, written out: a call less a step on the loop that takes
		// most steps.
		w := l.next
		if l.decided {
			l.decided, l.next = false, nil
		} else {
			w = l.begin()
		}
		if w == nil {
			l.over = true
			return false
		}
		l.inFlight, l.stepping = true, true
		did, inline := w.StepInline()
		if inline {
			return true // the step goes on in the task: still stepping
		}
		l.stepping = false
		if l.inFlight && !l.finish(did) {
			return false
		}
	}
	return false
}

// hostSteps is the driver's loop while task t hosts it, on t's stack (a
// run with one worker; driver.Scheduler.Carry): t's step ended as it
// yielded or blocked, and the loop takes steps from here, each chosen and
// recorded as any other, until one resumes t (true: t goes on, its step in
// flight) or must be taken by the loop's own fiber (false: the step is
// decided, and the loop takes it as the next; or the run is over).
func (l *stepLoop) hostSteps(t *sched.Task) bool {
	if !l.resume() {
		return false
	}
	for !l.over {
		w := l.take()
		if w == nil {
			return false
		}
		did, resumes, handBack := w.StepHosted(t)
		if resumes {
			return true // t's step: still stepping
		}
		l.stepping = false
		if handBack {
			l.inFlight, l.decided, l.next = false, true, w
			return false
		}
		if l.inFlight && !l.finish(did) {
			return false
		}
	}
	return false
}

// resume is where the loop is entered again, on a loop fiber or a
// host's stack: the step in flight, whose task ran there (part of the
// step), ends now unless it ended already. False: the run is over.
func (l *stepLoop) resume() bool {
	l.stepping = false
	return !l.inFlight || l.finish(true)
}

// take begins the next step: the worker decided already (NextStep, a
// host's hand-back) or begin's choice, with the step in flight; nil once
// the run is over.
func (l *stepLoop) take() driver.Worker {
	w := l.next
	if l.decided {
		l.decided, l.next = false, nil
	} else {
		w = l.begin()
	}
	if w == nil {
		l.over = true
		return nil
	}
	l.inFlight, l.stepping = true, true
	return w
}

// finish ends the step in flight, whose worker did something or not:
// false when a recorded decision did not apply (l.err), which ends the
// run.
func (l *stepLoop) finish(did bool) bool {
	if err := l.end(did); err != nil {
		l.err, l.over = err, true
		return false
	}
	return true
}

// stepLoop is the state of the seeded driver's loop between steps.
type stepLoop struct {
	run      *Run
	s        *driver.Scheduler
	sk       *sink
	ch       chooser
	workers  []driver.Worker
	ready    []driver.Worker // the unparked workers, as of epoch
	readyIDs []int           // their ids
	epoch    uint64          // the scheduler's park epoch ready was built at
	built    bool
	step     int64 // the step being taken, or the next one between two
	busy     int64 // steps that ran or took a task: what MaxSteps bounds
	maxSteps int64
	inTask   bool           // the chooser may decide on a task's fiber (NextStep)
	random   *randomChooser // ch, when it is the random walk
	checks   bool           // ch's done can fail (a recorded schedule)

	// Set by NextStep when it ended a step on a task's fiber and that
	// fiber suspended: the next step's worker (nil if the run is over).
	decided bool
	next    driver.Worker
	nextID  int   // the id of begin's worker
	err     error // the recorded decision that did not apply (ScheduleError)

	inFlight bool // a step was begun and has not ended
	stepping bool // inside a worker's step: a panic is the scheduler's crash
	over     bool // the run is over: the loop takes no more steps
}

// begin does what the driver does before step l.step: fire the timers
// that are due, check the step bound and the limits, and choose the
// worker among the unparked ones, jumping the clock to the next timer
// when none can act. It returns nil when the run is over, with its
// outcome set, or when a recorded decision did not apply, with l.err
// set.
//
// MaxSteps bounds the busy steps, those that ran or took a task, as in
// real mode: an idle worker's look for work that ends in parking is not
// progress of the program, and counting it made a correct program
// livelock on 256 workers. Idle steps stay bounded: a parked worker wakes
// only when work is pushed or a timer fires, so there are at most Workers
// of them per busy step or timer.
func (l *stepLoop) begin() driver.Worker {
	s, sk, run := l.s, l.sk, l.run
	for !s.Done() {
		sk.step = uint64(l.step)
		s.FireTimers(sk.tick)
		if l.busy >= l.maxSteps {
			run.Outcome = OutcomeLivelock
			sk.Emit(-1, trace.KindLivelock, []trace.Field{trace.I(trace.KeyMaxSteps, l.maxSteps)})
			return nil
		}
		if name, max := sk.limit(); name != "" {
			run.Outcome, run.Limit = OutcomeLivelock, limitText(name, max)
			sk.Emit(-1, trace.KindLivelock, []trace.Field{trace.S("limit", name), trace.I("max", int64(max))})
			return nil
		}
		// The ready list is rebuilt only when a worker parked or woke
		// since it was built, which the scheduler's park epoch tells: most
		// steps change neither, and asking every worker's Parked through
		// its interface at every step was 8% of a seeded step
		// (docs/performance.md#the-seeded-step).
		if e := s.ParkEpoch(); !l.built || e != l.epoch {
			l.epoch, l.built = e, true
			l.ready, l.readyIDs = l.ready[:0], l.readyIDs[:0]
			for i, w := range l.workers {
				if !w.Parked() {
					l.ready = append(l.ready, w)
					l.readyIDs = append(l.readyIDs, i)
				}
			}
		}
		if len(l.ready) > 0 {
			if l.random != nil {
				// randomChooser.pick, keeping the index for NextStep,
				// with the Intn's common case written out: a call less a
				// step.
				rng, n := l.random.rng, len(l.ready)
				hi, lo := bits.Mul64(rng.Uint64(), uint64(n))
				if lo < uint64(n) {
					hi = uint64(rng.IntnRest(n, hi, lo))
				}
				i := int(hi)
				l.nextID = l.readyIDs[i]
				return l.ready[i]
			}
			w, err := l.ch.pick(l.step, l.ready)
			if err != nil {
				l.err = err
				return nil
			}
			l.nextID = w.ID()
			return w
		}
		// No worker can act: jump to the next timer, or it is a deadlock.
		next, ok := s.NextTimer()
		if !ok {
			run.Outcome = OutcomeDeadlock
			sk.Emit(-1, trace.KindDeadlock, []trace.Field{trace.I(trace.KeyLive, s.Live())})
			return nil
		}
		sk.Emit(-1, trace.KindClock, []trace.Field{trace.I(trace.KeyTo, int64(next))})
		sk.tick = next
	}
	return nil
}

// end does what the driver does after step l.step, whose worker did
// something or parked: let a recorded schedule check it, count it,
// advance the clock and the step. An error leaves the step where it is.
func (l *stepLoop) end(did bool) error {
	if l.checks {
		if err := l.ch.done(l.step); err != nil {
			return err
		}
	}
	l.advance(did)
	return nil
}

// advance is end after the check: no call in it, so that it is inlined
// where no schedule is checked (NextStep, at every step).
func (l *stepLoop) advance(did bool) {
	l.inFlight = false
	if did {
		l.busy++
	}
	l.sk.tick++
	l.step++
}

// NextStep implements driver.Stepper: the driver's work between two
// steps, done on the fiber of the task whose step just ended at a
// checkpoint, while the loop runs (sk.loop; it is here rather than in
// sink.go so that a step pays one call, not two). It ends
// that step and begins the next, and reports whether the next is the
// same worker's, which resumes the same task. Otherwise the task's fiber
// suspends, and driveSteps goes on from the decision kept in l. The
// events, the random draws and the checks are those of the loop itself, in
// its order, so the trace is the same byte for byte; what is saved is the
// switch to the driver's goroutine and back.
//
// A panic in the loop's own code here (a bug of the simulator or of the
// timers) unwinds the task's frames, but the scheduler keeps it and raises
// it again from the worker's Step on the driver's goroutine, so the run
// still ends as a crash (TestDriveCrashInTask), not as that task's panic.
func (sk *sink) NextStep(worker int) bool {
	l := sk.loop
	if l == nil || !l.inTask {
		return false
	}
	if !l.checks {
		l.advance(true)
	} else if err := l.end(true); err != nil {
		l.decided, l.next, l.err = true, nil, err
		return false
	}
	w := l.begin()
	if w != nil && l.nextID == worker {
		l.inFlight = true
		return true
	}
	l.decided, l.next = true, w
	return false
}

// finish records how the run ended: its outcome, main's result, the
// outcome event, the flushed trace and the tables.
func finish(run *Run, s *driver.Scheduler, sk *sink, tw *trace.Writer, step int64) error {
	run.Steps = step
	if run.Outcome == "" {
		run.Outcome = outcomeOf(driver.Result(s.Root()))
		// Release the idle fibers (parked coroutines): without it every
		// run of a check or a simtest leaks a goroutine per fiber.
		defer s.Abort()
	} else {
		run.Stuck = stuck(s)
		if sk.tab != nil { // no task kept: the tasks without a result, from the events
			run.Stuck = sk.tab.stuck()
		}
		if sk.story && sk.waitsOn {
			if sk.tab != nil {
				// Tasks that only ran have no event the builder read.
				sk.tab.unfinished(func(id int64) { sk.waits.Seen(id, sk.site(uint64(id))) })
			}
			run.Waits = sk.waits.Analysis()
		}
		s.Abort()
	}
	run.Result = driver.Result(s.Root())
	run.Decisions = sk.decisions
	sk.step = uint64(step)
	sk.Emit(-1, trace.KindOutcome, []trace.Field{trace.S(trace.KeyOutcome, string(run.Outcome)), trace.S(trace.KeyResult, run.Result.String())})
	if tw != nil {
		if sk.err == nil {
			sk.err = tw.Flush()
		}
		if sk.err != nil {
			return fmt.Errorf("writing trace: %w", sk.err)
		}
	}
	collect(run, s)
	if sk.tab != nil { // a driver mode that keeps no task: the tables come from the events
		sk.tab.fill(run)
	}
	return nil
}
