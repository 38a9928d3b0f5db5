package sim

import (
	"math"
	"sort"
)

// ownedEnds answers innerBeforeOuter's question about one task's own
// nurseries, "did one opened while N was open end after N?", in
// O(log k) for a task with k nurseries, instead of comparing every pair
// (a main that opens 100,000 nurseries in a loop made that minutes).
type ownedEnds struct {
	h     *history
	trees map[int64]*maxTree // per owner with two or more nurseries, built on first use
}

func newOwnedEnds(h *history) *ownedEnds {
	return &ownedEnds{h: h, trees: map[int64]*maxTree{}}
}

// openedWithinEndingAfter returns the first nursery of n's owner (in open
// order) opened after n and before n ended that ends after n or never, or
// nil. n must have ended.
func (o *ownedEnds) openedWithinEndingAfter(n *nurseryHist) *nurseryHist {
	owned := o.h.tasks[n.owner].owned
	lo := n.ownedAt + 1
	// owned is in open order, so the nurseries opened before n ended are
	// a prefix of it.
	hi := lo + sort.Search(len(owned)-lo, func(k int) bool {
		return o.h.nurseries[owned[lo+k]].openAt >= n.termAt
	})
	if lo >= hi || o.tree(n.owner, owned).max(lo, hi) <= n.termAt {
		return nil
	}
	for _, id := range owned[lo:hi] {
		if in := o.h.nurseries[id]; endsAfter(in, n) {
			return in
		}
	}
	return nil
}

func (o *ownedEnds) tree(owner int64, owned []int64) *maxTree {
	t := o.trees[owner]
	if t == nil {
		ends := make([]int, len(owned))
		for i, id := range owned {
			ends[i] = o.h.nurseries[id].termAt
			if ends[i] < 0 {
				ends[i] = math.MaxInt // never ended: after everything
			}
		}
		t = newMaxTree(ends)
		o.trees[owner] = t
	}
	return t
}

// maxTree is a segment tree answering the maximum of a fixed slice over a
// half-open range in O(log n).
type maxTree struct {
	n int
	t []int
}

func newMaxTree(vs []int) *maxTree {
	m := &maxTree{n: len(vs), t: make([]int, 2*len(vs))}
	copy(m.t[m.n:], vs)
	for i := m.n - 1; i > 0; i-- {
		m.t[i] = max(m.t[2*i], m.t[2*i+1])
	}
	return m
}

// max returns the maximum of vs[lo:hi], or math.MinInt when it is empty.
func (m *maxTree) max(lo, hi int) int {
	r := math.MinInt
	for lo, hi = lo+m.n, hi+m.n; lo < hi; lo, hi = lo/2, hi/2 {
		if lo&1 == 1 {
			r = max(r, m.t[lo])
			lo++
		}
		if hi&1 == 1 {
			hi--
			r = max(r, m.t[hi])
		}
	}
	return r
}
