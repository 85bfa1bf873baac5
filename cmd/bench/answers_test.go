package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// TestAnswersCheckedThroughTheBinary: with CHECK_ANSWERS every query of
// every family is checked and right on SQLite; the same run through a
// binary whose adapter loses a row of GROUP_BY's answers is failed, exit 3,
// naming the family (adaptertest.Answers). The servers' packages run the
// same proof on IoTDB (tree and table) and Elasticsearch.
func TestAnswersCheckedThroughTheBinary(t *testing.T) {
	adaptertest.Answers{Dir: filepath.Join("..", ".."), Config: "config.properties",
		Sets:     append([]string{"DEVICE_NUMBER=4", "SENSOR_NUMBER=6"}, adaptertest.SmallAnswers...),
		Sabotage: "GROUP_BY:drop", Family: "GROUP_BY"}.Run(t)
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
	// Another warm-up is another workload: compare refuses it, naming the key.
	if r := bench(t, append(args[:len(args)-4], "--set", "WARMUP_OPERATIONS=0", "--label", "cold")...); r.code != 0 {
		t.Fatalf("run without a warm-up: exit %d\n%s", r.code, r.stderr)
	}
	if r := bench(t, "compare", "--results", dir, "cold", "warm"); r.code != 2 || !strings.Contains(r.stderr, `WARMUP_OPERATIONS: "0" vs "3"`) {
		t.Errorf("compare across warm-ups: exit %d\n%s", r.code, r.stderr)
	}
	var rec *record.Record
	for _, r := range records(t, dir) {
		if r.Label == "warm" {
			rec = r
		}
	}
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
