package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/sim/ci"
)

// The campaign recipes of docs/ci.md, run here as far as this machine
// allows: TestCIRecipes parses .github/workflows/fuzz.yml and
// deploy/k8s/fuzz-job.yaml, runs the commands they run with cbcsim built
// from this tree, once per shard with the environment GitHub Actions or
// Kubernetes sets, then the merge, and compares the merged reports with
// the unsharded run. The seed counts are overridden (recipeSeeds) so that
// it stays cheap in `make test`; everything else is the files' own.

// recipeSeeds replaces the recipes' seed counts.
var recipeSeeds = map[string]string{"CHECK_SEEDS": "2", "FUZZ_SEEDS": "40"}

type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		Strategy struct {
			Matrix map[string][]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

type k8sJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Name string `yaml:"name"`
					Env  []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// recipeDir is a work directory laid out as a checkout after `make
// build`: bin/cbcsim built from this tree, scenarios/ the bundled ones.
func recipeDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cbcsim and runs the recipes")
	}
	bin := builtBinary(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "cbcsim")); err != nil {
		t.Fatal(err)
	}
	scenarios, err := filepath.Abs("../../scenarios")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(scenarios, filepath.Join(dir, "scenarios")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// built is cbcsim built from this tree once per test process: the tests
// that run the binary (the recipes, the interruptions) share it
// read-only, and testkit.BuildCbcsim links it only when a source changed
// since the last test run. TestMain removes it.
var built struct {
	once sync.Once
	bin  string
	err  error
}

// builtBinary builds cbcsim on its first call and returns its path.
func builtBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() { built.bin, built.err = testkit.BuildCbcsim("") })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	os.Exit(code)
}

// sh runs script with /bin/sh -c in dir, with only the environment given
// (and PATH, with dir/bin first), as a CI step or a container runs it.
func sh(t *testing.T, dir, script string, env map[string]string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + filepath.Join(dir, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	slices.Sort(cmd.Env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s\nenv %v: %v\n%s", script, env, err, out)
	}
}

// withSeeds is env with the seed counts of recipeSeeds.
func withSeeds(env map[string]string) map[string]string {
	for k, v := range recipeSeeds {
		if _, ok := env[k]; ok {
			env[k] = v
		}
	}
	return env
}

func TestCIRecipesGitHubActions(t *testing.T) {
	t.Parallel()
	var wf workflow
	readYAML(t, "../../.github/workflows/fuzz.yml", &wf)
	dir := recipeDir(t)
	shardJob, mergeJob := wf.Jobs["shard"], wf.Jobs["merge"]
	if len(shardJob.Steps) == 0 || len(mergeJob.Steps) == 0 || mergeJob.Needs != "shard" {
		t.Fatalf("the workflow needs a job shard and a job merge that needs it: %+v", wf.Jobs)
	}
	shards := shardJob.Strategy.Matrix["shard"]
	if len(shards) < 2 {
		t.Fatalf("the matrix has shards %v", shards)
	}
	// What GitHub Actions substitutes in the job's env.
	for i, k := range shards {
		if fmt.Sprint(k) != strconv.Itoa(i+1) {
			t.Fatalf("matrix.shard is %v: want 1..N, as --shard auto reads SHARD_INDEX", shards)
		}
		env := withSeeds(maps(wf.Env, shardJob.Env))
		for name, v := range env {
			v = strings.ReplaceAll(v, "${{ matrix.shard }}", fmt.Sprint(k))
			v = strings.ReplaceAll(v, "${{ strategy.job-total }}", strconv.Itoa(len(shards)))
			if strings.Contains(v, "${{") {
				t.Fatalf("env %s = %q: an expression this test does not know", name, v)
			}
			env[name] = v
		}
		runSteps(t, dir, "shard", shardJob.Steps, env)
	}
	// The artifacts of every shard are in dir/out already, as the merge
	// job's download-artifact with merge-multiple leaves them.
	runSteps(t, dir, "merge", mergeJob.Steps, withSeeds(maps(wf.Env, mergeJob.Env)))

	env := withSeeds(maps(wf.Env))
	sh(t, dir, `cbcsim check scenarios --seeds "$CHECK_SEEDS" --out whole-repro --json whole/check.json`, env)
	sh(t, dir, `cbcsim fuzz --seeds "$FUZZ_SEEDS" --out whole-repro --json whole/fuzz.json`, env)
	for _, tool := range []string{"check", "fuzz"} {
		merged, whole := readReport(t, dir, "out/merged/"+tool+".json"), readReport(t, dir, "whole/"+tool+".json")
		if merged.Runs != whole.Runs || merged.Failed != whole.Failed || whole.Runs == 0 || len(merged.Shards) != len(shards) {
			t.Errorf("%s: merged %d runs, %d failed, shards %v; unsharded %d, %d", tool, merged.Runs, merged.Failed, merged.Shards, whole.Runs, whole.Failed)
		}
		if tool == "check" && !reflect.DeepEqual(merged.Cases, whole.Cases) {
			t.Errorf("check: the merged cases differ from the unsharded run's")
		}
	}
	for _, f := range []string{"out/merged/check.xml", "out/merged/fuzz.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the merge job wrote no %s", f)
		}
	}
}

