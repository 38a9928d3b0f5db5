package scenario_test
import ("testing";"path/filepath";"github.com/cbcsim/cbcsim/sim";"github.com/cbcsim/cbcsim/sim/scenario")
func TestZZStress(t *testing.T){
 fs,_ := filepath.Glob("../../scenarios/*.toml")
 for _, f := range fs {
  sc, err := scenario.Load(f); if err != nil { t.Fatal(err) }
  bad := 0
  for _, w := range []int{1,2,4,8} {
   for r := 0; r < 100; r++ {
    o := sim.Options{Workers: w, Real: true}
    c, err := sim.Resolve(sc, o); if err != nil { t.Fatal(err) }
    run, err := sim.Execute(sc, c, o); if err != nil { t.Fatal(err) }
    if !run.Passed() { bad++; for _, ch := range run.Checks { if !ch.OK { t.Logf("%s w%d: %s %s", f, w, ch.Name, ch.Detail) } } }
   }
   for seed := uint64(1000); seed < 1500; seed++ {
    o := sim.Options{Workers: w, Seed: seed, HasSeed: true}
    c, _ := sim.Resolve(sc, o)
    run, err := sim.Execute(sc, c, o); if err != nil { t.Fatal(err) }
    if !run.Passed() { bad++; for _, ch := range run.Checks { if !ch.OK { t.Logf("%s seed %d w%d: %s %s", f, seed, w, ch.Name, ch.Detail) } } }
   }
  }
  t.Logf("%s: %d bad", f, bad)
 }
}
