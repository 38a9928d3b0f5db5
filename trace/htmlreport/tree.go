package htmlreport

// The task and nursery tree with results, and the waits of an unfinished
// run with their wait-for graph.

import (
	"fmt"
	"math"
	"strings"

	"github.com/cbcsim/cbcsim/sim/waits"
)

// tree lists the tasks as the run nested them: each task, the nurseries
// it owned, and in each nursery the children spawned into it.
func (pw *pageWriter) tree(r *Run) {
	m := r.Model
	pw.printf("<section class=\"tree\"><h2>Tasks and nurseries: %s</h2>\n", esc(runTitle(r)))
	kids := make([][]int, len(m.Tasks)) // task -> children spawned outside any nursery
	inNursery := make([][]int, len(m.Nurseries))
	owned := make([][]int, len(m.Tasks))
	var roots []int
	for i, t := range m.Tasks {
		switch {
		case t.Nursery >= 0:
			inNursery[t.Nursery] = append(inNursery[t.Nursery], i)
		case t.Parent >= 0:
			kids[t.Parent] = append(kids[t.Parent], i)
		default:
			roots = append(roots, i)
		}
	}
	var orphans []int // nurseries whose owner the trace does not say
	for i, n := range m.Nurseries {
		if n.Owner >= 0 {
			owned[n.Owner] = append(owned[n.Owner], i)
		} else {
			orphans = append(orphans, i)
		}
	}
	tw := &treeWriter{pw: pw, m: m, kids: kids, inNursery: inNursery, owned: owned}
	pw.raw("<ul class=\"tree\">")
	for _, t := range roots {
		tw.task(t, 0)
	}
	for _, n := range orphans {
		tw.nursery(n, 0)
	}
	pw.raw("</ul>\n")
	if tw.listed >= TreeMax {
		pw.printf("<p class=\"cut\">The tree lists %d of %d tasks (at most %d).</p>\n", tw.listed, len(m.Tasks), TreeMax)
	}
	pw.raw("</section>\n")
}

type treeWriter struct {
	pw                     *pageWriter
	m                      *Model
	kids, inNursery, owned [][]int
	listed                 int
}

// depthMax bounds the nesting the tree follows (a spawn chain of
// thousands would otherwise nest as deep).
const depthMax = 64

func (tw *treeWriter) task(i, depth int) {
	if tw.listed >= TreeMax || depth > depthMax {
		return
	}
	tw.listed++
	t := tw.m.Tasks[i]
	result, class := t.Result, resultClass(t.Result)
	if result == "" {
		result, class = "unfinished", "bad"
	}
	tw.pw.printf("<li><span class=\"task\" style=\"border-color:%s\">%s</span> <span class=\"%s\">%s</span>", color(i), esc(t.Label()), class, esc(result))
	if len(tw.owned[i])+len(tw.kids[i]) > 0 {
		tw.pw.raw("<ul>")
		for _, n := range tw.owned[i] {
			tw.nursery(n, depth+1)
		}
		for _, k := range tw.kids[i] {
			tw.task(k, depth+1)
		}
		tw.pw.raw("</ul>")
	}
	tw.pw.raw("</li>")
}

