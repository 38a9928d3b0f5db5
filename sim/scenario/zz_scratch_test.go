package scenario
import ("testing";"path/filepath";"fmt")
func TestScratch(t *testing.T){
 fs,_ := filepath.Glob("../../scenarios/*.toml")
 for _, f := range fs { s, err := Load(f); if err != nil { t.Error(err); continue }; fmt.Println(f, s.Name, len(s.TaskNames), s.Expect.NurseryLabels, s.Tasks["main"].Ops[0].Line, s.Tasks["main"].Ops[0].Col) }
}
