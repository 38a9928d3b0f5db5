package htmlreport

// The timelines: inline SVG, x in steps (the order the driver ran them),
// one lane per worker, per task and per nursery. Every drawn element
// carries its steps (data-a, data-b or data-s) so that the page's script
// can zoom by recomputing x; without the script the page shows the
// initial scale.

import (
	"fmt"
	"slices"
)

const (
	laneH      = 18  // a lane's height in px
	laneGap    = 4   // between lanes
	axisH      = 22  // the step axis above the lanes
	widthMin   = 900 // the initial plot width bounds, in px
	widthMax   = 12000
	pxPerStep0 = 6 // the initial scale when it fits in widthMax
)

// scale is the timelines' shared x scale.
type scale struct {
	steps uint64  // the steps drawn: [0, steps)
	limit uint64  // the first step not drawn, <= every run's Steps
	px    float64 // px per step
	cut   bool    // limit is below some run's Steps: ElementsMax was reached
}

// newScale fits every run on one scale and finds the step at which the
// timelines stop so that they draw at most ElementsMax elements.
func newScale(runs []Run) scale {
	var starts []uint64
	var steps uint64
	for _, r := range runs {
		m := r.Model
		steps = max(steps, m.Steps)
		for _, s := range m.Slices {
			starts = append(starts, s.First)
		}
		for _, a := range m.Arrows {
			starts = append(starts, a.Step)
		}
		for _, c := range m.ChanOps {
			starts = append(starts, c.Step)
		}
		for _, t := range m.Tasks {
			for _, b := range t.Blocks {
				starts = append(starts, b.From)
			}
		}
	}
	sc := scale{steps: max(steps, 1), limit: steps}
	if len(starts) > ElementsMax {
		slices.Sort(starts)
		sc.limit, sc.cut = max(starts[ElementsMax], 1), true
		sc.steps = sc.limit
	}
	width := min(max(float64(sc.steps)*pxPerStep0, widthMin), widthMax)
	sc.px = width / float64(sc.steps)
	return sc
}

func (sc scale) x(step uint64) float64 { return float64(step) * sc.px }

// timelines draws every run's lanes on the shared scale, and the
// divergence of two runs on each.
func (pw *pageWriter) timelines(p *Page) {
	sc := newScale(p.Runs)
	pw.raw("<section class=\"timeline\"><h2>Timeline</h2>\n")
	pw.printf("<p class=\"help\">x is the step, the order in which the driver ran the workers. A slice is a stretch of run steps of one task on one worker that no other worker's step interrupted; a new slice starts at every preemption. Grey: blocked (hover for on what). Arrows: spawn (blue), wake (green). ▲ a send, ▼ a receive completed (hover for the channel and the peer). Zoom: <input id=\"zoom\" type=\"range\" min=\"%s\" max=\"%s\" step=\"any\" value=\"%s\"></p>\n",
		num(sc.px/8), num(max(sc.px*8, 24)), num(sc.px))
	if sc.cut {
		pw.printf("<p class=\"cut\">The timeline stops at step %d: drawing the whole run would take more than %d elements. The tree, the results and the waits below cover the whole run.</p>\n", sc.limit, ElementsMax)
	}
	var div *uint64
	if p.Diff != nil && p.Diff.Div != nil {
		div = &p.Diff.Div.Step
	}
	for i := range p.Runs {
		pw.runTimeline(&p.Runs[i], sc, div, i == 0)
	}
	pw.raw("</section>\n")
}

// lanes is the lane layout of one run.
type lanes struct {
	workers, tasks, nurseries int // counts drawn
	tasksHidden               int
}

func (l lanes) total() int { return l.workers + l.tasks + l.nurseries }
func (l lanes) workerY(w int) float64 {
	return float64(axisH + w*(laneH+laneGap))
}
func (l lanes) taskY(t int) float64 { return l.workerY(l.workers + t) }
func (l lanes) nurseryY(n int) float64 {
	return l.workerY(l.workers + l.tasks + n)
}

