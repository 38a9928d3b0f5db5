package explore

import (
	"errors"
	"io"

	"github.com/cbcsim/cbcsim/sim"
)

// RunExec explores the schedules of whatever o.Exec runs, under cfg: the
// search of Run on a program that is not a scenario, a Go body's
// (package simtest), whose Exec ignores the scenario it is handed (nil).
// cfg is the caller's, resolved with strategy explore; o.Workers is
// ignored (cfg has the workers). Shrinking runs through o.Exec too.
func RunExec(cfg sim.Config, o Options) (*Report, error) {
	if o.Exec == nil {
		return nil, errors.New("explore: RunExec needs Options.Exec")
	}
	if err := o.normalize(); err != nil {
		return nil, err
	}
	cfg.Strategy = sim.StrategyExplore
	return runResolved(nil, o, cfg)
}

// TraceShrunk runs f's shrunk schedule through exec under cfg (as RunExec
// ran it) and writes its trace to w.
func TraceShrunk(w io.Writer, cfg sim.Config, f *Failure, exec Exec) error {
	cfg.Strategy = sim.StrategyExplore
	if f.Decisions != nil {
		return writeDecisions(exec, nil, cfg, f, w)
	}
	_, _, err := execute(exec, nil, cfg, f.Shrunk.Choices, w)
	return err
}
