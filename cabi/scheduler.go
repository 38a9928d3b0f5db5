package main

/*
#cgo CFLAGS: -fstack-clash-protection
#include "janus_internal.h"
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// The bounds of JANUS_STACK_SIZE (janus.c's JANUS_STACK_MIN and 1 GiB).
const (
	stackMin = 16 << 10
	stackMax = 1 << 30
)

// cSched is one scheduler created by janus_scheduler_create.
//
// Its root task, main, runs one task, the spawner, which owns the top-level
// nursery, a collect_all nursery that catches: a failing top-level task
// cancels none of the others. C threads outside any task hand top-level
// spawns to it through pending; the spawner takes them between sleeps of
// at most topPollMax ticks (a spawn from outside waits at most that long,
// and an idle scheduler wakes that often), since the sched API has no way
// to wake a task from a thread that is not a worker.
type cSched struct {
	s      *sched.Scheduler
	budget sched.Budget // each C task's starting budget

	mu       sync.Mutex
	pending  []topSpawn
	stopping bool

	det  *detRun       // deterministic mode: run at shutdown (det.go)
	done chan struct{} // closed when the root has finished
}

type topSpawn struct{ fn, arg C.uintptr_t }

// topPollMax bounds main's sleep between looks for top-level spawns, in
// ticks (1 µs each in real mode).
const topPollMax = 1000

// registry maps the handles C holds to schedulers. A handle is an id, so a
// shut-down or made-up handle is recognised instead of dereferenced.
var registry struct {
	mu     sync.Mutex
	byID   map[uintptr]*cSched
	nextID uintptr
	latest *cSched // janus_scheduler_spawn outside any task goes here
}

// profiles maps JANUS_PROFILE_* to sched's profiles (:core has no C value:
// it has no scheduler).
var profiles = [...]sched.Profile{
	C.JANUS_PROFILE_SERVICE:   sched.ProfileService,
	C.JANUS_PROFILE_CLUSTER:   sched.ProfileCluster,
	C.JANUS_PROFILE_SOVEREIGN: sched.ProfileSovereign,
}

// sovereignCaps are the capabilities of the spawner and of every top-level
// task under the sovereign profile (main's too): they may spawn, use
// channels and do I/O, but neither recharge themselves nor supervise
// (docs/c-abi.md). The other profiles ignore them: every task holds every
// capability.
const sovereignCaps = sched.CapSpawn | sched.CapChannel | sched.CapIO

// cabi_create is janus_scheduler_create outside any task: 0 for a bad
// config.
//
//export cabi_create
func cabi_create(cfg *C.JanusSchedulerConfig) C.uintptr_t {
	if cfg.worker_count > sched.WorkersMax || int(cfg.profile) >= len(profiles) {
		return 0
	}
	if C.janus_stack_env_ok() == 0 {
		// Said once per create, where the program can react: a value
		// silently ignored would run every task on a stack of another
		// size than the one asked for.
		fmt.Fprintf(os.Stderr, "janus: janus_scheduler_create: JANUS_STACK_SIZE=%q is not a stack size: want bytes in %d..%d\n",
			os.Getenv("JANUS_STACK_SIZE"), stackMin, stackMax)
		return 0
	}
	det := cfg.deterministic != 0
	if cfg.trace_path != nil && !det {
		return 0 // a trace is written by the seeded driver only
	}
	if det && uint64(cfg.deterministic_seed) > math.MaxInt64 {
		return 0 // the trace format's seeds are 0..2^63-1
	}
	cs := &cSched{budget: startBudget(cfg.budget), done: make(chan struct{})}
	sc := sched.Config{
		Workers: int(cfg.worker_count), Profile: profiles[cfg.profile],
		Budget: cs.budget, RootCaps: sovereignCaps,
	}
	if det {
		path := ""
		if cfg.trace_path != nil {
			path = C.GoString(cfg.trace_path)
		}
		d, err := newDetRun(sc, uint64(cfg.deterministic_seed), path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "janus: janus_scheduler_create: %v\n", err)
			return 0
		}
		cs.det = d
	} else {
		sc.Seed = uint64(cfg.deterministic_seed)
		s, err := sched.New(sc)
		if err != nil {
			return 0
		}
		cs.s = s
		go func() {
			defer close(cs.done)
			s.Run("main", cs.main)
		}()
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.byID == nil {
		registry.byID = map[uintptr]*cSched{}
	}
	registry.nextID++
	registry.byID[registry.nextID] = cs
	registry.latest = cs
	return C.uintptr_t(registry.nextID)
}

// cabi_shutdown is janus_scheduler_shutdown outside any task: it lets main
// end once every top-level task spawned so far has finished, and waits.
//
//export cabi_shutdown
func cabi_shutdown(h C.uintptr_t) {
	registry.mu.Lock()
	cs := registry.byID[uintptr(h)]
	delete(registry.byID, uintptr(h))
	if registry.latest == cs {
		registry.latest = nil
	}
	registry.mu.Unlock()
	if cs == nil {
		return // NULL, made up, or shut down already
	}
	cs.mu.Lock()
	cs.stopping = true
	cs.mu.Unlock()
	if cs.det != nil {
		cs.det.run(cs)
		return
	}
	<-cs.done
}

// cabi_spawn_top is janus_scheduler_spawn outside any task: a top-level
// task on the most recently created scheduler, started by main soon after.
//
//export cabi_spawn_top
func cabi_spawn_top(fn, arg C.uintptr_t) C.int32_t {
	registry.mu.Lock()
	cs := registry.latest
	registry.mu.Unlock()
	if cs == nil {
		return C.int32_t(codeNurseryNotActive) // no scheduler: no top-level nursery
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.stopping {
		return C.int32_t(codeNurseryNotActive)
	}
	cs.pending = append(cs.pending, topSpawn{fn: fn, arg: arg})
	return C.int32_t(codeOK)
}

// take returns the top-level spawns queued so far and whether shutdown has
// begun.
func (cs *cSched) take() ([]topSpawn, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.pending
	cs.pending = nil
	return p, cs.stopping
}

// main is the root task's body. Config.Budget is the configured budget,
// so that a spawn inside a C task passes no options (and allocates no
// budget); main spends one op of it, on the spawner, which runs with an
// unlimited budget: it spends one op on every top-level spawn, for the
// program's whole life.
func (cs *cSched) main(t *sched.Task) error {
	// An unlimited pool: spawn_count is a quota on a nursery's whole
	// subtree, and each C task's own nurseries are what it bounds.
	o := sched.NurseryOptions{Label: "main", Budget: &sched.Unlimited}
	return t.Nursery(o, func(n *sched.Nursery) error {
		return n.Go("top", cs.spawner, sched.SpawnOptions{Budget: &sched.Unlimited, Caps: sovereignCaps, HasCaps: true})
	})
}

// spawner owns the top-level nursery (its pool a copy of its unlimited
// budget) and starts the top-level spawns queued by the program's threads
// until shutdown.
func (cs *cSched) spawner(t *sched.Task) error {
	o := sched.NurseryOptions{Label: "top", Mode: nursery.CollectAll, Catch: true}
	top := sched.SpawnOptions{Budget: &cs.budget, Caps: sovereignCaps, HasCaps: true}
	return t.Nursery(o, func(n *sched.Nursery) error {
		sleep := int64(1)
		for {
			batch, stopping := cs.take()
			for _, sp := range batch {
				if err := n.Go("c", cs.body(sp.fn, sp.arg), top); err != nil {
					return err // cancelled (a deadlock): nothing more can run
				}
			}
			switch {
			case len(batch) > 0:
				sleep = 1
				continue
			case stopping:
				return nil
			}
			if cs.det != nil {
				// The seeded driver runs after shutdown: every top-level
				// spawn is already in the batch above.
				return nil
			}
			if err := t.Sleep(sleep); err != nil {
				return err
			}
			sleep = min(sleep*2, topPollMax)
		}
	})
}
