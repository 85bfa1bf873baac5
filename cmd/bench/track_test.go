package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrackRefused: a TRACK_PATH the run cannot use is refused before
// anything connects, exit 2, naming the key and the reason, with nothing
// saved: a database of rows, a templated track, queries beside it, a file
// whose size is not the track's, and the keys that need a TRACK_PATH. The
// real ingest is adapters/elasticsearch's TestTrackThroughTheBinary.
func TestTrackRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const track = `{"indices": [{"name": "logs"}], "corpora": [{"name": "c", "documents": [{"source-file": "d.json", "target-index": "logs", "document-count": 2, "uncompressed-bytes": %d}]}],
	  "schedule": [{"operation": {"operation-type": "bulk", "bulk-size": 10}}]}`
	write("good/track.json", strings.Replace(track, "%d", "16", 1))
	write("good/d.json", "{\"a\":1}\n{\"a\":2}\n")
	write("short/track.json", strings.Replace(track, "%d", "99", 1))
	write("short/d.json", "{\"a\":1}\n{\"a\":2}\n")
	write("jinja/track.json", `{"indices": [{"name": "logs"}], "schedule": [{"operation": {"operation-type": "bulk", "bulk-size": {{ bulk_size | default(5000) }}}}]}`)
	results := filepath.Join(dir, "results")
	base := []string{"--set", "DB_SWITCH=Elasticsearch", "--set", "HOST=127.0.0.1", "--set", "PORT=1", "--set", "RESULTS_DIR=" + results}
	es := append([]string{"--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"}, base...)
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "TRACK_PATH=" + filepath.Join(dir, "good"), "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"}, "TRACK_PATH=" + filepath.Join(dir, "good") + ": names documents, and Null stores rows, not documents"},
		{append([]string{"--set", "TRACK_PATH=" + filepath.Join(dir, "jinja")}, es...), "uses Jinja templating (line 1"},
		{append([]string{"--set", "TRACK_PATH=" + filepath.Join(dir, "good"), "--set", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0"}, base...), "the query families read the generated rows"},
		{append([]string{"--set", "TRACK_PATH=" + filepath.Join(dir, "short")}, es...), "holds 16 bytes; the track says 99 (uncompressed-bytes)"},
		{append([]string{"--set", "TRACK_PATH=" + filepath.Join(dir, "good"), "--set", "TRACK_INDEX_BODY=x.json"}, es...), "TRACK_INDEX_BODY=x.json: is the body of a documents file's index"},
		{append([]string{"--set", "TRACK_CHALLENGE=append"}, es...), "TRACK_CHALLENGE=append: applies to TRACK_PATH's documents, and TRACK_PATH is empty"},
		{append([]string{"--set", "TRACK_PATH=" + filepath.Join(dir, "good"), "--set", "WARMUP_OPERATIONS=5"}, es...), "WARMUP_OPERATIONS=5: counts a client's operations"},
	} {
		r := bench(t, append([]string{"run", "-c", "config.properties"}, tc.sets...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", tc.sets, r.code, tc.want, r.stderr)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(results, "*.json")); len(files) != 0 {
		t.Errorf("refused runs saved records: %v", files)
	}
	// bench generate writes rows, not a track's documents; the dry run
	// describes the track without reading its documents.
	if r := bench(t, "generate", "-c", "config.properties", "--set", "DB_SWITCH=Elasticsearch", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "TRACK_PATH="+filepath.Join(dir, "good"), "--out", filepath.Join(dir, "data")); r.code != 2 || !strings.Contains(r.stderr, "bench generate writes the generated rows") {
		t.Errorf("generate with a track: exit %d\n%s", r.code, r.stderr)
	}
	r := bench(t, append([]string{"run", "-c", "config.properties", "--dry-run", "--set", "TRACK_PATH=" + filepath.Join(dir, "good")}, es...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "Documents: TRACK_PATH="+filepath.Join(dir, "good")+", bulk task bulk: 1 files into logs, 100 documents a bulk") ||
		!strings.Contains(r.stdout, "d.json → logs (2 documents)") || !strings.Contains(r.stdout, "Size: this run writes 2 documents (16 B)") {
		t.Errorf("--dry-run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
