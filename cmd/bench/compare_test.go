package main

import (
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"

	"github.com/tsbench/tsbench/htmlreport"
)

// runs makes labelled runs of a small weekly-suite workload on SQLite.
func weeklyRuns(t *testing.T, dir string, label string, repeat string, extra ...string) result {
	t.Helper()
	args := append([]string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "SQLITE_PATH=" + filepath.Join(dir, label+".db"),
		"--set", "LOOP=20", "--set", "QUERY_LOOP=3", "--set", "QUERY_SUITE=weekly", "--set", "QUERY_ROUNDS=2",
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "DROP_CACHES_COMMAND=", "--set", "VERIFY=false",
		"--label", label, "--repeat", repeat}, extra...)
	r := bench(t, args...)
	if r.code != 0 {
		t.Fatalf("bench %v: exit %d\n%s", args, r.code, r.stderr)
	}
	return r
}

func TestWeeklyRoutineOnSQLite(t *testing.T) {
	dir := t.TempDir()
	r := weeklyRuns(t, dir, "master-a2b704d", "2")
	if !strings.Contains(r.stdout, "Result Matrix (query, round 1)") || !strings.Contains(r.stdout, "Result Matrix (query, round 2)") || !strings.Contains(r.stdout, "| Q4b3 ") {
		t.Fatalf("the weekly suite must run two rounds of its variants:\n%.2000s", r.stdout)
	}
	if !strings.Contains(r.stdout, "restart (SQLite closes and reopens its database) (before query round 1): ") {
		t.Fatal("the SQLite restart step is not reported")
	}
	weeklyRuns(t, dir, "pr2689-7064536", "2")
	l := bench(t, "list", "--results", dir)
	if l.code != 0 || strings.Count(l.stdout, "master-a2b704d") != 2 || strings.Count(l.stdout, "pr2689-7064536") != 2 {
		t.Fatalf("list:\n%s", l.stdout)
	}
	c := bench(t, "compare", "master-a2b704d", "pr2689-7064536", "--results", dir, "--layout", "pr", "--format", "markdown")
	if c.code != 0 {
		t.Fatalf("compare: exit %d: %s", c.code, c.stderr)
	}
	for _, want := range []string{"| round 1 master-a2b704d | round 1 pr2689-7064536 | round 1 pr2689/master |", "| throughput (point/s) ", "| Q23 ", "| Q74 ", "Unmarked ratios are untested (n=2+2: a test needs 3 runs a side)"} {
		if !strings.Contains(c.stdout, want) {
			t.Errorf("PR layout lacks %q:\n%s", want, c.stdout)
		}
	}
	// --output writes the same table to a file and nothing to stdout.
	out := filepath.Join(dir, "report.md")
	o := bench(t, "compare", "master-a2b704d", "pr2689-7064536", "--results", dir, "--layout", "pr", "--format", "markdown", "--output", out)
	if b, err := os.ReadFile(out); err != nil || string(b) != c.stdout || o.stdout != "" {
		t.Fatalf("--output: %v, stdout %q", err, o.stdout)
	}
	// The same comparison as one HTML page with its charts, and as PNGs.
	page, pngs := filepath.Join(dir, "compare.html"), filepath.Join(dir, "png")
	h := bench(t, "compare", "master-a2b704d", "pr2689-7064536", "--results", dir, "--layout", "pr", "--format", "html", "-o", page, "--png", pngs)
	if h.code != 0 || h.stdout != "" || !strings.Contains(h.stderr, "wrote "+page) {
		t.Fatalf("compare --format html: exit %d, stdout %q, stderr %s", h.code, h.stdout, h.stderr)
	}
	htmlPage(t, page, ">Q23</td>", "Q74: latency by percentile", "ratio of medians", "Median latency per query class and round")
	for _, name := range []string{"ratio-throughput.png", "latency-q23.png", "latency-ingestion.png", "cold-warm.png"} {
		if b, err := os.ReadFile(filepath.Join(pngs, name)); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("--png: %s is not a PNG (%v)", name, err)
		}
	}
	// bench report: the runs of a label, one colour each.
	rp := filepath.Join(dir, "report.html")
	if r := bench(t, "report", "master-a2b704d", "--results", dir, "-o", rp); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	htmlPage(t, rp, "Result Matrix (query, round 1)", "INGESTION: latency by percentile")
	// --png belongs to the HTML format; an unknown run is bad input.
	for _, args := range [][]string{
		{"compare", "master-a2b704d", "pr2689-7064536", "--results", dir, "--png", pngs},
		{"report", "no-such-run", "--results", dir},
		{"compare", "master-a2b704d", "pr2689-7064536", "--results", dir, "--format", "pdf"},
	} {
		if r := bench(t, args...); r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("bench %v: exit %d, want 2 with one line:\n%s", args, r.code, r.stderr)
		}
	}
}

