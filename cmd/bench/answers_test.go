package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tsbench/tsbench/record"
)

var sabotageBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "bench-sabotage")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-tags", "sabotage", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// answerTarget is a database CHECK_ANSWERS is proven on, with the family
// its sabotaged run breaks.
type answerTarget struct {
	name, env, config string
	sets              []string
	sabotage, family  string
}

func answerTargets() []answerTarget {
	small := []string{"QUERY_ROUNDS=1", "QUERY_LOOP=6", "LOOP=40", "DATA_CLIENT_NUMBER=2", "INIT_WAIT_TIME=0", "VERIFY=false", "CHECK_ANSWERS=true"}
	return []answerTarget{
		{"SQLite", "", "config.properties", append([]string{"DEVICE_NUMBER=4", "SENSOR_NUMBER=6"}, small...), "GROUP_BY:drop", "GROUP_BY"},
		{"IoTDB tree", "TSBENCH_IOTDB", "examples/iotdb.properties", append([]string{"DB_NAME=tsbench_answers", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "QUERY_SENSOR_NUM=3", "IS_OUT_OF_ORDER=true"}, small...), "TIME_RANGE:shift", "TIME_RANGE"},
		{"IoTDB table", "TSBENCH_IOTDB", "examples/iotdb-table.properties", append([]string{"DB_NAME=tsbench_answers_table", "IoTDB_TABLE_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=10"}, small...), "LATEST_POINT:drop", "LATEST_POINT"},
		{"Elasticsearch", "TSBENCH_ES", "examples/elasticsearch.properties", append([]string{"DB_NAME=tsbench_answers", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "QUERY_SENSOR_NUM=3"}, small...), "AGG_RANGE:shift", "AGG_RANGE"},
	}
}

// TestAnswersCheckedThroughTheBinary: with CHECK_ANSWERS every query of
// every family is checked and right on each database; the same run through
// a binary whose adapter breaks one family's answers (a lost row, a
// shifted timestamp) is failed, exit 3, naming that family and the reason.
func TestAnswersCheckedThroughTheBinary(t *testing.T) {
	sab, err := sabotageBinary()
	if err != nil {
		t.Fatalf("build the sabotage binary: %v", err)
	}
	for _, tg := range answerTargets() {
		t.Run(tg.name, func(t *testing.T) {
			sets := tg.sets
			if tg.env != "" {
				addr := os.Getenv(tg.env)
				if addr == "" {
					if os.Getenv("CI") != "" {
						t.Fatalf("CI runs this test against %s: %s is needed", tg.name, tg.env)
					}
					t.Skipf("needs %s: start it with the scripts (docs/servers.md), then %s=127.0.0.1:PORT", tg.name, tg.env)
				}
				host, port, _ := strings.Cut(addr, ":")
				sets = append([]string{"HOST=" + host, "PORT=" + port}, sets...)
			}
			args := func(dir string) []string {
				a := []string{"run", "-c", tg.config, "--set", "RESULTS_DIR=" + dir}
				for _, s := range sets {
					a = append(a, "--set", s)
				}
				return a
			}
			good := t.TempDir()
			r := bench(t, args(good)...)
			if r.code != 0 {
				t.Fatalf("clean run: exit %d\n%s", r.code, r.stderr)
			}
			rec := records(t, good)[0]
			queried := 0
			for _, ph := range rec.Phases {
				for _, op := range ph.Operations {
					if ph.Name != "query" {
						continue
					}
					queried++
					if op.AnswersChecked != op.OKOps+op.FailOps || op.AnswersChecked == 0 || op.AnswersWrong != 0 {
						t.Errorf("clean run, %s: %d answers checked, %d wrong, of %d queries", op.Operation, op.AnswersChecked, op.AnswersWrong, op.OKOps+op.FailOps)
					}
				}
			}
			if queried != 11 {
				t.Errorf("clean run checked %d query families, want 11", queried)
			}

			bad := t.TempDir()
			cmd := exec.Command(sab, args(bad)...)
			cmd.Dir = filepath.Join("..", "..")
			cmd.Env = append(os.Environ(), "TSBENCH_SABOTAGE="+tg.sabotage)
			out, _ := cmd.CombinedOutput()
			if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(string(out), "wrong answer (client") || !strings.Contains(string(out), tg.family+" d_") {
				t.Fatalf("sabotaged run (%s): exit %d\n%s", tg.sabotage, cmd.ProcessState.ExitCode(), out)
			}
			rec = records(t, bad)[0]
			if rec.Status != record.StatusFailed || !strings.Contains(rec.Error, "wrong answers (CHECK_ANSWERS)") || !strings.Contains(rec.Error, tg.family) {
				t.Fatalf("sabotaged run: status %s, error %q", rec.Status, rec.Error)
			}
			if r := bench(t, "compare", "--results", good, records(t, good)[0].ID, filepath.Join(bad, rec.ID+".json")); r.code != 2 || !strings.Contains(r.stderr, "wrong answers (CHECK_ANSWERS)") {
				t.Errorf("compare with the sabotaged run: exit %d\n%s", r.code, r.stderr)
			}
			for _, ph := range rec.Phases {
				for _, op := range ph.Operations {
					broken := op.Operation == tg.family
					if ph.Name == "query" && (broken != (op.AnswersWrong > 0) || broken && op.AnswersWrong != op.AnswersChecked) {
						t.Errorf("sabotaged run, %s: %d wrong of %d checked", op.Operation, op.AnswersWrong, op.AnswersChecked)
					}
				}
			}
		})
	}
}

