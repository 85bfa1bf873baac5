package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, want := range []string{"| round 1 master-a2b704d | round 1 pr2689-7064536 | round 1 pr2689/master |", "| throughput (point/s) ", "| Q23 ", "| Q74 ", "too few runs per side (n=2+2)"} {
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

func TestFailAboveExitsOne(t *testing.T) {
	dir := t.TempDir()
	// The baseline pauses 20 ms per operation (OP_MIN_INTERVAL), the
	// contender does not: its throughput is far higher and its runs differ
	// consistently, so with 4 runs a side the test is significant. Compared
	// the other way round, throughput is a regression.
	common := []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "DB_SWITCH=Null", "--set", "LOOP=30", "--set", "VERIFY=false",
		"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "INIT_WAIT_TIME=0", "--repeat", "4"}
	bench(t, append(common, "--label", "fast")...)
	bench(t, append(common, "--label", "slow", "--set", "INTERVAL_BETWEEN_WRITE_BATCH=20")...)
	r := bench(t, "compare", "fast", "slow", "--results", dir, "--fail-above", "10", "--force")
	if r.code != 1 || !strings.Contains(r.stderr, "bench: regressions beyond --fail-above 10%:") || !strings.Contains(r.stderr, "throughput of INGESTION") {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	if r := bench(t, "compare", "slow", "fast", "--results", dir, "--fail-above", "10", "--force"); r.code != 0 {
		t.Fatalf("an improvement must not fail: exit %d %q", r.code, r.stderr)
	}
}
