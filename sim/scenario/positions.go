package scenario

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// position is a 1-based line and column.
type position struct{ line, col int }

// positions maps a TOML path (as keyPath and indexPath spell it) to where it
// is written: a key's first character, or an array element's first character
// (an inline table's "{"). A path written several times (a dotted key that
// opens an implicit table, say) keeps its first place in at; byPos keeps
// every place, so that a library error that gives only a position (and the
// last part of a key) can be given its full path.
type positions struct {
	at    map[string]position
	byPos map[position]string
}

// indexPositions walks src with go-toml's unstable parser. It is called only
// on a document the decoder has accepted, so a parser error is not expected;
// if one happens anyway, the positions found so far are kept and the rest of
// the messages simply have no line and column.
func indexPositions(src []byte) positions {
	idx := positions{at: map[string]position{}, byPos: map[position]string{}}
	lines := lineStarts(src)
	var p unstable.Parser
	p.Reset(src)
	ix := indexer{idx: idx, lines: lines, p: &p, arrays: map[string]int{}}
	for p.NextExpression() {
		ix.expression(p.Expression())
	}
	return idx
}

type indexer struct {
	idx    positions
	lines  []int
	p      *unstable.Parser
	table  string         // path of the current [table] or [[array table]] element
	arrays map[string]int // [[array table]] path -> elements seen so far
}

func (ix *indexer) at(r unstable.Range) position {
	off := int(r.Offset)
	// lines[i] is the offset where line i+1 starts; find the last start <= off.
	i := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return position{line: i + 1, col: off - ix.lines[i] + 1}
}

// maxIndexedPath bounds the paths the index records and descends into. Real
// paths are short (64 nested bodies make a path of a few hundred bytes);
// without a bound, a dotted key of a hundred thousand parts would make
// indexing quadratic. Deeper places simply report their nearest indexed
// ancestor's position.
const maxIndexedPath = 4096

func (ix *indexer) set(path string, pos position) {
	if _, ok := ix.idx.at[path]; !ok {
		ix.idx.at[path] = pos
	}
	if _, ok := ix.idx.byPos[pos]; !ok {
		ix.idx.byPos[pos] = path
	}
}

func (ix *indexer) expression(e *unstable.Node) {
	if e == nil {
		return
	}
	switch e.Kind {
	case unstable.Table, unstable.ArrayTable:
		path := ""
		var first position // where the header's name starts
		it := e.Key()
		for n := 0; it.Next(); n++ {
			k := it.Node()
			if n == 0 {
				first = ix.at(k.Raw)
			}
			path = keyPath(path, string(k.Data))
			if len(path) > maxIndexedPath {
				ix.table = path // too deep to index: its key-values are skipped
				return
			}
			ix.set(path, ix.at(k.Raw))
			// A later part of the header lives in the last element of an
			// array table named by an earlier part: [[a]] then [a.b].
			if n, ok := ix.arrays[path]; ok && !(it.IsLast() && e.Kind == unstable.ArrayTable) {
				path = indexPath(path, n-1)
			}
			if it.IsLast() && e.Kind == unstable.ArrayTable {
				n := ix.arrays[path]
				ix.arrays[path] = n + 1
				elem := indexPath(path, n)
				ix.set(elem, first)
				path = elem
			}
		}
		ix.table = path
	case unstable.KeyValue:
		if len(ix.table) <= maxIndexedPath {
			ix.keyValue(ix.table, e)
		}
	}
}

// keyValue indexes `key = value` found in the table at parent.
func (ix *indexer) keyValue(parent string, kv *unstable.Node) {
	path := parent
	it := kv.Key()
	for it.Next() {
		k := it.Node()
		path = keyPath(path, string(k.Data))
		if len(path) > maxIndexedPath {
			return
		}
		ix.set(path, ix.at(k.Raw))
	}
	ix.value(path, kv.Value())
}

func (ix *indexer) value(path string, v *unstable.Node) {
	if v == nil || len(path) > maxIndexedPath {
		return
	}
	switch v.Kind {
	case unstable.Array:
		i := 0
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			elem := indexPath(path, i)
			if pos, ok := ix.start(c); ok {
				ix.set(elem, pos)
			}
			ix.value(elem, c)
			i++
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.KeyValue {
				ix.keyValue(path, c)
			}
		}
	}
}

// start returns where value v begins. Arrays carry no range in the unstable
// AST, so an array begins where its first element does (close enough for a
// message: the same line, a column or two to the right).
func (ix *indexer) start(v *unstable.Node) (position, bool) {
	for v != nil {
		if v.Kind != unstable.Array {
			if v.Raw.Length == 0 {
				return position{}, false
			}
			return ix.at(v.Raw), true
		}
		v = v.Child()
	}
	return position{}, false
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lookup returns where path is written, or else where its nearest written
// ancestor is (a missing key is reported at the table that lacks it).
func (idx positions) lookup(path string) position {
	segs := splitPath(path)
	for n := len(segs); n > 0; n-- {
		if pos, ok := idx.at[strings.Join(segs[:n], "")]; ok {
			return pos
		}
	}
	// A key missing at the top level: the top-level table starts at line 1.
	return position{line: 1}
}

// isBareKey reports whether s can be written as a TOML bare key.
func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// keyPath appends key to a TOML path, quoting it when it is not a bare key.
func keyPath(parent, key string) string {
	if !isBareKey(key) {
		key = strconv.Quote(key)
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// indexPath appends an array index to a TOML path.
func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// splitPath cuts a path built by keyPath and indexPath into pieces whose
// prefixes, joined, are the ancestors of the path: "a.b[2]" gives
// ["a", ".b", "[2]"].
func splitPath(path string) []string {
	var segs []string
	i := 0
	for i < len(path) {
		start := i
		if path[i] == '.' {
			i++
		}
		switch {
		case i < len(path) && path[i] == '"':
			q, err := strconv.QuotedPrefix(path[i:])
			if err != nil {
				return append(segs, path[start:])
			}
			i += len(q)
		case i < len(path) && path[i] == '[':
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return append(segs, path[start:])
			}
			i += j + 1
		default:
			for i < len(path) && path[i] != '.' && path[i] != '[' {
				i++
			}
		}
		if i == start { // cannot happen with well-formed paths; never loop forever
			return append(segs, path[start:])
		}
		segs = append(segs, path[start:i])
	}
	return segs
}
