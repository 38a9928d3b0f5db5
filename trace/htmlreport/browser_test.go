package htmlreport_test

// The pages rendered by a real browser: headless Chromium dumps the DOM
// after the page's script ran and takes a screenshot. The test skips when
// no Chromium is installed; `make chromium` installs Debian's, and CI
// (.ci/run -> make test) runs it where it is present (docs/report.md).

import (
	"bytes"
	"context"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/trace"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// chromium finds the browser: $CHROMIUM, or chromium or chromium-browser
// on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (make chromium installs it): the pages are not rendered in a browser")
	return ""
}

// render runs headless Chromium on the page at path with the extra
// flags and returns its stdout. The deadline bounds a browser that hangs;
// no result depends on how fast it is.
func render(t *testing.T, browser, path string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir=" + t.TempDir(),
		// No network: a page that needed any would render without it.
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"}, flags...)
	args = append(args, "file://"+path)
	cmd := exec.CommandContext(ctx, browser, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func TestBrowserRendersFailingRun(t *testing.T) {
	t.Parallel() // independent: its own page and browser
	browser := chromium(t)
	tr := load(t, "lock-order-deadlock.trace")
	p := htmlreport.ForTraces([]string{"run.trace"}, []*trace.Trace{tr})
	path := filepath.Join(t.TempDir(), "report.html")
	if err := htmlreport.WriteFile(path, p); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := SelfContained(string(src)); err != nil {
		t.Fatal(err)
	}
	dom := renderAndShoot(t, browser, path)
	if !strings.Contains(dom, `data-script="ok"`) {
		t.Error("the page's script did not run to its end")
	}
	m := p.Runs[0].Model
	if n := strings.Count(dom, `class="lane lane-worker"`); n != len(m.Workers) {
		t.Errorf("%d worker lanes in the DOM, want %d", n, len(m.Workers))
	}
	if n := strings.Count(dom, `class="lane lane-task"`); n != len(m.Tasks) {
		t.Errorf("%d task lanes in the DOM, want %d", n, len(m.Tasks))
	}
	for _, task := range m.Tasks {
		if !strings.Contains(dom, ">"+html.EscapeString(task.Label())+"<") {
			t.Errorf("task %q is not in the DOM", task.Label())
		}
	}
	for _, s := range []string{`class="slice"`, `class="waitgraph"`, `class="wait-edge cycle"`, "outcome=deadlock", "wait-for cycle: a_to_b -&gt; b_to_a -&gt; a_to_b"} {
		if !strings.Contains(dom, s) {
			t.Errorf("the DOM lacks %s", s)
		}
	}
}

func TestBrowserRendersDiff(t *testing.T) {
	t.Parallel() // independent: its own page and browser
	browser := chromium(t)
	a, b := load(t, "rendezvous.trace"), load(t, "rendezvous-seed4.trace")
	path := filepath.Join(t.TempDir(), "diff.html")
	if err := htmlreport.WriteFile(path, htmlreport.ForTraces([]string{"A", "B"}, []*trace.Trace{a, b})); err != nil {
		t.Fatal(err)
	}
	dom := renderAndShoot(t, browser, path)
	for _, s := range []string{`id="divergence"`, "first divergence (step", "First divergence at step", "t2 ping", "t3 pong"} {
		if !strings.Contains(dom, s) {
			t.Errorf("the DOM lacks %q", s)
		}
	}
	if n := strings.Count(dom, `class="lane lane-worker"`); n != 4 {
		t.Errorf("%d worker lanes, want 4 (two runs of 2 workers)", n)
	}
}

// renderAndShoot renders the page once, as a user's window shows it,
// and returns its DOM after the page's script ran; it checks that the
// screenshot of the same rendering shows something: a PNG with more than
// a few colours. One browser launch a page: starting Chromium is most of
// what this test costs.
func renderAndShoot(t *testing.T, browser, path string) string {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	dom := string(render(t, browser, path, "--dump-dom", "--screenshot="+shot, "--window-size=1400,1000", "--hide-scrollbars"))
	checkScreenshot(t, shot)
	return dom
}

// checkScreenshot checks that the PNG at shot shows something.
func checkScreenshot(t *testing.T, shot string) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 4 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 4 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("the screenshot has %d colours: the page did not render", len(colours))
	}
	if dir := os.Getenv("HTMLREPORT_SHOTS"); dir != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(filepath.Join(dir, t.Name()+".png"), data, 0o644)
	}
}