// htmlPage checks a page the binary wrote: self-contained, with its charts
// and the texts given.
func htmlPage(t *testing.T, path string, want ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ref := htmlreport.External(b); ref != "" {
		t.Errorf("%s refers outside itself: %q", path, ref)
	}
	if n := strings.Count(string(b), "<svg"); n < 5 {
		t.Errorf("%s has %d charts", path, n)
	}
	for _, w := range want {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %q", path, w)
		}
	}
}

func TestCompareRefusesOtherWorkloads(t *testing.T) {
	dir := t.TempDir()
	common := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "LOOP=23", "--set", "VERIFY=false"}
	bench(t, append(common, "--label", "a")...)
	bench(t, append(common, "--label", "b", "--set", "DEVICE_NUMBER=24")...)
	r := bench(t, "compare", "a", "b", "--results", dir)
	if r.code != 2 || !strings.Contains(r.stderr, "bench: the runs did not do the same work") || !strings.Contains(r.stderr, `DEVICE_NUMBER: "20" vs "24"`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = bench(t, "compare", "a", "b", "--results", dir, "--force")
	if r.code != 0 || !strings.Contains(r.stderr, `warning: run`) || !strings.Contains(r.stdout, "Comparison: a vs b") {
		t.Fatalf("--force: exit %d, %q", r.code, r.stderr)
	}
}

// delayRuns makes labelled runs of the Null delay target: every operation
// takes 2–3 ms, PRECISE_POINT slowdownPct percent more.
func delayRuns(t *testing.T, dir, label, repeat string, extra ...string) {
	t.Helper()
	args := append([]string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=40", "--set", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0",
		"--set", "VERIFY=false", "--set", "NULL_DELAY_MS=2", "--set", "NULL_JITTER_MS=1", "--set", "NULL_SLOW_OPERATION=PRECISE_POINT",
		"--label", label, "--repeat", repeat}, extra...)
	if r := bench(t, args...); r.code != 0 {
		t.Fatalf("bench %v: exit %d\n%s", args, r.code, r.stderr)
	}
}

