package sim

import (
	"bytes"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// splitDiff is the comparison replay made before it compared as it wrote:
// both traces split whole into lines. cmpWriter must agree with it.
func splitDiff(a, b []byte, n int) (line int, la, lb string, ctx []string) {
	as, bs := bytes.SplitAfter(a, []byte("\n")), bytes.SplitAfter(b, []byte("\n"))
	text := func(x []byte) string {
		if x == nil {
			return endOfFile
		}
		return string(bytes.TrimSuffix(x, []byte("\n")))
	}
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y []byte
		if i < len(as) && len(as[i]) > 0 {
			x = as[i]
		}
		if i < len(bs) && len(bs[i]) > 0 {
			y = bs[i]
		}
		if bytes.Equal(x, y) {
			continue
		}
		for j := max(0, i-n); j < i; j++ {
			ctx = append(ctx, text(as[j]))
		}
		return i + 1, text(x), text(y), ctx
	}
	return 0, "", "", nil
}

func TestCmpWriterMatchesSplitDiff(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		lines := rapid.SliceOfN(rapid.StringMatching(`[ab]{1,3}`), 0, 6)
		join := func(ls []string) []byte {
			var b bytes.Buffer
			for _, l := range ls {
				b.WriteString(l + "\n")
			}
			return b.Bytes()
		}
		a, b := join(lines.Draw(t, "a")), join(lines.Draw(t, "b"))
		n := rapid.IntRange(0, 3).Draw(t, "context")
		c := &cmpWriter{want: a}
		for rest := b; len(rest) > 0; {
			k := rapid.IntRange(1, len(rest)).Draw(t, "chunk")
			c.Write(rest[:k])
			rest = rest[k:]
		}
		line, la, lb, ctx := c.result(n)
		wl, wa, wb, wctx := splitDiff(a, b, n)
		if line != wl || la != wa || lb != wb || !reflect.DeepEqual(ctx, wctx) {
			t.Fatalf("cmpWriter: %d %q %q %q; split: %d %q %q %q", line, la, lb, ctx, wl, wa, wb, wctx)
		}
	})
}
