package gen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/sim/sweep"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// Defaults of FuzzOptions.
const (
	DefaultStart        uint64 = 1
	DefaultOut                 = "fuzz-out"
	DefaultShrinkBudget        = 2000

	// shrinkSeeds is how many extra run seeds (1..shrinkSeeds) a shrink
	// candidate is tried with, after the seed that failed, before it is
	// called passing: an edit changes the schedule, and the bug may need
	// another interleaving to show again.
	shrinkSeeds = 16
)

// DefaultWorkers is the worker counts the fuzzer picks from.
var DefaultWorkers = []int{1, 2, 4, 8}

// FuzzOptions configures Fuzz. The zero value is not enough: set Seeds or
// Duration.
type FuzzOptions struct {
	Seeds     int           // scenarios to run: seeds SeedStart..SeedStart+Seeds-1; 0: until Duration
	Duration  time.Duration // stop handing out seeds after this long; 0: run all Seeds
	SeedStart uint64        // first seed (--seed-start); 0 means DefaultStart
	Workers   []int         // worker counts to pick from; nil means DefaultWorkers
	Out       string        // where repros go; "" means DefaultOut
	// ShrinkBudget bounds the shrinker's evaluations of a candidate (each
	// one is up to 1+16 runs); 0 means DefaultShrinkBudget.
	ShrinkBudget int
	// Jobs is how many goroutines generate and run scenarios (--jobs); 0
	// means runtime.NumCPU(). The result does not depend on it.
	Jobs int
	// Failing names what went wrong in a run (made by Execute, so its
	// Checks hold the oracles too); an empty list means the run passed.
	// nil means FailedChecks. Tests set it to something stricter to see
	// the fuzzer find, shrink and write a failure.
	Failing func(*sim.Run) []string
	// Shard selects the seeds this process runs: shard K of N runs the
	// seeds SeedStart+K-1, SeedStart+K-1+N, ... (the zero value: all).
	Shard sweep.Shard
	// ProgressTerminal makes the progress line rewrite itself.
	ProgressTerminal bool
	// Strategy and PCTDepth choose the seeded driver's strategy; each
	// run's seed is its seed ("": the portfolio, sim.StrategyPortfolio).
	Strategy string
	PCTDepth int
	// Corpus, when set, is a regression corpus directory: the shrunk
	// failure's scenario and trace are saved there too (corpus.go).
	Corpus string
	// Context stops the session when done (nil: never), as Duration
	// does: no further seed is handed out, the started runs finish, and
	// the report says Interrupted. A failure found by then is shrunk and
	// written as usual.
	Context context.Context
}

// FuzzReport is what Fuzz did.
type FuzzReport struct {
	SeedStart  uint64        // the first seed
	Shard      sweep.Shard   // the shard run
	Runs       int           // scenarios generated and run (this shard's first Runs seeds from SeedStart)
	Failures   int           // how many of them failed
	Elapsed    time.Duration // the whole call, shrinking and writing included
	RunsPerSec float64       // runs per second of the fuzzing itself
	First      *Failure      // the lowest failing seed, shrunk and written; nil if none
	// Interrupted says FuzzOptions.Context stopped the session before
	// its seeds or its duration ran out.
	Interrupted bool
}

// Failure is one failing seed, after shrinking.
type Failure struct {
	Seed        uint64   // the generator seed: Scenario().Example(int(Seed))
	RunSeed     uint64   // the run seed and worker count it failed under
	Workers     int      //
	Failed      []string // what Failing said, sorted
	Details     []string // "name: detail" of each failed check of the shrunk run
	SizeBefore  int      // ops before shrinking
	SizeAfter   int      // ops after
	ShrinkEvals int      // candidates the shrinker ran
	Original    *scenario.Scenario
	Shrunk      *scenario.Scenario
	// The shrunk scenario fails under ReproSeed and ReproWorkers, which
	// may differ from RunSeed when shrinking changed the schedule.
	ReproSeed    uint64
	ReproWorkers int
	Dir          string // OUT/fuzz-SEED, holding scenario.toml, original.toml, run.trace, shrunk.trace, README.txt
	Command      string // the command that replays the shrunk failure
	Schedule     string // the shrunk schedule's sizes and replay command, or why it was not shrunk
	CorpusFile   string // the scenario's file in FuzzOptions.Corpus, "" if none
	CorpusNew    bool   // the corpus did not hold it before
	// CorpusRepaired: a file at the entry's name was not the entry (junk,
	// another program) and was replaced.
	CorpusRepaired bool
	// WriteErr says the repro directory could not be written (then Dir
	// holds nothing), CorpusErr the corpus entry; the failure stands.
	WriteErr, CorpusErr error
}