// TestFailAboveExitsOne: a real slowdown of one operation (50%), made by the
// delay target (no --force: the delay is the database's, not the
// workload's), fails the gate; the same change read the other way round is
// an improvement and passes. Which of PRECISE_POINT's latency rows trips
// the gate is the machine's: in CI once the median did (+52%) while a
// stall's outlier left the mean's test short of significance.
func TestFailAboveExitsOne(t *testing.T) {
	dir := t.TempDir()
	delayRuns(t, dir, "fast", "4")
	delayRuns(t, dir, "slow", "4", "--set", "NULL_SLOWDOWN_PCT=50")
	r := bench(t, "compare", "fast", "slow", "--results", dir, "--fail-above", "10")
	if r.code != 1 || !strings.Contains(r.stderr, "bench: Gate failed: regression in slow: ") || !strings.Contains(r.stderr, "latency of PRECISE_POINT (main) is worse: ") || !strings.Contains(r.stderr, "p(Holm)=") {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	// The PR report says so first, naming the row and its interval, and
	// the HTML page and the JSON carry the same verdict.
	for _, f := range []string{"markdown", "html", "json"} {
		r := bench(t, "compare", "fast", "slow", "--results", dir, "--fail-above", "10", "--layout", "pr", "--format", f)
		head := r.stdout
		if f == "html" {
			head = html.UnescapeString(head[strings.Index(head, `<div class="verdict`):])
		}
		if f == "json" {
			// The rows follow the headline: PRECISE_POINT's among the worse.
			var out struct {
				Verdict compare.Verdict `json:"verdict"`
			}
			json.Unmarshal([]byte(head), &out)
			for _, j := range out.Verdict.Rows {
				if j.Operation == "PRECISE_POINT" && j.Decision == compare.Worse && j.Interval != nil {
					head = out.Verdict.Headline + "\n" + j.Metric + " of PRECISE_POINT (main) is worse: " + j.ChangeText()
				}
			}
		}
		head = head[:min(len(head), 2000)]
		if r.code != 1 || !strings.Contains(head, "Gate failed: regression in slow: ") || !strings.Contains(head, "latency of PRECISE_POINT (main) is worse: ") || !regexp.MustCompile(`\[\+[0-9.]+%, \+[0-9.]+%\]`).MatchString(head) {
			t.Fatalf("--format %s: exit %d, the verdict is not first:\n%s", f, r.code, head)
		}
	}
	if r := bench(t, "compare", "slow", "fast", "--results", dir, "--fail-above", "10"); r.code == 1 || r.code == 0 && !strings.Contains(r.stderr, "Gate passed: all ") {
		t.Fatalf("an improvement must not fail: exit %d %q", r.code, r.stderr)
	}
}

// TestGateNeverSilent: a contender whose every write timed out is a
// failed run (exit 3); compare refuses it unless --force, and then, with
// one run a side, nothing can be tested: the gate exits 4 and says which
// rows it could not test, or with --untested=ratio judges them by their
// ratio and finds the regression.
func TestGateNeverSilent(t *testing.T) {
	dir := t.TempDir()
	delayRuns(t, dir, "ok", "1")
	args := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=40", "--set", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0",
		"--set", "VERIFY=false", "--set", "NULL_DELAY_MS=200", "--set", "WRITE_OPERATION_TIMEOUT_MS=20", "--set", "READ_OPERATION_TIMEOUT_MS=20", "--label", "broken"}
	if r := bench(t, args...); r.code != 3 || !strings.Contains(r.stderr, "bench: the run failed: 80 of 80 operations failed (100.00%, MAX_ERROR_RATE=0%: INGESTION 40, PRECISE_POINT 40); most frequent error: ") {
		t.Fatalf("every operation timed out: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bench(t, "list", "--results", dir); !strings.Contains(r.stdout, "| broken |") || !strings.Contains(r.stdout, "failed |") {
		t.Fatalf("list does not show the failed run:\n%s", r.stdout)
	}
	r := bench(t, "compare", "ok", "broken", "--results", dir, "--fail-above", "10")
	if r.code != 2 || !strings.Contains(r.stderr, "failed runs measure failures, not the database (--force compares them anyway)") {
		t.Fatalf("a failed run compared: exit %d, stderr %q", r.code, r.stderr)
	}
	r = bench(t, "compare", "ok", "broken", "--results", dir, "--fail-above", "10", "--force")
	if r.code != 4 || !strings.Contains(r.stderr, "bench: Gate inconclusive: ") || !strings.Contains(r.stderr, "error rate of INGESTION (main): untested: n=1+1: a test needs 3 runs a side") ||
		!strings.Contains(r.stderr, "no successful operation in the contender") || !strings.Contains(r.stdout, "failed: 80 of 80 operations failed") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = bench(t, "compare", "ok", "broken", "--results", dir, "--fail-above", "10", "--untested", "ratio", "--force")
	if r.code != 1 || !strings.Contains(r.stderr, "error rate of INGESTION (main) is worse: 0 → 100 %, +inf%, beyond 10%; by its ratio alone") {
		t.Fatalf("--untested=ratio: exit %d, stderr %q", r.code, r.stderr)
	}
	// Without --fail-above there is no gate, only the report.
	if r := bench(t, "compare", "ok", "broken", "--results", dir, "--force"); r.code != 0 || !strings.Contains(r.stdout, "untested") {
		t.Fatalf("no gate: exit %d\n%s", r.code, r.stdout)
	}
}

// TestMaxErrorRate: failures below the user's threshold leave the run
// complete; MAX_ERROR_RATE=100 accepts any.
func TestMaxErrorRate(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "DB_SWITCH=Null", "--set", "DEVICE_NUMBER=2", "--set", "GROUP_NUMBER=1",
		"--set", "DATA_CLIENT_NUMBER=2", "--set", "LOOP=20", "--set", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0",
		"--set", "VERIFY=false", "--set", "NULL_DELAY_MS=50", "--set", "WRITE_OPERATION_TIMEOUT_MS=10"}
	// Half the operations (the writes) fail.
	if r := bench(t, append(args, "--set", "MAX_ERROR_RATE=49.9")...); r.code != 3 || !strings.Contains(r.stderr, "MAX_ERROR_RATE=49.9%") {
		t.Fatalf("50%% failed over a 49.9%% limit: exit %d, %q", r.code, r.stderr)
	}
	if r := bench(t, append(args, "--set", "MAX_ERROR_RATE=50")...); r.code != 0 || strings.Contains(r.stdout, "failed, started") {
		t.Fatalf("50%% failed within a 50%% limit: exit %d, %q", r.code, r.stderr)
	}
}

