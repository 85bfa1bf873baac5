package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/runner"
)

// TestGenerateQueries: bench generate --queries writes the queries a run
// sends, and a run of the same configuration on the Null database, whose
// NULL_TRACE writes the parameters of every query it receives, receives
// exactly those, each as often (once a round): in the weekly suite's
// rounds and in the mixed phase. A suite's own requests are written
// filled, as the run sends them. IS_RECENT_QUERY, whose queries depend on
// what the run wrote, is refused.
func TestGenerateQueries(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--set", "DB_SWITCH=Null", "--set", "GROUP_NUMBER=1", "--set", "DEVICE_NUMBER=4", "--set", "SENSOR_NUMBER=5", "--set", "DATA_CLIENT_NUMBER=2",
		"--set", "LOOP=30", "--set", "QUERY_LOOP=7", "--set", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:0:0", "--set", "VERIFY=false", "--set", "INIT_WAIT_TIME=0",
		"--set", "RESULTS_DIR=" + filepath.Join(dir, "results")}
	// The trace's query line, without the variant and family names.
	traced := regexp.MustCompile(`^query .*: devices (.*), sensors (.*), time (-?\d+)\.\.(-?\d+), value > (\S+), (.*), group by (-?\d+), limit (-?\d+)$`)
	for _, tc := range []struct {
		name   string
		sets   []string
		rounds int
	}{
		{"rounds", []string{"--set", "QUERY_ROUNDS=2", "--set", "QUERY_SUITE=weekly"}, 2},
		{"mixed", []string{"--set", "QUERY_ROUNDS=0"}, 1},
		// One client: the trace's order is the client's, which the file keeps.
		{"ordered", []string{"--set", "QUERY_ROUNDS=0", "--set", "DATA_CLIENT_NUMBER=1"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := append(slices.Clone(base), tc.sets...)
			file := filepath.Join(dir, tc.name+".jsonl")
			if r := bench(t, append([]string{"generate", "-c", "config.properties", "--queries", file}, sets...)...); r.code != 0 || !strings.Contains(r.stdout, "wrote the queries to") {
				t.Fatalf("generate --queries: exit %d\n%s", r.code, r.stderr)
			}
			var want []string
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var d runner.DrawJSON
				if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
					t.Fatalf("%s: %v", sc.Text(), err)
				}
				key := fmt.Sprintf("%s|%s|%d|%d|%g|%s|%d|%d", strings.Join(d.Devices, ","), strings.Join(d.Sensors, ","), d.Start, d.End, d.ValueBound, d.Aggregate, d.GroupBy, d.Limit)
				for range d.Rounds {
					want = append(want, key)
				}
			}
			f.Close()
			if len(want) == 0 {
				t.Fatalf("no query in %s", file)
			}
			trace := filepath.Join(dir, tc.name+".trace")
			if r := bench(t, append([]string{"run", "-c", "config.properties", "--set", "NULL_TRACE=" + trace}, sets...)...); r.code != 0 {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			data, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(string(data), "\n") {
				if m := traced.FindStringSubmatch(line); m != nil {
					got = append(got, strings.Join(m[1:], "|"))
				}
			}
			if tc.name != "ordered" {
				slices.Sort(want)
				slices.Sort(got)
			}
			if !slices.Equal(want, got) {
				t.Errorf("%d queries in the file (× rounds), %d received by the run; first differences:\n%s", len(want), len(got), firstDiff(want, got))
			}
		})
	}
	own := filepath.Join(dir, "own.jsonl")
	if r := bench(t, "generate", "-c", "config.properties", "--queries", own, "--set", "QUERY_SUITE=examples/own-queries.suite", "--set", "RESULTS_DIR="+filepath.Join(dir, "results")); r.code != 0 {
		t.Fatalf("generate --queries, own requests on SQLite: exit %d\n%s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(own)
	if !strings.Contains(string(data), `"request":"SELECT`) || strings.Contains(string(data), "{start}") {
		t.Errorf("own requests are not written filled:\n%.600s", data)
	}
	r := bench(t, append([]string{"generate", "-c", "config.properties", "--queries", filepath.Join(dir, "recent.jsonl"), "--set", "IS_RECENT_QUERY=true"}, base...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "IS_RECENT_QUERY=true") {
		t.Errorf("IS_RECENT_QUERY: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "recent.jsonl")); err == nil {
		t.Error("a refused --queries left a file")
	}
}

func firstDiff(a, b []string) string {
	var out []string
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			out = append(out, fmt.Sprintf("file %q\nrun  %q", x, y))
			if len(out) == 3 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