// FailedChecks is the default Failing: the names of the checks that did
// not hold, and the outcome when it is deadlock, livelock or crash. A
// generated program always terminates (Safe), so any of those outcomes is
// a scheduler bug (explore.FailedChecks, for scenarios that may expect
// them, does not count them). The fuzzer's scenarios have no [expect], so
// the checks are the invariants and, for a run made by Execute, the
// oracles.
func FailedChecks(run *sim.Run) []string {
	return sim.FailedChecks(run, sim.OutcomeDeadlock, sim.OutcomeLivelock, sim.OutcomeCrash)
}

// RunSeed returns the run seed and the worker count (from workers) the
// fuzzer uses for generator seed seed. Both come from one SplitMix64 stream
// started at seed, so they are the same on every machine and for any
// Jobs. The run seed is kept to 31 bits so that the replay command
// stays short.
func RunSeed(seed uint64, workers []int) (uint64, int) {
	s := seed ^ 0x9e3779b97f4a7c15
	runSeed := driver.SplitMix64(&s) >> 33
	w := workers[driver.SplitMix64(&s)%uint64(len(workers))]
	return runSeed, w
}

// Fuzz generates scenarios from seeds SeedStart, SeedStart+1, ... (Scenario().
// Example(seed)), runs each once under the seeded simulator with a run seed
// and worker count derived from the seed (RunSeed, Execute), and checks it
// with o.Failing: by default the invariants, the oracles and the outcome.
// Runs go on o.Jobs goroutines, each run independent.
//
// At the first failure Fuzz stops handing out seeds, lets the runs already
// started finish, and takes the lowest failing seed: every lower seed has
// been run by then, so that seed does not depend on Jobs or timing. It
// shrinks that scenario (Shrink, with o.ShrinkBudget), writes it to
// OUT/fuzz-SEED/ and returns it in the report's First. Failures counts the
// failing runs seen, which past the first may vary with timing.
//
// Time is only used to stop after o.Duration and to print progress (to
// progress, at most once a second, after the first second); it never
// decides what is generated or run. A generated scenario that Resolve
// refuses or that cannot run is a bug of the generator, returned as an
// error.
func Fuzz(o FuzzOptions, progress io.Writer) (*FuzzReport, error) {
	if err := o.Normalize(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	began := time.Now()
	so := sweep.Options{Jobs: o.Jobs, Name: "fuzz", Progress: progress, Terminal: o.ProgressTerminal}
	if o.Duration > 0 {
		so.Deadline = began.Add(o.Duration)
	}
	total := int64(o.Seeds)
	if total == 0 {
		total = math.MaxInt64
	}
	// Seeds must stay within what Example takes (an int) and sim.Resolve
	// takes; Normalize checked SeedStart, and here the range is capped.
	if lim := int64(math.MaxInt64 - o.SeedStart); total > lim {
		total = lim
	}
	var (
		mu       sync.Mutex
		firstIdx = int64(-1) // lowest failing job so far
		firstErr error       // the lowest-job harness error
		errIdx   = int64(-1)
		gens     = sync.Pool{New: func() any { return Scenario() }}
	)
	st := sweep.Run(o.Context, o.Shard.Count(total), so, func(j int64) sweep.Verdict {
		g := gens.Get().(genScenario) // Example is called on it for every seed
		failed, err := runSeed(g, o.seed(j), o)
		gens.Put(g)
		if err == nil && len(failed) == 0 {
			return sweep.Passed
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil && (errIdx < 0 || j < errIdx) {
			errIdx, firstErr = j, err
		} else if err == nil && (firstIdx < 0 || j < firstIdx) {
			firstIdx = j
		}
		return sweep.Stop
	})
	interrupted := o.Context.Err() != nil && st.Handed < o.Shard.Count(total)

	// Every job below the highest one handed out has finished, so the
	// runs are exactly this shard's first Runs seeds.
	rep := &FuzzReport{SeedStart: o.SeedStart, Shard: o.Shard, Runs: int(st.Handed), Failures: int(st.Failed),
		Interrupted: interrupted}
	if errIdx >= 0 && (firstIdx < 0 || errIdx < firstIdx) {
		return nil, firstErr
	}
	if s := st.Elapsed.Seconds(); s > 0 {
		rep.RunsPerSec = float64(rep.Runs) / s
	}
	if firstIdx >= 0 {
		f, err := reproduce(o.seed(firstIdx), o, progress)
		if err != nil {
			return nil, err
		}
		rep.First = f
	}
	rep.Elapsed = time.Since(began)
	return rep, nil
}

// seed is the generator seed of this shard's j-th run.
func (o *FuzzOptions) seed(j int64) uint64 { return o.SeedStart + uint64(o.Shard.Index(j)) }

// Normalize fills in the defaults and checks the options; Fuzz calls it
// first, and a caller may call it before to tell bad input from a failed
// run. Calling it twice is harmless.
func (o *FuzzOptions) Normalize() error {
	if o.Seeds < 0 {
		return fmt.Errorf("seeds must be >= 1, not %d", o.Seeds)
	}
	if o.Duration < 0 {
		return fmt.Errorf("duration must be positive, not %s", o.Duration)
	}
	if o.Seeds == 0 && o.Duration == 0 {
		return errors.New("give a number of seeds or a duration")
	}
	if o.SeedStart == 0 {
		o.SeedStart = DefaultStart
	}
	if o.SeedStart >= math.MaxInt64 {
		return fmt.Errorf("start seed %d out of range 1..%d", o.SeedStart, int64(math.MaxInt64-1))
	}
	if o.Seeds > 0 && o.SeedStart+uint64(o.Seeds) > math.MaxInt64 {
		return fmt.Errorf("seeds %d..%d go past %d", o.SeedStart, o.SeedStart+uint64(o.Seeds)-1, int64(math.MaxInt64))
	}
	if o.Workers == nil {
		o.Workers = DefaultWorkers
	}
	if len(o.Workers) == 0 {
		return errors.New("the worker list is empty")
	}
	for _, w := range o.Workers {
		if w < 1 || w > sched.WorkersMax {
			return fmt.Errorf("workers %d out of range 1..%d", w, sched.WorkersMax)
		}
	}
	if o.Out == "" {
		o.Out = DefaultOut
	}
	if o.ShrinkBudget < 0 {
		return fmt.Errorf("shrink budget must be >= 0, not %d", o.ShrinkBudget)
	}
	if o.ShrinkBudget == 0 {
		o.ShrinkBudget = DefaultShrinkBudget
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Failing == nil {
		o.Failing = FailedChecks
	}
	if o.Strategy == "" {
		o.Strategy = sim.StrategyPortfolio
	}
	return sim.CheckStrategy(o.Strategy, o.PCTDepth)
}

// runSeed generates the scenario of seed and runs it once; it returns what
// o.Failing says about the run.
func runSeed(g genScenario, seed uint64, o FuzzOptions) ([]string, error) {
	sc := g.Example(int(seed))
	rs, w := RunSeed(seed, o.Workers)
	run, err := o.execute(sc, rs, w, nil)
	if err != nil {
		return nil, fmt.Errorf("gen: seed %d: %w\n%s", seed, err, sc.Source)
	}
	return o.Failing(run), nil
}

// genScenario is what runSeed needs of Scenario()'s generator.
type genScenario interface {
	Example(seed ...int) *scenario.Scenario
}

// reproduce shrinks the failing scenario of seed and writes it out.
func reproduce(seed uint64, o FuzzOptions, progress io.Writer) (*Failure, error) {
	orig := Scenario().Example(int(seed))
	rs, w := RunSeed(seed, o.Workers)
	run, err := o.execute(orig, rs, w, nil)
	if err != nil {
		return nil, err
	}
	want := sim.Signature(o.Failing(run))
	if want == "" {
		return nil, fmt.Errorf("gen: seed %d failed once and passed when run again: the run is not deterministic", seed)
	}
	f := &Failure{Seed: seed, RunSeed: rs, Workers: w, Original: orig, SizeBefore: Size(orig)}
	f.Failed = strings.Split(want, ",")
	fmt.Fprintf(progress, "fuzz: seed %d failed (%s) with --seed %d --workers %d; shrinking %d ops (budget %d)\n",
		seed, want, rs, w, f.SizeBefore, o.ShrinkBudget)
	sh := candidateRunner{o: o, want: want, workers: w, tries: shrinkTries(rs)}
	shrunk := Shrink(orig, func(c *scenario.Scenario) bool {
		sh.evals++
		_, _, ok := sh.failsAt(c)
		return ok
	}, o.ShrinkBudget)
	if sh.err != nil {
		return nil, sh.err
	}

	// Name the repro after its seed and say where it came from; renaming
	// changes the text, so load it again.
	named := clone(shrunk)
	named.Name = fmt.Sprintf("fuzz-%d", seed)
	named.Description = fmt.Sprintf("Found by cbcsim fuzz: seed %d (run seed %d, %d workers) broke %s; shrunk from %d ops to %d.",
		seed, rs, w, want, f.SizeBefore, Size(shrunk))
	if shrunk, err = Reload(named); err != nil {
		return nil, fmt.Errorf("gen: the shrunk scenario of seed %d does not load: %w", seed, err)
	}
	reproSeed, rrun, ok := sh.failsAt(shrunk)
	if !ok {
		return nil, fmt.Errorf("gen: the shrunk scenario of seed %d no longer fails", seed)
	}
	f.Shrunk, f.SizeAfter, f.ShrinkEvals = shrunk, Size(shrunk), sh.evals
	f.ReproSeed, f.ReproWorkers = reproSeed, w
	f.Details = details(rrun)
	f.Dir = filepath.Join(o.Out, fmt.Sprintf("fuzz-%d", seed))
	file := filepath.Join(f.Dir, "scenario.toml")
	f.Command = rrun.Config.Command(file)
	// A repro or corpus entry that cannot be written (a full disk) does
	// not lose the failure: it is the report's, with WriteErr, and the
	// shrunk scenario is in f.Shrunk for the caller to print.
	if err := writeRepro(f, file, o); err != nil {
		f.WriteErr = fmt.Errorf("writing the repro of seed %d: %w", seed, err)
		return f, nil
	}
	if o.Corpus != "" {
		var state corpusState
		if f.CorpusFile, state, err = saveCorpus(f, o.Corpus); err != nil {
			f.CorpusErr = fmt.Errorf("seed %d: %w", seed, err)
		}
		f.CorpusNew, f.CorpusRepaired = state == corpusNew, state == corpusRepaired
	}
	return f, nil
}

// shrinkTries is where a candidate is run: the failing seed first, then
// seeds 1..shrinkSeeds.
func shrinkTries(rs uint64) []uint64 {
	tries := []uint64{rs}
	for s := uint64(1); s <= shrinkSeeds; s++ {
		if s != rs {
			tries = append(tries, s)
		}
	}
	return tries
}

// candidateRunner runs shrink candidates and says whether they still fail
// the way the original did.
type candidateRunner struct {
	o       FuzzOptions
	want    string // the failure's signature
	workers int
	tries   []uint64
	evals   int
	err     error // the first harness error
}

// failsAt reports the first run seed of tries under which c fails as
// wanted, with that run.
func (sh *candidateRunner) failsAt(c *scenario.Scenario) (uint64, *sim.Run, bool) {
	for _, s := range sh.tries {
		r, err := sh.o.execute(c, s, sh.workers, nil)
		if err != nil {
			if sh.err == nil {
				sh.err = err
			}
			return 0, nil, false
		}
		if sim.Signature(sh.o.Failing(r)) == sh.want {
			return s, r, true
		}
	}
	return 0, nil, false
}

// details lists what broke in a run: each failed check, and the outcome
// when it is deadlock, livelock or crash.
func details(run *sim.Run) []string {
	var out []string
	for _, c := range run.Checks {
		if !c.OK {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	if run.Outcome == sim.OutcomeDeadlock || run.Outcome == sim.OutcomeLivelock || run.Outcome == sim.OutcomeCrash {
		what := strings.Join(run.Stuck, ", ")
		switch {
		case run.Crash != "" && what != "":
			what += "; " + run.Crash
		case run.Crash != "":
			what = run.Crash
		}
		out = append(out, fmt.Sprintf("outcome: %s %s", run.Outcome, what))
	}
	return out
}

// writeRepro writes the failure's directory: every file atomically, the
// trace by running the shrunk scenario again. A directory it made is
// removed when a file cannot be written (a full disk).
func writeRepro(f *Failure, file string, o FuzzOptions) (err error) {
	undo, err := outfile.MkdirNew(f.Dir)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			undo()
		}
	}()
	if err := sim.WriteFileAtomic(file, func(w io.Writer) error {
		_, err := w.Write(f.Shrunk.Source)
		return err
	}); err != nil {
		return err
	}
	if err := sim.WriteFileAtomic(filepath.Join(f.Dir, "original.toml"), func(w io.Writer) error {
		_, err := w.Write(f.Original.Source)
		return err
	}); err != nil {
		return err
	}
	if err := sim.WriteFileAtomic(filepath.Join(f.Dir, "run.trace"), func(w io.Writer) error {
		_, err := o.execute(f.Shrunk, f.ReproSeed, f.ReproWorkers, w)
		return err
	}); err != nil {
		return err
	}
	// The scenario is shrunk; now its schedule.
	f.Schedule = o.shrinkSchedule(f.Dir)
	readme := f.README()
	if err := sim.WriteFileAtomic(filepath.Join(f.Dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, readme)
		return err
	}); err != nil {
		return err
	}
	notes := htmlreport.Lines(readme)
	if i := slices.Index(notes, "Shrunk scenario:"); i > 0 {
		notes = notes[:i] // the scenario is in the trace and scenario.toml
	}
	return htmlreport.WriteRepro(f.Dir, []string{"run.trace"}, notes)
}

// README is the text of the failure's README.txt: what failed, how it was
// found, and the command that replays it.
func (f *Failure) README() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cbcsim fuzz found a failure.\n\n")
	fmt.Fprintf(&b, "SEED      %d (the generator seed; the scenario is gen.Scenario().Example(%d))\n", f.Seed, f.Seed)
	fmt.Fprintf(&b, "RUN       --seed %d --workers %d\n", f.RunSeed, f.Workers)
	fmt.Fprintf(&b, "FAILED    %s\n", strings.Join(f.Failed, ", "))
	fmt.Fprintf(&b, "SIZE      %d ops before shrinking, %d after (%d candidates tried)\n\n", f.SizeBefore, f.SizeAfter, f.ShrinkEvals)
	fmt.Fprintf(&b, "Checks that broke in the shrunk run (--seed %d --workers %d):\n", f.ReproSeed, f.ReproWorkers)
	for _, d := range f.Details {
		fmt.Fprintf(&b, "  %s\n", d)
	}
	if len(f.Details) == 0 {
		fmt.Fprintf(&b, "  (none: the failure was named by a custom Failing predicate)\n")
	}
	for _, name := range f.Failed {
		if name == OracleCaps || name == OracleTimeout {
			fmt.Fprintf(&b, "\n%s is an oracle of the fuzzer (sim/gen/oracle.go), which `cbcsim run`\n"+
				"does not check: the run below ends without a FAIL line, and the broken rule\n"+
				"shows in its trace (`cbcsim run ... --trace t.trace`).\n", name)
		}
	}
	fmt.Fprintf(&b, "\nFiles:\n")
	fmt.Fprintf(&b, "  scenario.toml  the shrunk scenario\n")
	fmt.Fprintf(&b, "  original.toml  the scenario as generated, before shrinking\n")
	fmt.Fprintf(&b, "  run.trace      the trace of the shrunk run\n")
	fmt.Fprintf(&b, "  shrunk.trace   its schedule, shrunk (fewest preemptions, then fewest steps)\n")
	fmt.Fprintf(&b, "  report.html    the run drawn: a lane per worker and per task, the waits (docs/report.md)\n\n")
	if f.Schedule != "" {
		fmt.Fprintf(&b, "%s\n\n", f.Schedule)
	}
	fmt.Fprintf(&b, "Replay:\n  %s\n\nShrunk scenario:\n\n%s", f.Command, f.Shrunk.Source)
	return b.String()
}