func (pw *pageWriter) runTimeline(r *Run, sc scale, div *uint64, first bool) {
	m := r.Model
	l := lanes{workers: len(m.Workers), tasks: min(len(m.Tasks), TaskLanesMax), nurseries: min(len(m.Nurseries), TaskLanesMax)}
	l.tasksHidden = len(m.Tasks) - l.tasks
	h := int(l.workerY(l.total())) + 4
	pw.printf("<div class=\"run\"><h3>%s</h3>\n", esc(runTitle(r)))
	if l.tasksHidden > 0 {
		pw.printf("<p class=\"cut\">%d of %d tasks have a lane (at most %d); the tree lists them all.</p>\n", l.tasks, len(m.Tasks), TaskLanesMax)
	}
	pw.printf("<div class=\"tl\"><svg class=\"labels\" width=\"210\" height=\"%d\">", h)
	pw.laneLabels(m, l)
	pw.printf("</svg><div class=\"scroll\"><svg class=\"plot\" data-steps=\"%d\" width=\"%s\" height=\"%d\">", sc.steps, num(sc.x(sc.steps)+20), h)
	pw.raw("<defs><marker id=\"arrowhead\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L6,3 L0,6 z\"/></marker></defs>")
	pw.axis(sc, h)
	pw.slicesOf(m, l, sc)
	pw.blocksOf(m, l, sc)
	pw.nurseriesOf(m, l, sc)
	pw.arrowsOf(m, l, sc)
	pw.chanOpsOf(m, l, sc)
	if div != nil {
		id := ""
		if first {
			id = " id=\"divergence\""
		}
		pw.printf("<line%s class=\"divergence\" data-s=\"%d\" x1=\"%s\" x2=\"%s\" y1=\"0\" y2=\"%d\"><title>first divergence: step %d</title></line>", id, *div, num(sc.x(*div)), num(sc.x(*div)), h, *div)
		pw.printf("<text class=\"divergence-label\" data-a=\"%d\" x=\"%s\" y=\"%d\">first divergence (step %d)</text>", *div, num(sc.x(*div)+3), axisH-2, *div)
	}
	pw.raw("</svg></div></div></div>\n")
}

func (pw *pageWriter) laneLabels(m *Model, l lanes) {
	label := func(y float64, class, text string) {
		pw.printf("<text class=\"%s\" x=\"4\" y=\"%s\">%s</text>", class, num(y+laneH-5), esc(clip(text, 30)))
	}
	for i, w := range m.Workers {
		label(l.workerY(i), "lane lane-worker", "worker "+w)
	}
	for i := range l.tasks {
		label(l.taskY(i), "lane lane-task", m.Tasks[i].Label())
	}
	for i := range l.nurseries {
		n := m.Nurseries[i]
		label(l.nurseryY(i), "lane lane-nursery", "nursery "+n.ID+" "+n.Label)
	}
}

// axis draws a tick line and its step every few steps.
func (pw *pageWriter) axis(sc scale, h int) {
	every := uint64(1)
	for float64(every)*sc.px < 80 {
		every *= 10
		if float64(every/2)*sc.px >= 80 {
			every /= 2
			break
		}
	}
	for s := uint64(0); s < sc.steps; s += every {
		pw.printf("<line class=\"tick\" data-s=\"%d\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" data-a=\"%d\" x=\"%s\" y=\"12\">%d</text>",
			s, num(sc.x(s)), num(sc.x(s)), axisH-6, h, s, num(sc.x(s)+2), s)
	}
}

// slicesOf draws each slice twice: on its worker's lane and on its
// task's.
func (pw *pageWriter) slicesOf(m *Model, l lanes, sc scale) {
	for _, s := range m.Slices {
		if s.First >= sc.limit {
			break
		}
		end := min(s.Last+1, sc.limit)
		t := m.Tasks[s.Task]
		title := fmt.Sprintf("%s on %s, steps %d-%d", t.Label(), m.Workers[s.Worker], s.First, s.Last)
		fill := color(s.Task)
		pw.rect("slice", l.workerY(s.Worker), s.First, end, sc, fill, title)
		if s.Task < l.tasks {
			pw.rect("slice", l.taskY(s.Task), s.First, end, sc, fill, title)
		}
	}
}

func (pw *pageWriter) blocksOf(m *Model, l lanes, sc scale) {
	for ti := range l.tasks {
		t := m.Tasks[ti]
		for _, b := range t.Blocks {
			if b.From >= sc.limit {
				break
			}
			how := "woken at step " + fmt.Sprint(b.To)
			if !b.Woken {
				how = "never woken"
			}
			title := fmt.Sprintf("%s blocked on %s from step %d, %s", t.Label(), b.On, b.From, how)
			pw.rect("blocked", l.taskY(ti)+laneH/3, b.From+1, max(min(b.To, sc.limit), b.From+1), sc, "", title)
		}
		if t.Result != "" && t.Done < sc.limit {
			pw.printf("<text class=\"result\" data-a=\"%d\" x=\"%s\" y=\"%s\">%s</text>", t.Done+1, num(sc.x(t.Done+1)+2), num(l.taskY(ti)+laneH-5), esc(clip(t.Result, 40)))
		}
	}
}

