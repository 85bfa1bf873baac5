package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestDistributedSQLite runs three bench processes against one SQLite
// file, as three pods of an Indexed Job would run against one server,
// merges them, verifies the whole workload, and compares two such runs.
func TestDistributedSQLite(t *testing.T) {
	dir := t.TempDir()
	d := adaptertest.Distributed{Bin: binary, Dir: filepath.Join("..", ".."), Config: "config.properties", N: 3, Results: dir,
		StartIn: 5 * time.Second, Sets: []string{"SQLITE_PATH=" + filepath.Join(dir, "shared.db"), "LOOP=60", "VERIFY=true"}}
	instances, a := d.Run(t, "dist-a")
	for i, r := range instances {
		if r.Instance == nil || r.Instance.Count != 3 || r.Config["BENCHMARK_INDEX"] != strconv.Itoa(r.Instance.Index) {
			t.Errorf("instance record %d: %+v", i, r.Instance)
		}
	}
	_, b := d.Run(t, "dist-b")
	if a.Fingerprint != b.Fingerprint {
		t.Fatalf("two merged runs of one workload: fingerprints %s and %s", a.Fingerprint, b.Fingerprint)
	}
	c := bench(t, "compare", "dist-a-merged", "dist-b-merged", "--results", dir, "--format", "markdown")
	if c.code != 0 || !strings.Contains(c.stdout, "INGESTION") || strings.Contains(c.stderr, "did not do the same work") {
		t.Fatalf("compare of two merged runs: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
	// A merged run is not one instance's workload: compare says so.
	if r := bench(t, "compare", "dist-a-merged", instances[0].ID, "--results", dir); r.code != 2 || !strings.Contains(r.stderr, "BENCHMARK_INDEX") {
		t.Errorf("compare of a merge with an instance: exit %d\n%s", r.code, r.stderr)
	}
	// Merging the same runs again would make a side of two copies.
	if r := bench(t, "merge", "dist-a", "--results", dir); r.code != 2 || !strings.Contains(r.stderr, "already merged as run "+a.ID) {
		t.Errorf("a second merge of dist-a: exit %d\n%s", r.code, r.stderr)
	}
	// Merging again refuses the duplicate instances of two runs.
	if r := bench(t, "merge", "dist-a", "dist-b", "--results", dir); r.code != 2 || !strings.Contains(r.stderr, "are both instance") {
		t.Errorf("merge of two runs' instances: exit %d\n%s", r.code, r.stderr)
	}
	// The merged record works where records do: show and the HTML report.
	if r := bench(t, "show", "dist-a-merged", "--results", dir); r.code != 0 || !strings.Contains(r.stdout, "Result Matrix") {
		t.Errorf("show of a merged run: exit %d\n%s", r.code, r.stderr)
	}
	page := filepath.Join(dir, "merged.html")
	if r := bench(t, "report", "dist-a-merged", "--results", dir, "-o", page); r.code != 0 {
		t.Errorf("report of a merged run: exit %d\n%s", r.code, r.stderr)
	}
	htmlPage(t, page, "INGESTION: latency by percentile")
}

func TestStartAtRefusedWhenPast(t *testing.T) {
	for _, tc := range []struct{ at, want string }{
		{"2020-01-01T00:00:00Z", "was "},
		{"tomorrow", "is not a time"},
		// The year 2999 ran the cleanup and then waited with no limit.
		{"2999-01-01T00:00:00Z", "from now, more likely a mistake than a plan"},
	} {
		r := bench(t, "-c", "config.properties", "--start-at", tc.at, "--set", "RESULTS_DIR="+t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("--start-at %s: exit %d\n%s", tc.at, r.code, r.stderr)
		}
	}
	if r := bench(t, "-c", "config.properties", "--start-at", "2099-01-01T00:00:00Z", "--repeat", "2"); r.code != 2 {
		t.Errorf("--start-at with --repeat: exit %d", r.code)
	}
}

// TestCleanPauses: bench clean pauses INIT_WAIT_TIME after the cleanup, as
// a run does, so that the instances started after it do not write into a
// drop the server is still finishing; with 0 it does not wait.
func TestCleanPauses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "clean.db")
	start := time.Now()
	r := bench(t, "clean", "-c", "config.properties", "--set", "SQLITE_PATH="+db, "--set", "INIT_WAIT_TIME=400")
	if r.code != 0 || !strings.Contains(r.stderr, "waiting INIT_WAIT_TIME=400 ms") || time.Since(start) < 400*time.Millisecond {
		t.Fatalf("bench clean with INIT_WAIT_TIME=400: exit %d after %v\n%s%s", r.code, time.Since(start), r.stdout, r.stderr)
	}
	r = bench(t, "clean", "-c", "config.properties", "--set", "SQLITE_PATH="+db, "--set", "INIT_WAIT_TIME=0")
	if r.code != 0 || strings.Contains(r.stderr, "waiting") {
		t.Fatalf("bench clean with INIT_WAIT_TIME=0: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
