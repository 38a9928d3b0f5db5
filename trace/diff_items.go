package trace

// Diff's comparison of the final results: tasks and nurseries.

import ()

// finals is what one trace says about its tasks and nurseries.
type finals struct {
	tasks    []string          // task ids, in order of first appearance
	names    map[string]string // task id -> name, from its spawn event
	results  map[string]string // task id -> its last result
	nurs     []string          // nursery ids with an outcome, in order
	labels   map[string]string // nursery id -> label
	outcomes map[string]string // nursery id -> its last outcome
}

func finalsOf(t *Trace) *finals {
	f := &finals{names: map[string]string{}, results: map[string]string{},
		labels: map[string]string{}, outcomes: map[string]string{}}
	seen := map[string]bool{}
	for i := range t.Events {
		e := &t.Events[i]
		if id, ok := get(e, "task"); ok {
			if !seen[id] {
				seen[id] = true
				f.tasks = append(f.tasks, id)
			}
			if e.Kind == KindSpawn {
				if name, ok := get(e, "name"); ok {
					f.names[id] = name
				}
			}
			if e.Kind == KindResult {
				if r, ok := get(e, "result"); ok {
					f.results[id] = r
				} else {
					f.results[id] = fieldsText(e, "task")
				}
			}
		}
		if e.Kind == KindNursery {
			id, ok := get(e, "nursery")
			if _, isOutcome := get(e, "outcome"); ok && isOutcome {
				if _, had := f.outcomes[id]; !had {
					f.nurs = append(f.nurs, id)
				}
				f.outcomes[id] = fieldsText(e, "nursery", "label", "task")
				if l, ok := get(e, "label"); ok {
					f.labels[id] = l
				}
			}
		}
	}
	return f
}

// diffItems fills Results, OnlyA, OnlyB and Nurseries.
func (d *DiffResult) diffItems(a, b *Trace) {
	fa, fb := finalsOf(a), finalsOf(b)
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, id := range fa.tasks {
		inA[id] = true
	}
	for _, id := range fb.tasks {
		inB[id] = true
	}
	task := func(id string) ItemDiff {
		name := fa.names[id]
		if name == "" {
			name = fb.names[id]
		}
		return ItemDiff{ID: id, Name: name, A: fa.results[id], B: fb.results[id]}
	}
	for _, id := range fa.tasks {
		if !inB[id] {
			d.OnlyA = append(d.OnlyA, task(id))
			continue
		}
		ra, okA := fa.results[id]
		rb, okB := fb.results[id]
		if ra != rb || okA != okB {
			d.Results = append(d.Results, task(id))
		}
	}
	for _, id := range fb.tasks {
		if !inA[id] {
			d.OnlyB = append(d.OnlyB, task(id))
		}
	}
	seen := map[string]bool{}
	for _, ids := range [2][]string{fa.nurs, fb.nurs} {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			oa, okA := fa.outcomes[id]
			ob, okB := fb.outcomes[id]
			if oa == ob && okA == okB {
				continue
			}
			label := fa.labels[id]
			if label == "" {
				label = fb.labels[id]
			}
			d.Nurseries = append(d.Nurseries, ItemDiff{ID: id, Name: label, A: oa, B: ob})
		}
	}
}
