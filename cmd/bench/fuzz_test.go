package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// keyName is how a line of a usage error names what was wrong: a key
// (DEVICE_NUMBER, --set LOOPP) or the config file.
var keyName = regexp.MustCompile(`[A-Z][A-Z0-9_]{2,}|--set|-c |config|\.properties|properties file`)

// FuzzCLI runs the whole command line in-process on arbitrary config text
// and one --set: whatever the input, bench exits 0, 2 or 3, never panics,
// and a refusal (2) is a few lines, each naming what to fix. --dry-run
// keeps it to parsing and planning, which must be cheap whatever the sizes.
func FuzzCLI(f *testing.F) {
	for _, seed := range []struct{ file, set string }{
		{"DB_SWITCH=Null\nLOOP=23\n", "LOOP=30"},
		{"\ufeffDB_SWITCH=Null\n", "BATCH_SIZE=10"},
		{"", "LOOP=1"},
		{`{"DB_SWITCH": "SQLite"}`, "X=1"},
		{"LOOP=2147483647\nDEVICE_NUMBER=2147483647\nSENSOR_NUMBER=2147483647\n", "BATCH_SIZE_PER_WRITE=16777216"},
		{"TIMESTAMP_PRECISION=ns\nSTART_TIME=2300-01-01T00:00:00Z\n", "POINT_STEP=1"},
		{"LOOP=0\nIS_DELETE_DATA=true\n", "QUERY_ROUNDS=2"},
		{"LOOP=23\nLOOP=46\nOPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0\n", "LOOPP=5"},
		{"QUERY_SUITE=weekly\nQUERY_ROUNDS=2\n", "DB_SWITCH=Null"},
	} {
		f.Add(seed.file, seed.set)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, file, set string) {
		path := filepath.Join(dir, "fuzz.properties")
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := Main([]string{"-c", path, "--set", set, "--set", "RESULTS_DIR=" + dir, "--dry-run"}, &out, &errb)
		stderr := errb.String()
		if code != exitOK && code != exitUsage && code != exitFailed {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
			t.Fatalf("a stack trace:\n%s", stderr)
		}
		if code != exitUsage {
			return
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if strings.HasPrefix(l, "bench: ") {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 || len(lines) > 25 {
			t.Fatalf("a refusal of %d lines:\n%s", len(lines), stderr)
		}
		for _, l := range lines {
			if !keyName.MatchString(l) {
				t.Errorf("a refusal that names no key: %q", l)
			}
		}
	})
}