// TestDifferentDatabasesSaid: runs of two databases are named at the top.
func TestDifferentDatabasesSaid(t *testing.T) {
	dir := t.TempDir()
	common := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "LOOP=23", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0"}
	for _, args := range [][]string{{"--label", "lite"}, {"--label", "nothing", "--set", "DB_SWITCH=Null"}} {
		if r := bench(t, append(common, args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	for _, f := range []string{"text", "markdown", "csv", "json"} {
		r := bench(t, "compare", "lite", "nothing", "--results", dir, "--format", f)
		// Each format quotes the names its own way.
		want := map[string]string{"text": `Different database: "SQLite" in lite; "Null" in nothing.`, "markdown": `> Different database: "SQLite" in lite; "Null" in nothing.`,
			"json": `Different database: \"SQLite\" in lite; \"Null\" in nothing.`}[f]
		if f == "csv" {
			// A CSV is one table: the lines around it are stderr's, the difference among the first.
			if lead := strings.SplitN(r.stderr, "\n", 6); r.code != 0 || !slices.Contains(lead, `Different database: "SQLite" in lite; "Null" in nothing.`) || strings.Contains(r.stdout, "Different database") {
				t.Fatalf("csv: exit %d, stderr %q\n%.600s", r.code, r.stderr, r.stdout)
			}
			continue
		}
		if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stderr, "warning: Different database") {
			t.Fatalf("%s: exit %d, stderr %q\n%.600s", f, r.code, r.stderr, r.stdout)
		}
		if f != "json" && strings.Index(r.stdout, want) > strings.Index(r.stdout, "Comparison: lite vs nothing") {
			t.Fatalf("%s: the difference comes after the table", f)
		}
	}
}

func TestGateFlagsValidated(t *testing.T) {
	for _, c := range []struct{ flag, value, msg string }{
		{"--fail-above", "-5", "--fail-above=-5: a percentage of 0 or more"},
		{"--min-effect", "-1", "--min-effect=-1: a percentage of 0 or more"},
		{"--min-abs", "NaN", "--min-abs=NaN: milliseconds, 0 or more"},
		{"--alpha", "1", "--alpha=1: a significance level is between 0 and 1"},
		{"--untested", "pass", "--untested=pass is not a rule (valid: fail, ratio)"},
	} {
		r := bench(t, "compare", "a", "b", "--results", t.TempDir(), c.flag, c.value)
		if r.code != 2 || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%s %s: exit %d, stderr %q", c.flag, c.value, r.code, r.stderr)
		}
	}
}

// TestDamagedRecordsNamed: a truncated record is named by list, show and
// compare, never dropped in silence; list honours TSBENCH_RESULTS_DIR.
func TestDamagedRecordsNamed(t *testing.T) {
	dir := t.TempDir()
	delayRuns(t, dir, "a", "3")
	delayRuns(t, dir, "b", "3")
	recs, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	victim := recs[len(recs)-1]
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(filepath.Base(victim), ".json")
	want := victim + " is not a readable run record: unexpected end of JSON input; it is left out"
	if r := bench(t, "list", "--results", dir); r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("list: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := bench(t, "show", id, "--results", dir); r.code != 2 || !strings.Contains(r.stderr, `the record of run "`+id+`" cannot be read: `+victim+" is not a readable run record") {
		t.Fatalf("show: exit %d, stderr %q", r.code, r.stderr)
	}
	r := bench(t, "compare", "a", "b", "--results", dir)
	if r.code != 0 || !strings.Contains(r.stderr, want+", so a side may have one run less") || !strings.Contains(r.stdout, "it is left out, so a side may have one run less") || !strings.Contains(r.stdout, "n=3+2") && !strings.Contains(r.stdout, "n=2+3") {
		t.Fatalf("compare: exit %d, stderr %q\n%.3000s", r.code, r.stderr, r.stdout)
	}
	cmd := exec.Command(binary, "list")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "TSBENCH_RESULTS_DIR="+dir)
	out, err := cmd.Output()
	if err != nil || strings.Count(string(out), "| complete |") != 5 {
		t.Fatalf("TSBENCH_RESULTS_DIR: %v\n%s", err, out)
	}
}

