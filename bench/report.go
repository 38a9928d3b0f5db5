package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// The sources of the targets: the two lists of docs/spec.md.
const (
	srcPeers  = "spec.md#peer-targets"
	srcDesign = "spec.md#design-targets"
)

// targets checks the report against docs/spec.md's performance targets,
// one function per target or group. A target whose figure was not
// measured (a one-core machine has no 2-worker point) is left out.
func targets(r *Report) []Target {
	var ts []Target
	for _, t := range []func(*Report) []Target{
		peerRatios, fiberSwitch, yieldPingPong, parkedTask, simSteps, twoWorkers,
		spawnRate, taskMemory, stealLatency, concurrentTasks, linearScaling,
	} {
		ts = append(ts, t(r)...)
	}
	return ts
}

func target(src, name, want, got string, met bool) []Target {
	return []Target{{Source: src, Name: name, Want: want, Got: got, Met: met}}
}

// peerRatios: spawn-join and the fan-out tree no slower than goroutines
// with a WaitGroup and than errgroup.
func peerRatios(r *Report) []Target {
	var ts []Target
	for _, name := range []string{"SpawnJoin", "FanOutTree"} {
		row, ok := r.Row(name)
		if !ok {
			continue
		}
		var got []string
		met := true
		for _, peer := range []string{Goroutines, Errgroup} {
			if p, ok := row.Peer(peer); ok {
				got = append(got, fmt.Sprintf("%s %.2fx", peer, p.Ratio))
				met = met && p.Ratio >= 1
			}
		}
		ts = append(ts, target(srcPeers, name+": cbcsim no slower than goroutines+WaitGroup and errgroup",
			"peer/cbcsim >= 1 (aim 2)", strings.Join(got, ", "), met)...)
	}
	return ts
}

func fiberSwitch(r *Report) []Target {
	row, ok := r.Row("FiberSwitch")
	if !ok {
		return nil
	}
	p, ok := row.Peer(IterPull)
	if !ok {
		return nil
	}
	x := 1 / p.Ratio
	return target(srcPeers, "fiber switch within 1.2x of a bare iter.Pull switch", "<= 1.20x",
		fmt.Sprintf("%.2fx (%.1f ns vs %.1f ns)", x, row.Cbcsim, p.Value), x <= 1.2)
}

// yieldPingPong: a yield round trip allocates nothing, and is the
// design's context switch.
func yieldPingPong(r *Report) []Target {
	row, ok := r.Row("YieldPingPong")
	if !ok {
		return nil
	}
	return append(target(srcPeers, "YieldPingPong allocates nothing", "0 allocs/op",
		fmt.Sprintf("%.3f allocs/op", row.AllocsPerOp), row.AllocsPerOp < 0.01),
		target(srcDesign, "context switch latency", "< 1 us", fmt.Sprintf("%.0f ns", row.Cbcsim), row.Cbcsim < 1000)...)
}

func parkedTask(r *Report) []Target {
	row, ok := r.Row("ParkedTasks")
	if !ok {
		return nil
	}
	got := fmt.Sprintf("%.0f B", row.Cbcsim)
	if p, ok := row.Peer(Goroutines); ok {
		got += fmt.Sprintf(" (goroutine %.0f B)", p.Value)
	}
	return target(srcPeers, "parked task", "<= 3 KiB (3072 B)", got, row.Cbcsim <= 3072)
}

func simSteps(r *Report) []Target {
	row, ok := r.Row("SimSteps/trace")
	if !ok {
		return nil
	}
	return target(srcPeers, "seeded driver, tracing to a file", ">= 2M steps/s", fmtValue(row.Unit, row.Cbcsim)+" steps/s", row.Cbcsim >= 2e6)
}

// twoWorkers: speedups are over the first scaling point, here 1 worker:
// the medians of the rounds' own ratios.
func twoWorkers(r *Report) []Target {
	var one, two *ScalePoint
	for i := range r.Scaling {
		switch r.Scaling[i].Workers {
		case 1:
			one = &r.Scaling[i]
		case 2:
			two = &r.Scaling[i]
		}
	}
	if one == nil || two == nil || one != &r.Scaling[0] {
		return nil
	}
	x := two.Empty.Speedup
	return target(srcPeers, "fan-out tree throughput, 2 workers over 1", ">= 1.70x",
		fmt.Sprintf("%.2fx (working leaves %.2fx, control %.2fx)", x, two.Working.Speedup, two.Control.Speedup), x >= 1.7)
}

func spawnRate(r *Report) []Target {
	row, ok := r.Row("SpawnJoin")
	if !ok {
		return nil
	}
	rate := 1e9 / row.Cbcsim
	return target(srcDesign, "task spawn throughput (SpawnJoin)", "> 1M/s", fmtValue("spawns/s", rate)+"/s", rate > 1e6)
}

func taskMemory(r *Report) []Target {
	row, ok := r.Row("ParkedTasks")
	if !ok {
		return nil
	}
	return target(srcDesign, "memory per task (parked)", "< 16 KB", fmt.Sprintf("%.0f B", row.Cbcsim), row.Cbcsim < 16<<10)
}

func stealLatency(r *Report) []Target {
	row, ok := r.Row("Steal")
	if !ok {
		return nil
	}
	ns, ok := row.Metrics["ns/steal"]
	if !ok {
		return nil
	}
	return target(srcDesign, "work-steal latency (bounded by a thief's time per stolen task)", "< 10 us",
		fmt.Sprintf("%.0f ns", ns), ns < 10_000)
}

