package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnRequestsRefused: a suite whose own requests the database cannot
// run is refused before anything runs, exit 2, in one line that names the
// variant and what is missing; nothing is written.
func TestOwnRequestsRefused(t *testing.T) {
	dir := t.TempDir()
	suite := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sqlite := "A Q4\n  sqlite: SELECT device, max({sensor}) FROM {table} WHERE device IN ({devices}) GROUP BY device\n"
	for _, c := range []struct {
		name, suite string
		sets        []string
		want        string
	}{
		{"a database that runs none", suite("null.suite", sqlite), []string{"DB_SWITCH=Null", "VERIFY=false"},
			"variant A has requests of its own (sqlite), but DB_SWITCH=Null runs none (valid: a database that reads them"},
		{"none in the database's language", suite("iotdb.suite", "A Q4\n  iotdb: SELECT max_value({sensor}) FROM {devices}\n  elasticsearch: {\"size\":0}\n"), nil,
			"variant A has requests for elasticsearch, iotdb, but none for sqlite, the language of DB_SWITCH=SQLite"},
		{"a placeholder the database has no value for", suite("index.suite", "A Q4\n  sqlite: SELECT count(*) FROM {index}\n"), nil,
			"variant A's sqlite request: {index} has no value for this database"},
		{"a misspelt placeholder", suite("typo.suite", "A Q4\n  sqlite: SELECT {sensr} FROM {table}\n"), nil,
			"line 2: variant A's sqlite request: {sensr} is not a placeholder (valid: start, end, value, window"},
		{"a request line without a language", suite("bare.suite", "A Q4\n  SELECT 1\n"), nil,
			`line 2: "SELECT 1" is not "language: request"`},
	} {
		args := []string{"run", "-c", "config.properties", "--set", "QUERY_SUITE=" + c.suite, "--set", "RESULTS_DIR=" + filepath.Join(dir, "results")}
		for _, s := range c.sets {
			args = append(args, "--set", s)
		}
		r := bench(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "QUERY_SUITE="+c.suite+": ") || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s behind (%v)", filepath.Join(dir, "results"), err)
	}
}

// TestOwnQueriesExample: the shipped suite of the weekly classes and two
// own queries binds on every database that reads requests (a dry run
// needs no server): each own variant's first request is shown filled, in
// the database's language.
func TestOwnQueriesExample(t *testing.T) {
	for _, c := range []struct {
		lang string
		args []string
	}{
		{"sqlite", []string{"-c", "config.properties"}},
		{"iotdb", []string{"-c", "examples/weekly-iotdb.properties"}},
		{"iotdb-table", []string{"-c", "examples/iotdb-table.properties"}},
		{"elasticsearch", []string{"-c", "examples/elasticsearch.properties"}},
		{"elasticsearch", []string{"-c", "examples/opensearch.properties"}},
	} {
		args := append(append([]string{"run"}, c.args...), "--set", "QUERY_SUITE=examples/own-queries.suite", "--dry-run")
		r := bench(t, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d\n%s", c.args, r.code, r.stderr)
			continue
		}
		for _, v := range []string{"TopHot", "DownSample"} {
			prefix := "Request of " + v + " (its own, " + c.lang + "; answers counted, not checked): "
			i := strings.Index(r.stdout, prefix)
			if i < 0 {
				t.Errorf("%v: no line %q:\n%s", c.args, prefix, r.stdout)
				continue
			}
			line, _, _ := strings.Cut(r.stdout[i+len(prefix):], "\n")
			for _, p := range []string{"{start}", "{end}", "{sensor}", "{devices}", "{window}", "{table}"} {
				if strings.Contains(line, p) {
					t.Errorf("%v %s: %s left unfilled: %s", c.args, v, p, line)
				}
			}
		}
	}
}
