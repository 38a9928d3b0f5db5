package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"time"
)

// Options configures Run. The zero value measures the full set on this
// machine, about two minutes on two cores (most of it parking a million
// tasks twice for each side).
type Options struct {
	// Quick shrinks every size and measurement so that a run takes a few
	// seconds (tests, -race); its figures are rough.
	Quick bool
	// Duration is how long one measurement lasts at least; 0 means 300ms
	// (Quick: 2ms).
	Duration time.Duration
	// Count is how many measurements each figure takes, keeping the
	// median; 0 means 3 (Quick: 1).
	Count int
	// Workers is cbcsim's worker count; 0 means GOMAXPROCS.
	Workers int
	// ParkedTasks is how many tasks park at once; 0 means 1,000,000
	// (Quick: 1,000).
	ParkedTasks int
	// Scaling lists the worker counts of the fan-out tree's scaling table;
	// nil means 1, 2, 4, ... and GOMAXPROCS itself.
	Scaling []int
}

// quickOpsMax bounds every measurement of a quick run: under the race
// detector at most 8128 goroutines may live at once, and a quick run must
// pass there.
const quickOpsMax = 1000

func (o Options) normalize() (Options, error) {
	if o.Duration == 0 {
		o.Duration = 300 * time.Millisecond
		if o.Quick {
			o.Duration = 2 * time.Millisecond
		}
	}
	if o.Count == 0 {
		o.Count = 3
		if o.Quick {
			o.Count = 1
		}
	}
	if o.Workers == 0 {
		o.Workers = Workers()
	}
	if o.ParkedTasks == 0 {
		o.ParkedTasks = 1_000_000
		if o.Quick {
			o.ParkedTasks = 1_000
		}
	}
	if o.Scaling == nil {
		procs := runtime.GOMAXPROCS(0)
		for w := 1; w < procs; w *= 2 {
			o.Scaling = append(o.Scaling, w)
		}
		o.Scaling = append(o.Scaling, procs)
	}
	switch {
	case o.Duration < 0:
		return o, fmt.Errorf("bench: duration %s must be positive", o.Duration)
	case o.Count < 0:
		return o, fmt.Errorf("bench: count %d must be positive", o.Count)
	case o.Workers < 1:
		return o, fmt.Errorf("bench: workers %d must be at least 1", o.Workers)
	case o.ParkedTasks < 1:
		return o, fmt.Errorf("bench: parked tasks %d must be at least 1", o.ParkedTasks)
	}
	for _, w := range o.Scaling {
		if w < 1 {
			return o, fmt.Errorf("bench: scaling worker count %d must be at least 1", w)
		}
	}
	return o, nil
}

// Machine describes where a report was measured.
type Machine struct {
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	Workers    int    `json:"workers"` // cbcsim's workers in the comparisons
	// ParkedTasks is how many tasks ParkedTasks parked at once.
	ParkedTasks int    `json:"parked_tasks"`
	Quick       bool   `json:"quick"`
	Duration    string `json:"duration"` // per measurement
	Count       int    `json:"count"`    // measurements per figure (median)
}

// Peer is one peer's figure in a row.
type Peer struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Ratio is Value divided by cbcsim's figure: above 1 the peer costs
	// more than cbcsim (every compared unit is a cost).
	Ratio float64 `json:"ratio"`
}

// Row is one operation: cbcsim's figure and each peer's.
type Row struct {
	Name        string  `json:"name"` // the benchmark's name
	Op          string  `json:"op"`   // what one operation is
	Unit        string  `json:"unit"`
	Cbcsim      float64 `json:"cbcsim"`
	AllocsPerOp float64 `json:"cbcsim_allocs_per_op"`
	// Metrics are the other figures cbcsim's workload reported, such as
	// steals/op.
	Metrics map[string]float64 `json:"cbcsim_metrics,omitempty"`
	Peers   []Peer             `json:"peers,omitempty"`
	Note    string             `json:"note,omitempty"`
}

// Peer returns the named peer's figure.
func (r *Row) Peer(name string) (Peer, bool) {
	for _, p := range r.Peers {
		if p.Name == name {
			return p, true
		}
	}
	return Peer{}, false
}

