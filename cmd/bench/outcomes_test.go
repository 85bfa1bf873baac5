package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHonestOutcomes runs the cases of a run that used to look green, or
// input that used to run, through the binary: each now fails or warns, and
// says what happened.
func TestHonestOutcomes(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := []string{"--set", "RESULTS_DIR=" + dir, "--set", "LOOP=23", "--set", "INIT_WAIT_TIME=0"}
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr []string // each must appear
		stdout []string
	}{
		{"every write failed", nil, 3, []string{"bench: the run failed: 282 of 284 operations failed", "INGESTION 240", "most frequent error:"}, []string{", failed, started"}},
		{"BOM", []string{"-c", file("bom.properties", "\ufeffDB_SWITCH=Null\nLOOP=23\nVERIFY=false\n"), "--set", "RESULTS_DIR=" + dir}, 0, nil, []string{"measuring Null"}},
		{"unknown --set", append([]string{"-c", "config.properties", "--set", "LOOPP=1000"}, small...), 2, []string{"bench: --set LOOPP=1000: is not a key tsbench knows; did you mean LOOP"}, nil},
		{"empty file", []string{"-c", file("empty.properties", "")}, 2, []string{"sets no key tsbench knows: it is empty or not a config.properties file"}, nil},
		{"json file", []string{"-c", file("c.json", `{"DB_SWITCH": "Null", "LOOP": 10}`)}, 2, []string{"sets no key tsbench knows"}, nil},
		{"duplicate key", append([]string{"-c", file("dup.properties", "DB_SWITCH=Null\nLOOP=23\nVERIFY=false\nLOOP=46\n")}, "--set", "RESULTS_DIR="+dir), 0, []string{"warning: LOOP is set twice in " + filepath.Join(dir, "dup.properties") + " (lines 2 and 4); line 4 wins"}, nil},
		{"old name on the command line", []string{"-c", file("new.properties", "DB_SWITCH=Null\nLOOP=23\nVERIFY=false\nBATCH_SIZE_PER_WRITE=100\n"), "--set", "BATCH_SIZE=10", "--dry-run"}, 0, []string{"using BATCH_SIZE_PER_WRITE=10, which comes later (--set)"}, []string{"BATCH_SIZE_PER_WRITE=10"}},
		{"timestamps overflow", append([]string{"-c", "config.properties", "--set", "TIMESTAMP_PRECISION=ns", "--set", "START_TIME=2300-01-01T00:00:00Z"}, small...), 2, []string{"bench: START_TIME=2300-01-01T00:00:00Z: with POINT_STEP=5000 and TIMESTAMP_PRECISION=ns puts the last of"}, nil},
		{"the real bound", []string{"-c", "config.properties", "--set", "DEVICE_NUMBER=2147483648"}, 2, []string{"DEVICE_NUMBER=2147483648: out of range: the largest allowed is 1000000 (valid: 1..1000000)"}, nil},
		{"a time limit of the user's", []string{"-c", "config.properties", "--set", "RESULTS_DIR=" + dir, "--set", "SQLITE_PATH=" + filepath.Join(dir, "limit.db"), "--set", "TEST_MAX_TIME=300", "--set", "VERIFY=true"}, 0, nil, []string{"verify: 0.00 second, skipped: TEST_MAX_TIME=300 ms ended the main phase after ", "client steps (", " operations in the Result Matrix).", "complete"}},
		{"every error at once", []string{"-c", "config.properties", "--set", "DB_SWITCH=Null", "--set", "LOOP=abc", "--set", "GROUP_NUMBER=30"}, 2,
			[]string{"bench: GROUP_NUMBER=30: is larger than DEVICE_NUMBER=20", "bench: LOOP=abc: not a whole number", "bench: VERIFY=true: Null cannot count the points it holds"}, nil},
		{"a run larger than the disk", append([]string{"-c", "config.properties", "--set", "LOOP=100000000", "--set", "SQLITE_PATH=" + filepath.Join(dir, "huge.db")}, small[:2]...), 2,
			[]string{"bench: the run needs about ", " but only ", " are free there"}, nil},
		{"a dry run of a huge LOOP only describes", []string{"-c", "config.properties", "--set", "LOOP=100000000", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--dry-run"}, 0, nil, []string{"Size: this run writes ", "Writes: "}},
		{"help lists every exit status", []string{"--help"}, 0, nil, []string{"Exit status: 0 ok; 1 bench compare --fail-above found a regression; 2 bad", "3 the run failed or is incomplete", "4 the gate of bench compare --fail-above or bench routine is"}},
		{"verify of no database", []string{"verify", "-c", "config.properties", "--set", "SQLITE_PATH=" + filepath.Join(dir, "none.db")}, 3, []string{"does not exist (SQLITE_PATH, or RESULTS_DIR/DB_NAME.db): nothing to verify"}, nil},
	}
	// The first case: tables made for 10 sensors, a run that writes 20
	// into them without creating its schema.
	db := filepath.Join(dir, "narrow.db")
	if r := bench(t, append([]string{"-c", "config.properties", "--set", "SQLITE_PATH=" + db, "--set", "SENSOR_NUMBER=10", "--set", "VERIFY=false"}, small...)...); r.code != 0 {
		t.Fatalf("the narrow tables: exit %d %s", r.code, r.stderr)
	}
	cases[0].args = append([]string{"-c", "config.properties", "--set", "SQLITE_PATH=" + db, "--set", "SENSOR_NUMBER=20", "--set", "CREATE_SCHEMA=false", "--set", "IS_DELETE_DATA=false", "--set", "VERIFY=false"}, small...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := bench(t, c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", r.code, c.code, r.stderr)
			}
			for _, w := range c.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			for _, w := range c.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%.2000s", w, r.stdout)
				}
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("a stack trace:\n%s", r.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Fatal("bench verify created the database it was asked to check")
	}
	// LOOP=0 writes nothing and measures nothing without query rounds: refused.
	if r := bench(t, append([]string{"-c", "config.properties", "--set", "SQLITE_PATH=" + db, "--set", "LOOP=0", "--set", "VERIFY=false", "--set", "QUERY_ROUNDS=0"}, small[:2]...)...); r.code != 2 ||
		!strings.Contains(r.stderr, "bench: LOOP=0: with QUERY_ROUNDS=0 measures nothing: the run writes nothing and has no query rounds (valid: LOOP ≥ 1, or QUERY_ROUNDS ≥ 1 to query data an earlier run wrote)") {
		t.Fatalf("LOOP=0 QUERY_ROUNDS=0: exit %d\n%s", r.code, r.stderr)
	}
	// A query-only run (LOOP=0, a query round) writes nothing, so it
	// deletes nothing: the narrow tables stay.
	r := bench(t, append([]string{"-c", "config.properties", "--set", "SQLITE_PATH=" + db, "--set", "LOOP=0", "--set", "VERIFY=false", "--set", "QUERY_ROUNDS=1", "--set", "QUERY_LOOP=2", "--set", "DROP_CACHES_COMMAND="}, small[:2]...)...)
	if !strings.Contains(r.stderr, "IS_DELETE_DATA=true is not done: this run writes nothing (LOOP=0") || !strings.Contains(r.stdout, "skipped: IS_DELETE_DATA=false") {
		t.Fatalf("LOOP=0: exit %d\n%s\n%.1500s", r.code, r.stderr, r.stdout)
	}
	if v := bench(t, "verify", "-c", "config.properties", "--set", "SQLITE_PATH="+db, "--set", "SENSOR_NUMBER=10", "--set", "LOOP=23"); v.code != 0 {
		t.Fatalf("after LOOP=0 the data of the first run must still be there: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	// The workload of 20 sensors is not in tables of 10: a count of a
	// missing column is an error, not every row counted again (SQLite reads
	// a double-quoted unknown name as a string).
	v := bench(t, "verify", "-c", "config.properties", "--set", "SQLITE_PATH="+db, "--set", "SENSOR_NUMBER=20", "--set", "LOOP=23")
	if v.code != 3 || !strings.Contains(v.stderr, "bench: verify: could not verify 20 of 20 devices: their count failed") || !strings.Contains(v.stderr, "no such column") {
		t.Fatalf("verify of 20 sensors in tables of 10: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
}
