package scenario

import (
	"math"
	"strings"
)

// This file is the decoder's walk over a body and the parts several
// operations share; each operation's own definition is in its file,
// op_NAME.go (see OpDef).

// opArgs is what a Decode function reads: the operation's table m, its
// value val at the TOML path kp, and where it sits.
type opArgs struct {
	m     map[string]any
	key   string
	val   any
	kp    string
	ctx   *bodyCtx
	depth int
}

// bodyCtx is what the decoder knows about the body it is in. A task body is
// one context; a body reached through `call` or `spawn` is another task body
// with its own context, which is why a spawn in a called task is not inside
// the caller's nursery.
type bodyCtx struct {
	task      string
	nurseries []string        // labels of the enclosing nurseries, innermost last
	as        map[string]bool // `as` names of the spawns in this task body
	recharges []rechargeSite  // checked against as when the body is done
}

type rechargeSite struct {
	target string
	path   string
}

// body decodes an array of operations.
func (d *decoder) body(v any, path string, ctx *bodyCtx, depth int) []Op {
	if d.failed() {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		d.errorf(path, "must be an array of operations like [ { compute = 10 } ], not %s", typeName(v))
		return nil
	}
	if depth > maxBodyDepth {
		d.errorf(path, "bodies are nested more than %d deep", maxBodyDepth)
		return nil
	}
	ops := make([]Op, 0, len(arr))
	for i, e := range arr {
		op := d.op(e, indexPath(path, i), ctx, depth)
		if d.failed() {
			return nil
		}
		ops = append(ops, op)
	}
	return ops
}

// op decodes one operation table at path: finds its one operation key,
// checks the other keys are that operation's options, decodes it with its
// definition's Decode, then its body.
func (d *decoder) op(v any, path string, ctx *bodyCtx, depth int) Op {
	op := Op{Path: path}
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(path, "an operation must be a table like { compute = 10 }, not %s", typeName(v))
		return op
	}
	p := d.pos.lookup(path)
	op.Line, op.Col = p.line, p.col
	key, ok := d.opKey(m, path)
	if !ok {
		return op
	}
	op.Kind = opKindOf(key)
	def := op.Kind.Def()
	if def.Since > 0 && !d.since(def.Since, keyPath(path, key), key) {
		return op
	}
	if !d.onlyOptions(m, path, key, def.Options) {
		return op
	}
	a := opArgs{m: m, key: key, val: m[key], kp: keyPath(path, key), ctx: ctx, depth: depth}
	if !def.Decode(d, &op, a) {
		return op
	}
	if b, ok := m["body"]; ok && !d.failed() {
		op.Body = d.body(b, keyPath(path, "body"), ctx, depth+1)
	}
	return op
}

// opKey returns the one operation key of the table m.
func (d *decoder) opKey(m map[string]any, path string) (string, bool) {
	var opKeys []string
	for _, k := range d.keys(m, path) {
		if opKindOf(k) != 0 {
			opKeys = append(opKeys, k)
		}
	}
	switch len(opKeys) {
	case 0:
		for _, k := range d.keys(m, path) {
			if !isOptionOfAnyOp(k) {
				d.errorf(keyPath(path, k), "unknown operation %q (want one of: %s)", k, allOpNames())
				return "", false
			}
		}
		d.errorf(path, "no operation key: a table needs exactly one of: %s", allOpNames())
		return "", false
	case 1:
		return opKeys[0], true
	}
	d.errorf(path, "several operation keys (%s): an operation table has exactly one", quoteList(opKeys))
	return "", false
}

// onlyOptions checks that every key of m but the operation key is one of
// its options.
func (d *decoder) onlyOptions(m map[string]any, path, key string, opts []string) bool {
	for _, k := range d.keys(m, path) {
		if k != key && !contains(opts, k) {
			if len(opts) == 0 {
				d.errorf(keyPath(path, k), "unknown option %q: %s takes no options", k, key)
			} else {
				d.errorf(keyPath(path, k), "unknown option %q for %s (want one of: %s)", k, key, strings.Join(opts, ", "))
			}
			return false
		}
	}
	return true
}

// decodeCount: compute, sleep, alloc, syscall take a count >= 0.
func decodeCount(d *decoder, op *Op, a opArgs) bool {
	op.N, _ = d.intIn(a.val, a.kp, 0, math.MaxInt64)
	return true
}

// decodeTrue: yield and check_cancel are written `= true`.
func decodeTrue(d *decoder, _ *Op, a opArgs) bool {
	if b, ok := d.boolean(a.val, a.kp); ok && !b {
		d.errorf(a.kp, "must be true (write %s = true, or leave the operation out)", a.key)
	}
	return true
}

// decodeChannel: send, recv and close name a declared channel.
func decodeChannel(d *decoder, op *Op, a opArgs) bool {
	if ch, ok := d.nonEmptyStr(a.val, a.kp); ok {
		op.Str = ch
		if !d.channels[ch] {
			d.errorf(op.Path, "unknown channel %q in %s (declare it under [channels])", ch, a.key)
		}
	}
	return true
}

// decodeName: defer, using and fail take a non-empty string.
func decodeName(d *decoder, op *Op, a opArgs) bool {
	op.Str, _ = d.nonEmptyStr(a.val, a.kp)
	return true
}

// decodeText: log and panic take any string.
func decodeText(d *decoder, op *Op, a opArgs) bool {
	op.Str, _ = d.str(a.val, a.kp)
	return true
}

// formatCount writes `key = N`.
func formatCount(w Formatter, op *Op) { w.Printf("%s = %d", op.Kind, op.N) }

// formatTrue writes `key = true`.
func formatTrue(w Formatter, op *Op) { w.Printf("%s = true", op.Kind) }

// needsOnce is a Need of n whatever the op.
func needsOnce(n Need) func(Coster, *Op) Need {
	return func(Coster, *Op) Need { return n }
}

// needsBody is the need of the op's body.
func needsBody(c Coster, op *Op) Need { return c.BodyNeed(op.Body) }

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = `"` + k + `"`
	}
	return strings.Join(q, ", ")
}
