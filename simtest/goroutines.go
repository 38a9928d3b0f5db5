package simtest

// A real goroutine started by a body runs on the OS's schedule, not the
// seed's. Comparing two executions' traces catches it only when its
// timing happens to change a decision in one of them, which on an idle
// machine it may never do. So each execution also looks for the goroutine
// itself: the run's goroutine carries a pprof label, which every goroutine
// started from it inherits, the body's included. Whenever the process's
// count of goroutines ever created (a cheap runtime metric) has grown
// since the last look, the goroutine profile is taken and searched for a
// goroutine with the run's label. The looks happen when the trace writer
// flushes (every 4 KiB of trace, between two steps) and once when the run
// ends; a profile costs tens of microseconds. The gap: a goroutine that
// starts and ends between two looks (started, then waited for on a Go
// channel) is never seen alive; it is found only if its timing changes a
// trace, or by the race detector. Finding it at every step would need a
// hook in the driver that sim does not offer.
//
// The label reaches the body's goroutines only if every fiber of the run
// was made during the run (a coroutine takes the labels of the goroutine
// that made it): the scheduler's process-wide list of idle fibers kept
// between runs is turned off in a process that imports simtest (init).

import (
	"bytes"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/fiber"
)

const createdMetric = "/sched/goroutines-created:goroutines"

var runIDs atomic.Uint64 // labels of runs in this process

func init() { fiber.SetSharing(false) }

// goroutineWatch looks for goroutines a run started outside the scheduler.
// Only the run's own goroutine calls its methods.
type goroutineWatch struct {
	label   string // `"simtest.run":"N"`, as the profile prints it
	sample  []metrics.Sample
	created uint64 // the metric at the last look
	found   string // the first such goroutine's stack, "" if none
	ok      bool   // the metric exists in this Go version
	live    int    // runtime.NumGoroutine at the start
}

func newGoroutineWatch() (*goroutineWatch, pprof.LabelSet) {
	id := strconv.FormatUint(runIDs.Add(1), 10)
	w := &goroutineWatch{label: `"simtest.run":"` + id + `"`, sample: []metrics.Sample{{Name: createdMetric}}}
	return w, pprof.Labels("simtest.run", id)
}

// start takes the baseline; the run's goroutine calls it first.
func (w *goroutineWatch) start() {
	w.live = runtime.NumGoroutine()
	metrics.Read(w.sample)
	w.ok = w.sample[0].Value.Kind() == metrics.KindUint64
	if w.ok {
		w.created = w.sample[0].Value.Uint64()
	}
}

// look searches the goroutine profile if goroutines were created since
// the last look. At the end of the run (final) it searches only if more
// goroutines are alive than at the start. (Measured: released fibers
// have not always exited by then, so the final profile is taken on most
// runs; it is most of Check's cost over sim.RunBody's, docs/simtest.md.)
func (w *goroutineWatch) look(final bool) {
	if w.found != "" || !w.ok {
		return
	}
	metrics.Read(w.sample)
	n := w.sample[0].Value.Uint64()
	if final && runtime.NumGoroutine() > w.live || !final && n != w.created {
		w.found = w.scan()
		// Read again: taking the profile may itself start goroutines.
		metrics.Read(w.sample)
		w.created = w.sample[0].Value.Uint64()
	}
}

// scan returns the stack of a goroutine carrying the run's label that is
// not the run's own goroutine. (Fibers, which are coroutines, do not
// appear in the goroutine profile; the check for corostart is a guard.)
func (w *goroutineWatch) scan() (found string) {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return ""
	}
	profile, _ := strings.CutPrefix(b.String(), "goroutine profile:")
	if i := strings.IndexByte(profile, '\n'); i >= 0 {
		profile = profile[i+1:] // the rest of the header line
	}
	for _, rec := range strings.Split(profile, "\n\n") {
		if !strings.Contains(rec, w.label) || strings.Contains(rec, "cbcsim/simtest.(*config).execute") {
			continue
		}
		if strings.Contains(rec, "runtime.corostart") {
			continue
		}
		var frames []string
		for _, l := range strings.Split(rec, "\n") {
			if f := strings.Fields(l); len(f) >= 4 && f[0] == "#" && strings.HasPrefix(f[1], "0x") {
				frames = append(frames, f[2]+" "+f[3])
			}
		}
		if len(frames) > 4 {
			frames = frames[:4]
		}
		return strings.Join(frames, " <- ")
	}
	return ""
}
