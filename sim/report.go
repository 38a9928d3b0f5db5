package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/cbcsim/cbcsim/sim/waits"
)

// WriteTables prints the run's summary: tasks, nurseries, workers, then every
// check with pass/fail, then the seed.
func (r *Run) WriteTables(w io.Writer) error {
	mode := "seeded"
	if r.Config.Mode.Real() {
		mode = "real"
	}
	fmt.Fprintf(w, "scenario %q  mode=%s workers=%d victim=%s profile=%s steps=%d outcome=%s main=%s\n\n",
		r.Scenario.Name, mode, r.Config.Workers, r.Config.Victim, r.Config.Profile, r.Steps, r.Outcome, r.Result)
	for _, t := range []struct {
		title  string
		header []string
		rows   [][]string
	}{
		{"Tasks", []string{"id", "name", "nursery", "result", "steps", "yields", "steals"}, r.taskRows()},
		{"\nNurseries", []string{"id", "label", "mode", "state", "result", "first error", "results"}, r.nurseryRows()},
		{"\nWorkers", []string{"worker", "steps", "runs", "pops", "global", "steals", "failed steals", "parks", "backoffs", "completed", "cancelled"}, r.workerRows()},
	} {
		if err := table(w, t.title, t.header, t.rows); err != nil {
			return err
		}
	}
	r.writeEnding(w)
	_, err := fmt.Fprintf(w, "\nseed=%d\n", r.Config.Seed)
	return err
}

// table writes one titled table.
func table(w io.Writer, title string, header []string, rows [][]string) error {
	fmt.Fprintln(w, title)
	t := tablewriter.NewTable(w, tablewriter.WithHeader(header))
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

func (r *Run) taskRows() [][]string {
	rows := make([][]string, 0, len(r.Tasks))
	for _, t := range r.Tasks {
		nursery := t.Nursery
		if nursery == "" {
			nursery = "-"
		}
		rows = append(rows, []string{"t" + u(t.ID), t.Name, nursery, t.Result, i(t.Steps), i(t.Yields), i(t.Steals)})
	}
	return rows
}

func (r *Run) nurseryRows() [][]string {
	rows := make([][]string, 0, len(r.Nurseries))
	for _, n := range r.Nurseries {
		fe := n.FirstError
		if fe == "" {
			fe = "-"
		}
		rows = append(rows, []string{"n" + u(n.ID), n.Label, n.Mode, n.State, n.Result, fe, strings.Join(n.Results, " ")})
	}
	return rows
}

func (r *Run) workerRows() [][]string {
	rows := make([][]string, 0, len(r.Workers))
	for _, wr := range r.Workers {
		s := wr.Stats
		rows = append(rows, []string{"w" + strconv.Itoa(wr.ID), i(s.Steps), i(s.Runs), i(s.Pops), i(s.Globals), i(s.Steals), i(s.StealsFailed), i(s.Parks), i(s.Backoffs), i(s.Completed), i(s.Cancelled)})
	}
	return rows
}

// writeEnding writes the limit that stopped the run, the stuck tasks and
// every check with pass or FAIL.
func (r *Run) writeEnding(w io.Writer) {
	if r.Limit != "" {
		fmt.Fprintln(w, "\nLimit: "+r.Limit)
	}
	if len(r.Stuck) > 0 {
		fmt.Fprintln(w, "\nStuck tasks")
		for _, s := range r.Stuck {
			fmt.Fprintln(w, "  "+s)
		}
	}
	if r.Waits.Stuck() {
		fmt.Fprintln(w)
		r.Waits.Write(w)
	}
	fmt.Fprintln(w, "\nChecks")
	for _, c := range r.Checks {
		mark := "pass"
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s  %-9s %s\n", mark, c.Class, c.Name)
		if !c.OK {
			fmt.Fprintf(w, "        %s\n", c.Detail)
		}
	}
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
func i(v int64) string  { return strconv.FormatInt(v, 10) }

// jsonRun is the JSON form of a run; it carries the same facts as the tables.
type jsonRun struct {
	Scenario  string       `json:"scenario"`
	Config    Config       `json:"config"`
	Outcome   Outcome      `json:"outcome"`
	Main      string       `json:"main"`
	Steps     int64        `json:"steps"`
	Passed    bool         `json:"passed"`
	Log       []string     `json:"log"`
	Tasks     []TaskRow    `json:"tasks"`
	Nurseries []NurseryRow `json:"nurseries"`
	Workers   []WorkerRow  `json:"workers"`
	Stuck     []string     `json:"stuck,omitempty"`
	Waits     []waits.Wait `json:"waits,omitempty"`
	Cycle     []string     `json:"wait_cycle,omitempty"`
	Limit     string       `json:"limit,omitempty"`
	Checks    []Check      `json:"checks"`
	Replay    string       `json:"replay"`
}

// WriteJSON prints the run as one JSON document; replay is the command that
// reproduces it.
func (r *Run) WriteJSON(w io.Writer, replay string) error {
	j := jsonRun{
		Scenario: r.Scenario.Name, Config: r.Config, Outcome: r.Outcome, Main: r.Result.String(),
		Steps: r.Steps, Passed: r.Passed(), Log: r.Log, Tasks: r.Tasks, Nurseries: r.Nurseries,
		Workers: r.Workers, Stuck: r.Stuck, Limit: r.Limit, Checks: r.Checks, Replay: replay,
	}
	if j.Log == nil {
		j.Log = []string{}
	}
	if r.Waits.Stuck() {
		j.Waits, j.Cycle = r.Waits.Waits, r.Waits.CycleNames()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}

// MarshalJSON writes the victim strategy and the profile by name, as the
// scenario format and the trace header do.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config // without this method
	return json.Marshal(struct {
		plain
		Victim  string
		Profile string
	}{plain(c), c.Victim.String(), c.Profile.String()})
}