// ScalePoint is the fan-out tree at one worker count: with empty leaves
// (FanOutTree) and with leaves that compute (WorkingTree).
type ScalePoint struct {
	Workers int        `json:"workers"`
	Empty   TreeFigure `json:"empty"`
	Working TreeFigure `json:"working"`
	// Control is the working tree's leaves computed by plain goroutines
	// (ParallelLeaves): the parallelism the machine gave at that moment.
	Control TreeFigure `json:"control"`
}

// TreeFigure is one tree workload at one worker count.
type TreeFigure struct {
	NsPerTree   float64 `json:"ns_per_tree"`
	TasksPerSec float64 `json:"tasks_per_sec"`
	Speedup     float64 `json:"speedup"` // throughput over that of the first point
	Cores       float64 `json:"cores"`   // CPU time over elapsed time; 0 if unknown
}

// Target is one performance target and whether this run met it.
type Target struct {
	Source string `json:"source"` // the docs/spec.md anchor of the target
	Name   string `json:"name"`
	Want   string `json:"want"`
	Got    string `json:"got"`
	Met    bool   `json:"met"`
}

// Report is the outcome of Run.
type Report struct {
	Machine Machine      `json:"machine"`
	Rows    []Row        `json:"rows"`
	Scaling []ScalePoint `json:"scaling"`
	Targets []Target     `json:"targets"`
}

// Row returns the row of the named benchmark.
func (r *Report) Row(name string) (*Row, bool) {
	for i := range r.Rows {
		if r.Rows[i].Name == name {
			return &r.Rows[i], true
		}
	}
	return nil, false
}

// rowSpec says how to measure one row.
type rowSpec struct {
	name, op, unit string
	impls          []string          // cbcsim's implementation first, then the peers
	f              func(string) Func // the workload of one implementation
	metric         string            // the figure: a reported metric, or "" for ns/op
	opsMax         int               // bound on operations a measurement; 0 is none
	warmBatch      bool              // run one operation untimed before measuring
}

// measureRow measures one row in o.Count rounds, each round every
// implementation once and in turn; a figure is the median over the rounds
// and a ratio the median of the rounds' ratios (medianRatio).
func measureRow(sp rowSpec, o Options, opsMax int, progress io.Writer) (Row, error) {
	row := Row{Name: sp.name, Op: sp.op, Unit: sp.unit}
	nMax := opsMax
	if sp.opsMax > 0 {
		nMax = sp.opsMax
	}
	if nMax == 0 {
		nMax = math.MaxInt // no bound but the time
	}
	value := func(s Sample) float64 {
		if sp.metric != "" {
			return s.Metrics[sp.metric]
		}
		return s.NsPerOp
	}
	fs := make([]Func, len(sp.impls))
	for i, impl := range sp.impls {
		fs[i] = sp.f(impl)
		if sp.warmBatch {
			if _, err := measure(fs[i], 1); err != nil {
				return row, fmt.Errorf("bench: %s/%s: warm-up: %w", sp.name, impl, err)
			}
		}
	}
	samples, err := rounds(fs, func(i int) string { return sp.name + "/" + sp.impls[i] }, o, nMax)
	if err != nil {
		return row, err
	}
	for i, impl := range sp.impls {
		s := medianOf(samples[i], value)
		v := value(s)
		fmt.Fprintf(progress, "bench: %-28s %-12s %12.1f %s (n=%d)\n", sp.name, impl, v, sp.unit, s.N)
		if i == 0 {
			row.Cbcsim, row.AllocsPerOp = v, s.AllocsPerOp
			for k, x := range s.Metrics { // the other metrics; the samples stay as measured
				if k != sp.metric {
					if row.Metrics == nil {
						row.Metrics = map[string]float64{}
					}
					row.Metrics[k] = x
				}
			}
			if sp.name == "Steal" {
				row.Note = fmt.Sprintf("%.2f steals/op, %.0f ns/steal", s.Metrics["steals/op"], s.Metrics["ns/steal"])
			}
			continue
		}
		row.Peers = append(row.Peers, Peer{Name: impl, Value: v, Ratio: medianRatio(valuesOf(samples[0], value), valuesOf(samples[i], value))})
	}
	return row, nil
}