// TestUnmeasuredPhaseIsNotAPass: a warm-up longer than the phase leaves
// the run saying its phase was not measured and its figures "not
// measured" (never 0), and two such runs a side do not pass the gate.
func TestUnmeasuredPhaseIsNotAPass(t *testing.T) {
	dir := t.TempDir()
	for _, l := range []string{"a", "b"} {
		r := bench(t, "run", "-c", "config.properties", "--set", "LOOP=23", "--set", "INIT_WAIT_TIME=0", "--set", "WARMUP_TIME=30", "--set", "RESULTS_DIR="+dir, "--label", l, "--repeat", "3")
		if r.code != 0 || !strings.Contains(r.stdout, "main was not measured: its warm-up (") || !strings.Contains(r.stdout, "| INGESTION              | not measured |") {
			t.Fatalf("run %s: exit %d\n%s\n%s", l, r.code, r.stdout, r.stderr)
		}
	}
	r := bench(t, "compare", "a", "b", "--results", dir, "--fail-above", "10")
	if r.code != 4 || !strings.HasPrefix(r.stdout, "Gate inconclusive: ") || !strings.Contains(r.stderr, "b: mean latency of INGESTION (main): not measured: main was not measured in run ") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestGateServerNamesAFigure: a --gate-server name that no row of these
// runs has is bad usage (exit 2) with the names there are, not a row
// untested.
func TestGateServerNamesAFigure(t *testing.T) {
	dir := t.TempDir()
	delayRuns(t, dir, "a", "1")
	delayRuns(t, dir, "b", "1")
	// One run on both sides is said, not compared with itself in silence.
	if r := bench(t, "compare", "a", "a", "--results", dir); r.code != 0 || !strings.Contains(r.stderr, "is on two sides (a and a): it is compared with itself") {
		t.Errorf("compare a a: exit %d, stderr %q", r.code, r.stderr)
	}
	r := bench(t, "compare", "a", "b", "--results", dir, "--fail-above", "10", "--gate-server", "No such figure")
	if r.code != 2 || !strings.Contains(r.stderr, `--gate-server "No such figure": these runs have no server metric or telemetry figure of that name (valid: `) || !strings.Contains(r.stderr, "CPU user") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestShowJSONIsOneDocument: show --format json of one run is its record;
// of a label's several runs, one array of records, not objects in a row.
func TestShowJSONIsOneDocument(t *testing.T) {
	dir := t.TempDir()
	delayRuns(t, dir, "two", "2")
	r := bench(t, "show", "two", "--results", dir, "--format", "json")
	var recs []record.Record
	if err := json.Unmarshal([]byte(r.stdout), &recs); r.code != 0 || err != nil || len(recs) != 2 || recs[0].Label != "two" {
		t.Fatalf("exit %d, %v: %d records\n%.300s", r.code, err, len(recs), r.stdout)
	}
	r = bench(t, "show", recs[1].ID, "--results", dir, "--format", "json")
	var one record.Record
	if err := json.Unmarshal([]byte(r.stdout), &one); r.code != 0 || err != nil || one.ID != recs[1].ID {
		t.Fatalf("one run: exit %d, %v\n%.300s", r.code, err, r.stdout)
	}
}
