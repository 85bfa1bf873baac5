package adaptertest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/record"
)

// OwnRequests proves a query suite's own requests on a database through
// the bench binary. The suite runs the family Q4 (an aggregate over a time
// range) and a variant Own of the same family whose own request, in the
// database's language, is the statement tsbench sends for Q4 written with
// placeholders (Request): with the same parameters its answers must hold
// exactly Q4's points, in every round, with none failed. --dry-run shows
// Own's first request filled, and the record keeps it as sent; with
// CHECK_ANSWERS Q4's answers are checked and Own's, which no model knows,
// are not; two runs compare with a row for Own.
type OwnRequests struct {
	Dir      string   // working directory (the repository root)
	Config   string   // config file, relative to Dir
	Sets     []string // KEY=VALUE for every run: the server, DB_NAME, a small workload with query rounds
	Language string   // the request line's language ("iotdb", "sqlite"…)
	Request  string   // Q4's statement with placeholders, one sensor and QUERY_AGGREGATE_FUN's aggregate
}

// Run runs the suite twice and checks the runs.
func (o OwnRequests) Run(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	bin := Binary(t, tmp)
	suite := filepath.Join(tmp, "own.suite")
	if err := os.WriteFile(suite, []byte("Q4 Q4\nOwn Q4\n    "+o.Language+": "+o.Request+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(tmp, "results")
	bench := func(args ...string) (string, int) {
		return RunBench(bin, o.Dir, nil, args...)
	}
	run := func(extra ...string) []string {
		args := []string{"run", "-c", o.Config, "--set", "QUERY_SUITE=" + suite, "--set", "RESULTS_DIR=" + results, "--set", "CHECK_ANSWERS=true"}
		for _, s := range o.Sets {
			args = append(args, "--set", s)
		}
		return append(args, extra...)
	}

	t.Cleanup(func() {
		// The data go when the test ends: a server's regions and indices
		// are shared by the package's tests.
		args := []string{"clean", "-c", o.Config}
		for _, s := range o.Sets {
			args = append(args, "--set", s)
		}
		bench(args...)
	})
	out, code := bench(run("--dry-run")...)
	const shown = "Request of Own (its own, "
	i := strings.Index(out, shown)
	if code != 0 || i < 0 {
		t.Fatalf("--dry-run: exit %d, no %q line:\n%s", code, shown, out)
	}
	line, _, _ := strings.Cut(out[i:], "\n")
	_, first, _ := strings.Cut(line, "answers counted, not checked): ")
	for _, ph := range queries.Placeholders {
		if strings.Contains(first, "{"+ph+"}") || first == "" {
			t.Fatalf("--dry-run shows the request unfilled: %s", line)
		}
	}
	t.Logf("Own's first request: %s", first)

	for _, label := range []string{"own-1", "own-2"} {
		if out, code := bench(run("--label", label)...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", label, code, out)
		}
	}
	recs, damaged := record.Store{Dir: results}.List()
	if len(damaged) > 0 || len(recs) != 2 {
		t.Fatalf("%d records: %v", len(recs), damaged)
	}
	for _, rec := range recs {
		rounds := map[int]map[string][2]int64{} // round → variant → ok ops, ok points
		for _, ph := range rec.Phases {
			if ph.Name != "query" {
				continue
			}
			for _, op := range ph.Operations {
				if op.FailOps > 0 || op.OKOps == 0 {
					t.Errorf("%s round %d %s: %d ok, %d failed", rec.Label, ph.Round, op.Operation, op.OKOps, op.FailOps)
				}
				switch {
				case op.Operation == "Own" && op.AnswersChecked != 0:
					t.Errorf("%s round %d: Own's answers were checked (%d): no model knows them", rec.Label, ph.Round, op.AnswersChecked)
				case op.Operation == "Q4" && (op.AnswersChecked == 0 || op.AnswersWrong != 0):
					t.Errorf("%s round %d: Q4 %d answers checked, %d wrong", rec.Label, ph.Round, op.AnswersChecked, op.AnswersWrong)
				}
				if rounds[ph.Round] == nil {
					rounds[ph.Round] = map[string][2]int64{}
				}
				rounds[ph.Round][op.Operation] = [2]int64{op.OKOps, op.OKPoints}
			}
			switch ph.Variant {
			case "Own":
				if len(ph.Requests) == 0 || ph.Requests[0] != first {
					t.Errorf("%s round %d: the record keeps %q, --dry-run showed %q", rec.Label, ph.Round, ph.Requests, first)
				}
			default:
				if ph.Requests != nil {
					t.Errorf("%s round %d %s: requests %q kept for a family's query", rec.Label, ph.Round, ph.Variant, ph.Requests)
				}
			}
		}
		if len(rounds) == 0 {
			t.Fatalf("%s has no query rounds", rec.Label)
		}
		for r, ops := range rounds {
			if ops["Own"] != ops["Q4"] || ops["Q4"][1] == 0 {
				t.Errorf("%s round %d: Own %v (ops, points), Q4 %v: the same statement must answer the same points", rec.Label, r, ops["Own"], ops["Q4"])
			} else {
				t.Logf("%s round %d: Own and Q4 %d queries, %d points each", rec.Label, r, ops["Q4"][0], ops["Q4"][1])
			}
		}
	}

	cmp := exec.Command(bin, "compare", "own-1", "own-2", "--results", results, "--format", "json")
	cmp.Dir = o.Dir
	cout, err := cmp.Output()
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, cout)
	}
	var c struct {
		Rows []struct {
			Operation string `json:"operation"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(cout, &c); err != nil {
		t.Fatalf("compare's JSON: %v\n%s", err, cout)
	}
	own := 0
	for _, r := range c.Rows {
		if r.Operation == "Own" {
			own++
		}
	}
	if own == 0 {
		t.Errorf("compare has no row for Own:\n%.2000s", cout)
	}
}
