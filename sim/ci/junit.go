package ci

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/cbcsim/cbcsim/internal/outfile"
)

// The JUnit XML that GitHub (test-reporter actions), GitLab
// (artifacts:reports:junit) and Jenkins (the junit step) read: the
// <testsuites>, <testsuite>, <testcase> and <failure> elements with the
// attributes all three use, and nothing else. Rejected: <properties>
// and <system-out>, which GitLab ignores and Jenkins shows apart from
// the failure; the command that reruns a failure goes in the failure's
// text, which all three show.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes r as JUnit XML: for check, a suite per scenario file
// and a test case per worker count (and per recorded run), failing when
// any of its runs failed; for fuzz, one failing test case per failure, or
// one passing case for the whole sweep when nothing failed (Jenkins
// counts a report without test cases as an error).
func (r *Report) WriteJUnit(w io.Writer) error {
	top := junitSuites{Name: "cbcsim " + r.Sweep.Tool}
	cases := r.Cases
	if r.Sweep.Tool == "fuzz" && len(cases) == 0 {
		cases = []Case{{Suite: "fuzz", Name: fmt.Sprintf("%d runs", r.Runs), Runs: r.Runs}}
	}
	failing := map[[2]string]bool{}
	for _, f := range r.Failures {
		failing[[2]string{f.Suite, f.Case}] = true
	}
	for _, c := range cases {
		if n := len(top.Suites); n == 0 || top.Suites[n-1].Name != c.Suite {
			top.Suites = append(top.Suites, junitSuite{Name: c.Suite})
		}
		s := &top.Suites[len(top.Suites)-1]
		jc := junitCase{Classname: c.Suite, Name: c.Name, Time: "0"}
		if c.Failed > 0 || failing[[2]string{c.Suite, c.Name}] {
			jc.Failure = r.junitFailure(c)
			s.Failures++
			top.Failures++
		}
		s.Cases = append(s.Cases, jc)
		s.Tests++
		top.Tests++
	}
	if r.Interrupted {
		// An interrupted sweep did not run every seed: one test case in
		// error says so, which GitHub, GitLab and Jenkins all show as not
		// passed, so that a report cut short never reads as a pass.
		top.Suites = append(top.Suites, junitSuite{Name: interruptedSuite, Tests: 1, Errors: 1, Cases: []junitCase{{
			Classname: interruptedSuite, Name: "interrupted", Time: "0",
			Error: &junitFailure{Type: "interrupted", Message: fmt.Sprintf("interrupted by a signal after %d runs: the seeds after them did not run", r.Runs)},
		}}})
		top.Tests++
		top.Errors++
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// interruptedSuite names the suite of the test case an interrupted
// sweep's report adds.
const interruptedSuite = "cbcsim"

// junitFailure is the <failure> of a failing case: the first kind of
// failure in the message, every kind with its details and command in
// the text.
func (r *Report) junitFailure(c Case) *junitFailure {
	f := &junitFailure{Type: "failure", Message: fmt.Sprintf("%d of %d runs failed", c.Failed, c.Runs)}
	var b strings.Builder
	for _, fl := range r.Failures {
		if fl.Suite != c.Suite || fl.Case != c.Name {
			continue
		}
		if b.Len() == 0 {
			f.Type = fl.Kind
			f.Message += fmt.Sprintf(": seed %d: %s", fl.Seed, fl.Kind)
		}
		fmt.Fprintf(&b, "seed %d, %d workers: %s (%d run(s) failed this way)\n", fl.Seed, fl.Workers, fl.Kind, fl.Count)
		for _, d := range fl.Details {
			fmt.Fprintf(&b, "  %s\n", d)
		}
		fmt.Fprintf(&b, "reproduce: %s\n", fl.Command)
		if fl.Trace != "" {
			fmt.Fprintf(&b, "replay:    cbcsim replay %s\n", fl.Trace)
		}
		if fl.Repro != "" {
			fmt.Fprintf(&b, "repro:     %s\n", fl.Repro)
		}
		b.WriteString("\n")
	}
	f.Text = b.String()
	return f
}

// WriteJUnitFile writes r's JUnit XML to path atomically.
func WriteJUnitFile(path string, r *Report) error {
	return outfile.WriteFile(path, r.WriteJUnit)
}
