package scenario
import ("testing";"strings";"time";"fmt")
func TestZZPerf(t *testing.T){
 cases := map[string]string{
  "arraytables": "version = 1\n" + strings.Repeat("[[task.main.ops]]\ncompute = 1\n", 40000),
  "inline": "version = 1\n[task.main]\nops = [" + strings.Repeat("{ compute = 1 },", 80000) + "]\n",
  "manykeys": "version = 1\n[task.main]\nops=[]\n[expect]\n" + strings.Repeat("", 0) + func() string { var b strings.Builder; for i := 0; i < 50000; i++ { fmt.Fprintf(&b, "k%d = 1\n", i) }; return b.String() }(),
  "manytasks": "version = 1\n[task.main]\nops=[{call=\"t0\"}]\n" + func() string { var b strings.Builder; for i := 0; i < 20000; i++ { fmt.Fprintf(&b, "[task.t%d]\nops=[{call=\"t%d\"}]\n", i, i+1) }; fmt.Fprintf(&b, "[task.t20000]\n"); return b.String() }(),
  "deeparray": "version = 1\n[task.main]\nops = " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n",
  "deepinline": "version = 1\n[task.main]\nops = [" + strings.Repeat("{ loop = 1, body = [", 3000) + strings.Repeat("]}", 3000) + "]\n",
  "longpath": "version = 1\n" + "a" + strings.Repeat(".a", 100000) + " = 1\n",
 }
 for name, src := range cases {
  start := time.Now()
  _, err := Parse(name, []byte(src))
  msg := ""; if err != nil { msg = err.Error(); if len(msg) > 120 { msg = msg[:120] } }
  t.Logf("%-12s %7d bytes %v  %s", name, len(src), time.Since(start), msg)
 }
}
