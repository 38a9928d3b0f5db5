package main

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

// detRun is a deterministic scheduler: the seeded driver runs the whole
// program at janus_scheduler_shutdown, when every top-level spawn is known.
type detRun struct {
	cfg  sched.Config
	seed uint64
	path string
}

func newDetRun(cfg sched.Config, seed uint64, path string) (*detRun, error) {
	return nil, errors.New("cabi: deterministic mode is not available yet")
}

func (d *detRun) run(cs *cSched) {}