// runSteps runs a job's run: steps; uses: steps are GitHub's (checkout,
// setup-go, artifacts) and the build step is what recipeDir did.
func runSteps(t *testing.T, dir, job string, steps []struct {
	Name string `yaml:"name"`
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}, env map[string]string) {
	t.Helper()
	ran := 0
	for _, s := range steps {
		switch {
		case s.Uses != "":
		case s.Run == "make build":
		case s.Run == "":
			t.Fatalf("job %s: step %q has neither uses nor run", job, s.Name)
		default:
			sh(t, dir, s.Run, env)
			ran++
		}
	}
	if ran == 0 {
		t.Fatalf("job %s runs no command", job)
	}
}

func TestCIRecipesKubernetes(t *testing.T) {
	t.Parallel()
	var job k8sJob
	readYAML(t, "../../deploy/k8s/fuzz-job.yaml", &job)
	spec := job.Spec
	if job.Kind != "Job" || spec.CompletionMode != "Indexed" || spec.Completions < 2 || len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want an Indexed Job of one container and at least 2 completions: %+v", job)
	}
	c := spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["SHARD_COUNT"] != strconv.Itoa(spec.Completions) {
		t.Fatalf("SHARD_COUNT is %q but the Job has %d completions", env["SHARD_COUNT"], spec.Completions)
	}
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 || !strings.Contains(c.Args[0], "--shard auto") {
		t.Fatalf("want command [/bin/sh -c] and one script with --shard auto: %q %q", c.Command, c.Args)
	}
	dir := recipeDir(t)
	env = withSeeds(env)
	env["OUT"] = filepath.Join(dir, "out") // the mounted volume
	var parts []string
	for i := range spec.Completions {
		env["JOB_COMPLETION_INDEX"] = strconv.Itoa(i) // what Kubernetes sets on pod i
		sh(t, dir, c.Args[0], env)
		parts = append(parts, filepath.Join(dir, "out", "reports", fmt.Sprintf("fuzz-%d.json", i)))
	}
	delete(env, "JOB_COMPLETION_INDEX")
	sh(t, dir, "cbcsim merge "+strings.Join(parts, " ")+" --json merged.json", nil)
	sh(t, dir, `cbcsim fuzz --seeds "$FUZZ_SEEDS" --out whole-repro --json whole.json`, env)
	merged, whole := readReport(t, dir, "merged.json"), readReport(t, dir, "whole.json")
	if merged.Runs != whole.Runs || merged.Failed != whole.Failed || whole.Runs == 0 || len(merged.Shards) != spec.Completions {
		t.Errorf("merged %d runs, %d failed, shards %v; unsharded %d, %d", merged.Runs, merged.Failed, merged.Shards, whole.Runs, whole.Failed)
	}
}

func readReport(t *testing.T, dir, name string) *ci.Report {
	t.Helper()
	r, err := ci.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// maps merges environment maps, later ones winning, into a new map.
func maps(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