// Run measures every row, the scaling of the fan-out tree and the targets,
// writing one line of progress per measurement to progress (nil: none).
func Run(o Options, progress io.Writer) (*Report, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	rep := &Report{Machine: Machine{
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Workers: o.Workers, ParkedTasks: o.ParkedTasks, Quick: o.Quick,
		Duration: o.Duration.String(), Count: o.Count,
	}}
	traceDir, err := os.MkdirTemp("", "cbcsim-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(traceDir)

	opsMax := 0
	if o.Quick {
		opsMax = quickOpsMax
	}
	for _, sp := range rowSpecs(o, traceDir) {
		row, err := measureRow(sp, o, opsMax, progress)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
	}

	scaling, err := measureScaling(o, progress)
	if err != nil {
		return nil, err
	}
	rep.Scaling = scaling
	rep.Targets = targets(rep)
	return rep, nil
}

// rowSpecs are the rows Run measures, in the order of the report; the
// simulator's rows write their traces under traceDir.
func rowSpecs(o Options, traceDir string) []rowSpec {
	one := func(f Func) func(string) Func { return func(string) Func { return f } }
	return []rowSpec{
		{name: "SpawnJoin", op: "spawn+join 1 empty task", unit: "ns/op", impls: Join,
			f: func(impl string) Func { return SpawnJoin(impl, o.Workers) }},
		{name: "FanOutTree", op: fmt.Sprintf("1 tree: depth %d, %d spawns", TreeDepth, TreeTasks), unit: "ns/op",
			impls: Join, f: func(impl string) Func { return FanOutTree(impl, o.Workers) }},
		{name: "FiberSwitch", op: "1 fiber resume and yield", unit: "ns/op",
			impls: []string{Cbcsim, IterPull}, f: FiberSwitch},
		{name: "YieldPingPong", op: "1 hand-over: Yield, 1 worker", unit: "ns/op",
			impls: []string{Cbcsim, IterPull, Goroutines}, f: YieldPingPong},
		{name: "YieldPingPong/" + CbcsimChan, op: "1 hand-over: rendezvous channel", unit: "ns/op",
			impls: []string{CbcsimChan, Goroutines}, f: YieldPingPong},
		{name: "YieldPingPong/" + CbcsimTyped, op: "1 hand-over: rendezvous sched.Chan[int]", unit: "ns/op",
			impls: []string{CbcsimTyped, Goroutines}, f: YieldPingPong},
		{name: "Rendezvous", op: "1 hand-over: sched.Chan[int], N workers", unit: "ns/op",
			impls: []string{Cbcsim, Goroutines}, f: func(impl string) Func { return Rendezvous(impl, o.Workers) }},
		{name: "Steal", op: "1 spawn, others stealing", unit: "ns/op",
			impls: []string{Cbcsim}, f: one(Steal(o.Workers))},
		{name: "ParkedTasks", op: fmt.Sprintf("1 of %d parked tasks", o.ParkedTasks), unit: "B/task",
			impls: Parked, f: func(impl string) Func { return ParkedTasks(impl, o.ParkedTasks) },
			metric: "B/task", opsMax: 1, warmBatch: true},
		{name: "SpawnedTasks", op: fmt.Sprintf("1 of %d spawned, not yet run tasks", o.ParkedTasks), unit: "B/task",
			impls: []string{Cbcsim}, f: one(SpawnedTasks(o.ParkedTasks)), metric: "B/task", opsMax: 1, warmBatch: true},
		{name: "SimSteps/trace", op: "twenty.toml, trace to a file", unit: "steps/s",
			impls: []string{Cbcsim}, f: one(SimSteps(traceDir)), metric: "steps/s"},
		{name: "SimSteps/notrace", op: "twenty.toml, no trace", unit: "steps/s",
			impls: []string{Cbcsim}, f: one(SimSteps("")), metric: "steps/s"},
		{name: "FuzzSeeds", op: "twenty.toml, seeds 1, 2, ...", unit: "seeds/s",
			impls: []string{Cbcsim}, f: one(FuzzSeeds()), metric: "seeds/s"},
		{name: "Explore", op: "channel_rendezvous.toml, 2 workers, K=2", unit: "schedules/s",
			impls: []string{Cbcsim}, f: one(Explore()), metric: "schedules/s"},
		{name: "FuzzGenerated/jobs1", op: "generated scenarios, 1 job", unit: "seeds/s",
			impls: []string{Cbcsim}, f: one(FuzzGenerated(1)), metric: "seeds/s"},
		{name: "FuzzGenerated/jobs2", op: "generated scenarios, 2 jobs", unit: "seeds/s",
			impls: []string{Cbcsim}, f: one(FuzzGenerated(2)), metric: "seeds/s"},
		{name: "Check/jobs1", op: "rendezvous+twenty, workers 1-8, 1 job", unit: "runs/s",
			impls: []string{Cbcsim}, f: one(CheckRuns(1)), metric: "runs/s"},
		{name: "Check/jobs2", op: "rendezvous+twenty, workers 1-8, 2 jobs", unit: "runs/s",
			impls: []string{Cbcsim}, f: one(CheckRuns(2)), metric: "runs/s"},
	}
}

// measureScaling measures the three trees at every worker count of
// o.Scaling in o.Count rounds (each round every count and tree once, in
// turn); a speedup is the median of the rounds' speedups over the first
// count (medianRatio).
func measureScaling(o Options, progress io.Writer) ([]ScalePoint, error) {
	nMax := math.MaxInt // no bound but the time
	if o.Quick {
		nMax = 20
	}
	type tree struct {
		name string
		f    func(w int) Func
		fig  func(p *ScalePoint) *TreeFigure
	}
	trees := []tree{
		{"FanOutTree", func(w int) Func { return FanOutTree(Cbcsim, w) }, func(p *ScalePoint) *TreeFigure { return &p.Empty }},
		{"WorkingTree", WorkingTree, func(p *ScalePoint) *TreeFigure { return &p.Working }},
		{"ParallelLeaves", ParallelLeaves, func(p *ScalePoint) *TreeFigure { return &p.Control }},
	}
	// One function per (worker count, tree): index wi*len(trees)+ti.
	var fs []Func
	for _, w := range o.Scaling {
		for _, tr := range trees {
			fs = append(fs, tr.f(w))
		}
	}
	label := func(k int) string {
		return fmt.Sprintf("%s scaling, %d workers", trees[k%len(trees)].name, o.Scaling[k/len(trees)])
	}
	samples, err := rounds(fs, label, o, nMax)
	if err != nil {
		return nil, err
	}
	ns := func(s Sample) float64 { return s.NsPerOp }
	points := make([]ScalePoint, len(o.Scaling))
	for wi, w := range o.Scaling {
		points[wi].Workers = w
		for ti, tr := range trees {
			runs := samples[wi*len(trees)+ti]
			s := medianOf(runs, ns)
			fig := tr.fig(&points[wi])
			*fig = TreeFigure{NsPerTree: s.NsPerOp, TasksPerSec: TreeTasks * 1e9 / s.NsPerOp, Speedup: 1, Cores: s.Cores}
			if wi > 0 {
				fig.Speedup = medianRatio(valuesOf(runs, ns), valuesOf(samples[ti], ns))
			}
			fmt.Fprintf(progress, "bench: %-14s %3d workers %12.0f tasks/s, %.2fx, %.2f cores\n", tr.name, w, fig.TasksPerSec, fig.Speedup, s.Cores)
		}
	}
	return points, nil
}

// rounds measures every function of fs once a round, one after the other,
// for o.Count rounds: samples[i][r] is fs[i] in round r. label names fs[i]
// in an error.
func rounds(fs []Func, label func(i int) string, o Options, nMax int) ([][]Sample, error) {
	samples := make([][]Sample, len(fs))
	for range max(o.Count, 1) {
		for i, f := range fs {
			s, err := autoN(f, o.Duration, nMax)
			if err != nil {
				return nil, fmt.Errorf("bench: %s: %w", label(i), err)
			}
			samples[i] = append(samples[i], s)
		}
	}
	return samples, nil
}