// TestAnswersRatioIsDeterministic: CHECK_ANSWERS_RATIO checks a share of
// the queries, the same ones in two runs of one workload.
func TestAnswersRatioIsDeterministic(t *testing.T) {
	counts := func() map[string]int64 {
		dir := t.TempDir()
		r := bench(t, "run", "-c", "config.properties", "--set", "RESULTS_DIR="+dir, "--set", "QUERY_ROUNDS=2", "--set", "QUERY_LOOP=40", "--set", "LOOP=40",
			"--set", "CHECK_ANSWERS=true", "--set", "CHECK_ANSWERS_RATIO=0.25", "--set", "DEVICE_NUMBER=4", "--set", "INIT_WAIT_TIME=0")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		out := map[string]int64{}
		for _, ph := range records(t, dir)[0].Phases {
			for _, op := range ph.Operations {
				out[ph.Group()+" "+op.Operation] = op.AnswersChecked
			}
		}
		return out
	}
	a, b := counts(), counts()
	var checked, all int64
	for k, n := range a {
		if b[k] != n {
			t.Errorf("%s: %d checked, then %d", k, n, b[k])
		}
		if !strings.HasPrefix(k, "ingest") {
			checked += n
			all += 4 * 40
		}
	}
	if share := float64(checked) / float64(all); share < 0.2 || share > 0.3 {
		t.Errorf("%d of %d queries checked (%.3f), want about 0.25", checked, all, share)
	}
}

// TestWarmupThroughTheBinary: a warm-up is planned (--dry-run marks its
// steps), run, printed apart in every format and kept in the record apart
// from the phase's operations; round 1 has none.
func TestWarmupThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "QUERY_ROUNDS=2", "--set", "QUERY_LOOP=8", "--set", "LOOP=46",
		"--set", "DEVICE_NUMBER=4", "--set", "INIT_WAIT_TIME=0", "--set", "WARMUP_OPERATIONS=3", "--label", "warm"}
	dry := bench(t, append(args, "--dry-run")...)
	if dry.code != 0 || !strings.Contains(dry.stdout+dry.stderr, "3. ingest + warm-up until every client has run 3 operations") ||
		strings.Contains(dry.stdout+dry.stderr, "round 1 + warm-up") || !strings.Contains(dry.stdout+dry.stderr, "(Q1) round 2 + warm-up") {
		t.Fatalf("dry run: exit %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	r := bench(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, format := range []string{"text", "markdown", "csv"} {
		out := r.stdout
		if format != "text" {
			out = bench(t, "show", "--results", dir, "warm", "--format", format).stdout
		}
		for _, want := range []string{"Result Matrix (ingest, warm-up)", "Latency (ms) Matrix (ingest, warm-up)", "Result Matrix (query, round 2, warm-up)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q", format, want)
			}
		}
		if strings.Contains(out, "round 1, warm-up") {
			t.Errorf("%s: round 1 has a warm-up", format)
		}
	}
	rec := records(t, dir)[0]
	for _, p := range rec.Phases {
		warm := p.Name == "ingest" || p.Round == 2
		if (p.Warmup != nil) != warm {
			t.Fatalf("%s: warm-up %v", p.Group(), p.Warmup)
		}
		if !warm {
			continue
		}
		var w, m int64
		for _, o := range p.Warmup.Operations {
			w += o.OKOps
		}
		for _, o := range p.Operations {
			m += o.OKOps
		}
		if w < 4*3 || m == 0 {
			t.Errorf("%s %s: %d warm-up and %d measured operations", p.Group(), p.Variant, w, m)
		}
	}
}
