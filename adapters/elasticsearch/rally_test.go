package elasticsearch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// TestRallyRowsThroughTheBinary runs two small ingests and queries through
// the bench binary against the real Elasticsearch and compares them: the
// run prints documents and MB/s, the record counts every row as a document
// and the bulk bodies' bytes, a server figure this version does not report
// is "not reported" (never 0) in the run, the record and compare, and
// compare has Rally's rows (documents/s, MB/s, P99.99, service time equal
// to latency without a schedule, and said so).
func TestRallyRowsThroughTheBinary(t *testing.T) {
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	results := filepath.Join(dir, "results")
	const devices, sensors, batch = 2, 5, 20
	args := []string{"-c", adaptertest.ConfigFile(t, "Elasticsearch"), "--label", "rally", "--repeat", "2"}
	for _, s := range []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_rally", "GROUP_NUMBER=1", "DEVICE_NUMBER=2", "SENSOR_NUMBER=5",
		"DATA_CLIENT_NUMBER=1", "LOOP=10", "BATCH_SIZE_PER_WRITE=20", "QUERY_ROUNDS=1", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0",
		"QUERY_DEVICE_NUM=1", "QUERY_SENSOR_NUM=2", "INIT_WAIT_TIME=0", "RESULTS_DIR=" + results} {
		args = append(args, "--set", s)
	}
	out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, args...)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "Documents (ingest)") {
		t.Errorf("no Documents table in the run's output:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(results, "*.json"))
	if len(files) != 2 {
		t.Fatalf("%d records, want 2", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Target.Documents {
		t.Error("the record does not say Elasticsearch counts documents")
	}
	for _, p := range rec.Phases {
		for _, op := range p.Operations {
			if op.Operation != "INGESTION" {
				continue
			}
			// One document a row of all sensors; a bulk line pair a row.
			if op.OKDocs == 0 || op.OKDocs%(devices*batch) != 0 || op.OKPoints != op.OKDocs*sensors || op.OKBytes < op.OKDocs*20 {
				t.Errorf("INGESTION: %d documents, %d points, %d bytes; want a document a row (%d points each)", op.OKDocs, op.OKPoints, op.OKBytes, sensors)
			}
		}
	}
	reported := map[string]bool{}
	for _, m := range rec.ServerMetrics {
		reported[m.Name] = !m.NotReported
		if m.NotReported && (m.Value != 0 || !strings.Contains(out, m.Name)) {
			t.Errorf("%s: not reported, with value %g", m.Name, m.Value)
		}
	}
	for _, name := range []string{"Store size", "Segment count", "Cumulative indexing time of primary shards"} {
		if !reported[name] {
			t.Errorf("%s is not reported by %s", name, rec.Target.Version)
		}
	}
	// Elasticsearch 8 answers the segments' heap with a constant 0.
	if strings.HasPrefix(rec.Target.Version, "Elasticsearch 8.") || strings.HasPrefix(rec.Target.Version, "Elasticsearch 9.") {
		if ok, seen := reported["Heap used for segments"]; ok || !seen {
			t.Errorf("%s: Heap used for segments reported %v, listed %v; want listed as not reported", rec.Target.Version, ok, seen)
		}
	}
	t.Logf("%s: not reported: %v", rec.Target.Version, func() (names []string) {
		for n, ok := range reported {
			if !ok {
				names = append(names, n)
			}
		}
		return
	}())
	cmp, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, "compare", "--results", results, files[0], files[1])
	if code != 0 {
		t.Fatalf("bench compare: exit %d\n%s", code, cmp)
	}
	for _, want := range []string{"document throughput", "docs/s", "data throughput", "MB/s", "min document throughput", "max document throughput",
		"99.99th percentile latency", "50th percentile service time", "equal to latency"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("bench compare lacks %q:\n%s", want, cmp)
		}
	}
	for name, ok := range reported {
		if !ok && !strings.Contains(cmp, name) {
			t.Errorf("bench compare leaves out %s, which the server did not report", name)
		}
	}
}