func (tw *treeWriter) nursery(i, depth int) {
	n := tw.m.Nurseries[i]
	outcome := n.Outcome
	class := resultClass(outcome)
	if outcome == "" {
		outcome, class = "not ended (state "+orDash(n.State)+")", "bad"
	}
	tw.pw.printf("<li><span class=\"nursery\">nursery %s %s</span> <span class=\"mode\">%s</span> <span class=\"%s\">%s</span><ul>",
		esc(n.ID), esc(n.Label), esc(n.Mode), class, esc(outcome))
	for _, c := range tw.inNursery[i] {
		tw.task(c, depth+1)
	}
	tw.pw.raw("</ul></li>")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func resultClass(r string) string {
	switch {
	case strings.HasPrefix(r, "ok"), r == "success":
		return "good"
	case strings.HasPrefix(r, "cancelled"):
		return "cancelled"
	}
	return "bad"
}

// waits lists every unfinished task, what it waits on, where, and who
// could wake it (package waits), then draws the wait-for graph.
func (pw *pageWriter) waits(r *Run) {
	a := r.Model.Waits
	if !a.Stuck() {
		return
	}
	pw.printf("<section class=\"waits\"><h2>Who waits on what: %s</h2>\n<table class=\"waits\"><tr><th>task</th><th>waits</th><th>at</th><th>since step</th><th>could wake it</th></tr>\n", esc(runTitle(r)))
	for i := range a.Waits {
		if i == WaitsMax {
			pw.printf("<tr><td colspan=\"5\">... %d more unfinished tasks not listed</td></tr>\n", len(a.Waits)-WaitsMax)
			break
		}
		w := &a.Waits[i]
		pw.printf("<tr><td class=\"task\">%s (t%d)</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td></tr>\n",
			esc(w.Name), w.Task, esc(w.What()), esc(w.At), w.Since, esc(wakers(w)))
	}
	pw.raw("</table>\n")
	if names := a.CycleNames(); len(names) > 0 {
		pw.printf("<p class=\"cycle bad\">wait-for cycle: %s</p>\n", esc(strings.Join(append(names, names[0]), " -> ")))
	}
	pw.waitGraph(a)
	pw.raw("</section>\n")
}

func wakers(w *waits.Wait) string {
	if len(w.Wakers) == 0 {
		return w.Nobody
	}
	parts := make([]string, len(w.Wakers))
	for i, k := range w.Wakers {
		parts[i] = fmt.Sprintf("%s (t%d, %s)", k.Name, k.Task, k.Why)
	}
	return strings.Join(parts, ", ")
}

// waitGraph draws the wait-for graph on a circle: a node per unfinished
// task and per task that could wake one, an edge from each waiting task
// to each task that could wake it (labelled with the wait), the edges of
// the cycle in red.
func (pw *pageWriter) waitGraph(a *waits.Analysis) {
	g := buildWaitGraph(a)
	if len(g.edges) == 0 {
		return
	}
	const size = 460.0
	c, rad := size/2, size/2-70
	at := func(i int) (float64, float64) {
		t := 2*math.Pi*float64(i)/float64(len(g.nodes)) - math.Pi/2
		return c + rad*math.Cos(t), c + rad*math.Sin(t)
	}
	pw.printf("<svg class=\"waitgraph\" width=\"%s\" height=\"%s\">", num(size), num(size))
	pw.raw("<defs><marker id=\"waithead\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\"/></marker></defs>")
	for _, e := range g.edges {
		x1, y1 := at(e.from)
		x2, y2 := at(e.to)
		// Stop short of the node so that the arrowhead shows.
		dx, dy := x2-x1, y2-y1
		d := math.Max(math.Hypot(dx, dy), 1)
		x2, y2 = x2-dx/d*16, y2-dy/d*16
		class := "wait-edge"
		if e.cycle {
			class += " cycle"
		}
		pw.printf("<line class=\"%s\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" marker-end=\"url(#waithead)\"><title>%s</title></line>", class, num(x1), num(y1), num(x2), num(y2), esc(e.label))
	}
	for i, n := range g.nodes {
		x, y := at(i)
		pw.printf("<g class=\"wait-node %s\"><circle cx=\"%s\" cy=\"%s\" r=\"12\"/><text x=\"%s\" y=\"%s\">%s</text></g>", n.class, num(x), num(y), num(x), num(y-16), esc(clip(n.label, 36)))
	}
	pw.raw("</svg>\n")
}

type waitNode struct{ label, class string }

type waitEdge struct {
	from, to int
	label    string
	cycle    bool
}

type waitGraph struct {
	nodes []waitNode
	edges []waitEdge
}

// buildWaitGraph makes the nodes and edges of the wait-for graph, at most
// WaitsMax waits' worth.
func buildWaitGraph(a *waits.Analysis) waitGraph {
	var g waitGraph
	index := map[int64]int{} // task id -> node; never ranged over
	waiting := map[int64]bool{}
	for _, w := range a.Waits {
		waiting[w.Task] = true
	}
	node := func(id int64) int {
		if i, ok := index[id]; ok {
			return i
		}
		index[id] = len(g.nodes)
		class := "task"
		if !waiting[id] {
			class = "waker" // it could wake a task but is not itself stuck
		}
		g.nodes = append(g.nodes, waitNode{fmt.Sprintf("%s (t%d)", a.Name(id), id), class})
		return len(g.nodes) - 1
	}
	inCycle := map[[2]int64]bool{}
	for i, id := range a.Cycle {
		inCycle[[2]int64{id, a.Cycle[(i+1)%len(a.Cycle)]}] = true
	}
	for i := range a.Waits {
		if i == WaitsMax {
			break
		}
		w := &a.Waits[i]
		from := node(w.Task)
		for _, k := range w.Wakers {
			g.edges = append(g.edges, waitEdge{from: from, to: node(k.Task), label: fmt.Sprintf("%s waits %s; %s %s", w.Name, w.What(), k.Name, k.Why), cycle: inCycle[[2]int64{w.Task, k.Task}]})
		}
	}
	return g
}