func concurrentTasks(r *Report) []Target {
	row, ok := r.Row("ParkedTasks")
	if !ok {
		return nil
	}
	n := r.Machine.ParkedTasks
	return target(srcDesign, "concurrent tasks", ">= 1,000,000", fmt.Sprintf("%d parked at once", n), n >= 1_000_000 && row.Cbcsim > 0)
}

func linearScaling(r *Report) []Target {
	if len(r.Scaling) <= 1 {
		return nil
	}
	last := r.Scaling[len(r.Scaling)-1]
	return target(srcDesign, "linear scaling up to the core count (fan-out tree)", fmt.Sprintf("~%dx on %d workers", last.Workers, last.Workers),
		fmt.Sprintf("%.2fx on %d workers (working leaves %.2fx, control %.2fx)", last.Empty.Speedup, last.Workers,
			last.Working.Speedup, last.Control.Speedup),
		last.Empty.Speedup >= 0.9*float64(last.Workers))
}

// fmtValue prints a figure with the precision its size deserves.
func fmtValue(unit string, v float64) string {
	if strings.HasSuffix(unit, "/s") {
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.2fM", v/1e6)
		case v >= 1e4:
			return fmt.Sprintf("%.1fk", v/1e3)
		}
	}
	if v < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// Write prints the machine, the comparison table (each peer's figure with
// its ratio to cbcsim's), the scaling table and the targets.
func (r *Report) Write(w io.Writer) error {
	m := r.Machine
	mode := ""
	if m.Quick {
		mode = " (quick: rough figures)"
	}
	fmt.Fprintf(w, "cbcsim bench: %s %s/%s, %d CPUs, GOMAXPROCS %d, cbcsim workers %d; %s a measurement, median of %d interleaved rounds%s\n\n",
		m.GoVersion, m.GOOS, m.GOARCH, m.NumCPU, m.GOMAXPROCS, m.Workers, m.Duration, m.Count, mode)
	for _, section := range []func(io.Writer) error{r.writeComparisons, r.writeScaling, r.writeTargets} {
		if err := section(w); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) writeComparisons(w io.Writer) error {
	var peers []string
	for _, row := range r.Rows {
		for _, p := range row.Peers {
			if !contains(peers, p.Name) {
				peers = append(peers, p.Name)
			}
		}
	}
	fmt.Fprintln(w, "Comparisons (peer figures with peer/cbcsim: above 1x cbcsim costs less)")
	header := append([]string{"benchmark", "operation", "unit", "cbcsim", "allocs/op"}, peers...)
	t := tablewriter.NewTable(w, tablewriter.WithHeader(header))
	var notes []string
	for _, row := range r.Rows {
		allocs := "-" // a batch's allocations say nothing per task or step
		if row.Unit == "ns/op" {
			allocs = fmt.Sprintf("%.2f", row.AllocsPerOp)
		}
		line := []string{row.Name, row.Op, row.Unit, fmtValue(row.Unit, row.Cbcsim), allocs}
		for _, name := range peers {
			cell := "-"
			if p, ok := row.Peer(name); ok {
				cell = fmt.Sprintf("%s (%.2fx)", fmtValue(row.Unit, p.Value), p.Ratio)
			}
			line = append(line, cell)
		}
		if err := t.Append(line); err != nil {
			return err
		}
		if row.Note != "" {
			notes = append(notes, row.Name+": "+row.Note)
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

func (r *Report) writeScaling(w io.Writer) error {
	fmt.Fprintf(w, "\nScaling: fan-out tree of depth %d (%d spawns a tree) with empty leaves, with leaves computing\n", TreeDepth, TreeTasks)
	fmt.Fprintf(w, "%d xorshift rounds, and as a control the same leaves on plain goroutines (no spawns). cores is CPU\n", LeafWorkIters)
	fmt.Fprintln(w, "time over elapsed time: below the worker count the workers sat idle or the machine was busy (see control).")
	t := tablewriter.NewTable(w, tablewriter.WithHeader([]string{"workers",
		"empty ns/tree", "empty tasks/s", "empty speedup", "empty cores",
		"working ns/tree", "working speedup", "working cores", "control speedup", "control cores"}))
	for _, p := range r.Scaling {
		if err := t.Append([]string{strconv.Itoa(p.Workers),
			fmtValue("ns/op", p.Empty.NsPerTree), fmtValue("tasks/s", p.Empty.TasksPerSec),
			fmt.Sprintf("%.2fx", p.Empty.Speedup), fmt.Sprintf("%.2f", p.Empty.Cores),
			fmtValue("ns/op", p.Working.NsPerTree), fmt.Sprintf("%.2fx", p.Working.Speedup),
			fmt.Sprintf("%.2f", p.Working.Cores),
			fmt.Sprintf("%.2fx", p.Control.Speedup), fmt.Sprintf("%.2f", p.Control.Cores)}); err != nil {
			return err
		}
	}
	return t.Render()
}

func (r *Report) writeTargets(w io.Writer) error {
	fmt.Fprintln(w, "\nTargets")
	t := tablewriter.NewTable(w, tablewriter.WithHeader([]string{"source", "target", "want", "got", "met"}))
	for _, tg := range r.Targets {
		met := "yes"
		if !tg.Met {
			met = "NO"
		}
		if err := t.Append([]string{tg.Source, tg.Name, tg.Want, tg.Got, met}); err != nil {
			return err
		}
	}
	return t.Render()
}

// WriteJSON prints the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
