package adaptertest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/record"
)

// Answers proves CHECK_ANSWERS through the bench binary on one database:
// a run of the configuration checks every query of every family and finds
// them right; the same run through a binary built with the tag "sabotage"
// (internal/sabotage), whose adapter breaks one family's answers, is
// failed (exit 3) naming that family and only its answers wrong, and
// compare refuses it. Servers' packages run it, since their own tests stop
// and start the server and Go runs the tests of one package one after
// another.
type Answers struct {
	Dir      string   // working directory (the repository root)
	Config   string   // config file, relative to Dir
	Sets     []string // KEY=VALUE for both runs: the server, DB_NAME, a small workload with QUERY_ROUNDS ≥ 1
	Sabotage string   // TSBENCH_SABOTAGE for the broken run, e.g. GROUP_BY:drop
	Family   string   // the family it breaks, e.g. GROUP_BY
}

// SabotageBinary builds the bench binary with the tag "sabotage" into dir.
func SabotageBinary(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bench-sabotage")
	if out, err := exec.Command("go", "build", "-tags", "sabotage", "-o", bin, "../../cmd/bench").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags sabotage: %v\n%s", err, out)
	}
	return bin
}

// Run runs the clean and the sabotaged run and checks both.
func (a Answers) Run(t *testing.T) {
	t.Helper()
	bins := t.TempDir()
	bin, sab := Binary(t, bins), SabotageBinary(t, bins)
	run := func(bin, results string, env ...string) (string, int) {
		args := []string{"run", "-c", a.Config, "--set", "RESULTS_DIR=" + results, "--set", "CHECK_ANSWERS=true"}
		for _, s := range a.Sets {
			args = append(args, "--set", s)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = a.Dir
		cmd.Env = append(cmd.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	only := func(dir string) *record.Record {
		recs, errs := record.Store{Dir: dir}.List()
		if len(errs) > 0 || len(recs) != 1 {
			t.Fatalf("%s: %d records, errors %v", dir, len(recs), errs)
		}
		return recs[0]
	}

	good := t.TempDir()
	if out, code := run(bin, good); code != 0 {
		t.Fatalf("clean run: exit %d\n%s", code, out)
	}
	queried := 0
	for _, ph := range only(good).Phases {
		if ph.Name != "query" {
			continue
		}
		for _, op := range ph.Operations {
			queried++
			if op.AnswersChecked != op.OKOps+op.FailOps || op.AnswersChecked == 0 || op.AnswersWrong != 0 {
				t.Errorf("clean run, %s: %d answers checked, %d wrong, of %d queries", op.Operation, op.AnswersChecked, op.AnswersWrong, op.OKOps+op.FailOps)
			}
		}
	}
	if queried != 11 {
		t.Errorf("the clean run checked %d query families, want 11", queried)
	}

	bad := t.TempDir()
	out, code := run(sab, bad, "TSBENCH_SABOTAGE="+a.Sabotage)
	if code != 3 || !strings.Contains(out, "wrong answer (client") || !strings.Contains(out, a.Family+" d_") {
		t.Fatalf("sabotaged run (%s): exit %d\n%s", a.Sabotage, code, out)
	}
	rec := only(bad)
	if rec.Status != record.StatusFailed || !strings.Contains(rec.Error, "wrong answers (CHECK_ANSWERS)") || !strings.Contains(rec.Error, a.Family) {
		t.Fatalf("sabotaged run: status %s, error %q", rec.Status, rec.Error)
	}
	for _, ph := range rec.Phases {
		if ph.Name != "query" {
			continue
		}
		for _, op := range ph.Operations {
			broken := op.Operation == a.Family
			if broken != (op.AnswersWrong > 0) || broken && op.AnswersWrong != op.AnswersChecked {
				t.Errorf("sabotaged run, %s: %d wrong of %d checked", op.Operation, op.AnswersWrong, op.AnswersChecked)
			}
		}
	}
	cmp := exec.Command(bin, "compare", "--results", good, only(good).ID, filepath.Join(bad, rec.ID+".json"))
	cmp.Dir = a.Dir
	cout, _ := cmp.CombinedOutput()
	if cmp.ProcessState.ExitCode() != 2 || !strings.Contains(string(cout), "wrong answers (CHECK_ANSWERS)") {
		t.Errorf("compare with the sabotaged run: exit %d\n%s", cmp.ProcessState.ExitCode(), cout)
	}
}

// SmallAnswers is a small workload for Answers: one query round after an
// ingest, a few queries of every family.
var SmallAnswers = []string{"QUERY_ROUNDS=1", "QUERY_LOOP=6", "LOOP=40", "DATA_CLIENT_NUMBER=2", "INIT_WAIT_TIME=0", "VERIFY=false"}
