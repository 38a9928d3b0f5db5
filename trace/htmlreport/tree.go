package htmlreport

// The task and nursery tree with results, and the waits of an unfinished
// run with their wait-for graph.

import (
	"math"
	"strings"
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

// waits lists what each unfinished task waits on and draws the wait-for
// graph: a task points at what it waits on, a nursery at its unfinished
// children.
func (pw *pageWriter) waits(r *Run) {
	m := r.Model
	if len(m.Waits) == 0 {
		return
	}
	pw.printf("<section class=\"waits\"><h2>Who waits on what: %s</h2>\n<table class=\"waits\"><tr><th>task</th><th>waits on</th><th>until these finish</th></tr>\n", esc(runTitle(r)))
	for i, w := range m.Waits {
		if i == WaitsMax {
			pw.printf("<tr><td colspan=\"3\">... %d more unfinished tasks not listed</td></tr>\n", len(m.Waits)-WaitsMax)
			break
		}
		on := w.On
		if on == "" {
			on = "(not blocked: runnable or never run)"
		}
		var fors []string
		for _, t := range w.For {
			fors = append(fors, m.Tasks[t].Label())
		}
		pw.printf("<tr><td class=\"task\">%s</td><td>%s</td><td>%s</td></tr>\n", esc(m.Tasks[w.Task].Label()), esc(on), esc(strings.Join(fors, ", ")))
	}
	pw.raw("</table>\n")
	pw.waitGraph(m)
	pw.raw("</section>\n")
}

// waitGraph draws the waits as a graph on a circle: tasks and what they
// wait on are the nodes.
func (pw *pageWriter) waitGraph(m *Model) {
	g := buildWaitGraph(m)
	if len(g.nodes) == 0 {
		return
	}
	const size = 460.0
	c, rad := size/2, size/2-70
	at := func(i int) (float64, float64) {
		a := 2*math.Pi*float64(i)/float64(len(g.nodes)) - math.Pi/2
		return c + rad*math.Cos(a), c + rad*math.Sin(a)
	}
	pw.printf("<svg class=\"waitgraph\" width=\"%s\" height=\"%s\">", num(size), num(size))
	for _, e := range g.edges {
		x1, y1 := at(e[0])
		x2, y2 := at(e[1])
		// Stop short of the node so that the arrowhead shows.
		dx, dy := x2-x1, y2-y1
		d := math.Max(math.Hypot(dx, dy), 1)
		x2, y2 = x2-dx/d*16, y2-dy/d*16
		pw.printf("<line class=\"wait-edge\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" marker-end=\"url(#waithead)\"/>", num(x1), num(y1), num(x2), num(y2))
	}
	pw.raw("<defs><marker id=\"waithead\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\"/></marker></defs>")
	for i, n := range g.nodes {
		x, y := at(i)
		pw.printf("<g class=\"wait-node %s\"><circle cx=\"%s\" cy=\"%s\" r=\"12\"/><text x=\"%s\" y=\"%s\">%s</text></g>", n.class, num(x), num(y), num(x), num(y-16), esc(clip(n.label, 36)))
	}
	pw.raw("</svg>\n")
}

type waitNode struct{ label, class string }

type waitGraph struct {
	nodes []waitNode
	edges [][2]int
}

// buildWaitGraph makes a node per waiting task and per distinct thing
// waited on, an edge from each task to its wait, and from a nursery wait
// to the children it awaits.
func buildWaitGraph(m *Model) waitGraph {
	var g waitGraph
	index := map[string]int{} // node label -> index; never ranged over
	node := func(label, class string) int {
		if i, ok := index[label]; ok {
			return i
		}
		index[label] = len(g.nodes)
		g.nodes = append(g.nodes, waitNode{label, class})
		return len(g.nodes) - 1
	}
	for i, w := range m.Waits {
		if i == WaitsMax {
			break
		}
		t := node(m.Tasks[w.Task].Label(), "task")
		if w.On == "" {
			continue
		}
		on := node(w.On, "resource")
		g.edges = append(g.edges, [2]int{t, on})
		for _, c := range w.For {
			g.edges = append(g.edges, [2]int{on, node(m.Tasks[c].Label(), "task")})
		}
	}
	return g
}
