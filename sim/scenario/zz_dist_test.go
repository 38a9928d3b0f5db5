package scenario_test
import ("testing";"fmt";"sort";"strings";"github.com/cbcsim/cbcsim/sim";"github.com/cbcsim/cbcsim/sim/scenario")
func TestZZStress(t *testing.T){
 for _, f := range []string{"cancel_remaining","nested_cancel","inv_fail_fast_siblings","basic_completion","child_error","explicit_cancel","lifo_cleanup","fail_fast","collect_all","inv_no_orphans","inv_lifo_resources","inv_spawn_inside_nursery","inv_first_error_wins"} {
  sc, err := scenario.Load("../../scenarios/"+f+".toml"); if err != nil { t.Fatal(err) }
  bad := 0; dist := map[string]int{}
  for _, w := range []int{1,2,4,8} {
   for r := 0; r < 1300; r++ {
    o := sim.Options{Workers: w, Seed: uint64(r+1), HasSeed: true, Real: r >= 1200}
    c, err := sim.Resolve(sc, o); if err != nil { t.Fatal(err) }
    run, err := sim.Execute(sc, c, o); if err != nil { t.Fatal(err) }
    var parts []string
    for _, n := range run.Nurseries { parts = append(parts, n.Label+"="+strings.Join(n.Results, ",")) }
    dist[fmt.Sprintf("real=%v %s", o.Real, strings.Join(parts," "))]++
    if !run.Passed() { bad++; for _, ch := range run.Checks { if !ch.OK { t.Logf("%s w%d real=%v seed %d: %s %s", f, w, o.Real, r+1, ch.Name, ch.Detail) } } }
   }
  }
  keys := []string{}; for k := range dist { keys = append(keys,k) }; sort.Strings(keys)
  t.Logf("%s: %d bad", f, bad); if len(keys) < 8 { for _, k := range keys { t.Logf("    %d %s", dist[k], k) } }
 }
}