func (pw *pageWriter) nurseriesOf(m *Model, l lanes, sc scale) {
	for i := range l.nurseries {
		n := m.Nurseries[i]
		if n.Open >= sc.limit {
			continue
		}
		owner := "?"
		if n.Owner >= 0 {
			owner = m.Tasks[n.Owner].Label()
		}
		title := fmt.Sprintf("nursery %s %s (%s), owner %s, steps %d-%d, %s", n.ID, n.Label, n.Mode, owner, n.Open, n.End, orOpen(n.Outcome))
		pw.rect("nursery", l.nurseryY(i), n.Open, max(min(n.End+1, sc.limit), n.Open+1), sc, "", title)
	}
}

func orOpen(outcome string) string {
	if outcome == "" {
		return "never ended"
	}
	return "outcome " + outcome
}

func (pw *pageWriter) arrowsOf(m *Model, l lanes, sc scale) {
	for _, a := range m.Arrows {
		if a.Step >= sc.limit {
			break
		}
		if a.To >= l.tasks || a.From >= l.tasks {
			continue
		}
		from := float64(0)
		what := "spawn"
		if a.From >= 0 {
			from = l.taskY(a.From) + laneH/2
		}
		if a.Kind == "wake" {
			what = "wake"
		}
		to := l.taskY(a.To) + laneH/2
		if to > from {
			to -= laneH / 2
		} else {
			to += laneH / 2
		}
		x := sc.x(a.Step) + sc.px/2
		by := "the driver"
		if a.From >= 0 {
			by = m.Tasks[a.From].Label()
		}
		pw.printf("<line class=\"arrow %s\" data-s=\"%s\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" marker-end=\"url(#arrowhead)\"><title>%s %s by %s at step %d</title></line>",
			what, num(float64(a.Step)+0.5), num(x), num(x), num(from), num(to), what, esc(m.Tasks[a.To].Label()), esc(by), a.Step)
	}
}

// chanOpsOf marks each completed channel operation on its task's lane:
// a small triangle, up for a send, down for a receive.
func (pw *pageWriter) chanOpsOf(m *Model, l lanes, sc scale) {
	for _, c := range m.ChanOps {
		if c.Step >= sc.limit {
			break
		}
		if c.Task >= l.tasks {
			continue
		}
		peer := ""
		if c.Peer >= 0 {
			peer = " with " + m.Tasks[c.Peer].Label()
		}
		title := fmt.Sprintf("%s: %s %s%s at step %d (%s)", m.Tasks[c.Task].Label(), c.Op, c.Chan, peer, c.Step, c.Via)
		pw.printf("<text class=\"chanop %s\" data-a=\"%s\" x=\"%s\" y=\"%s\">%s<title>%s</title></text>",
			esc(c.Op), num(float64(c.Step)+0.2), num(sc.x(c.Step)+sc.px*0.2+2), num(l.taskY(c.Task)+laneH-4), chanGlyph(c.Op), esc(title))
	}
}

func chanGlyph(op string) string {
	if op == "send" {
		return "▲"
	}
	return "▼"
}

// rect draws [a, b) steps at y.
func (pw *pageWriter) rect(class string, y float64, a, b uint64, sc scale, fill, title string) {
	style := ""
	if fill != "" {
		style = " fill=\"" + fill + "\""
	}
	h := float64(laneH)
	if class == "blocked" {
		h = laneH / 3
	}
	pw.printf("<rect class=\"%s\" data-a=\"%d\" data-b=\"%d\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"%s><title>%s</title></rect>",
		class, a, b, num(sc.x(a)), num(y), num(max(sc.x(b)-sc.x(a), 1)), num(h), style, esc(title))
}

// color gives each task a hue of its own (the golden angle spreads them).
func color(task int) string {
	return fmt.Sprintf("hsl(%d,65%%,55%%)", (task*137)%360)
}

// num writes a coordinate with at most two decimals.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// clip shortens a label to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
