package main

import (
	"strings"
	"testing"

	"github.com/tsbench/tsbench/adapters/adaptertest"
)

// An iot-benchmark table-model configuration, in its own key spellings
// (tables, tags, every data type), runs unchanged through the binary, and
// VERIFY finds every point.
func TestIoTDBTableModelExample(t *testing.T) {
	host, port := adaptertest.Server(t, "TSBENCH_IOTDB", "scripts/iotdb start", "./cmd/bench")
	dir := t.TempDir()
	r := bench(t, "-c", "examples/iotdb-table.properties", "--set", "HOST="+host, "--set", "PORT="+port,
		"--set", "RESULTS_DIR="+dir, "--set", "DB_NAME=tsbench_example")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	recs := records(t, dir)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	if !strings.Contains(r.stdout, "Verify: every device holds exactly the points the workload writes.") {
		t.Fatalf("VERIFY did not pass:\n%s", r.stdout)
	}
	ops := 0
	for _, ph := range recs[0].Phases {
		for _, op := range ph.Operations {
			ops++
			if op.OKOps == 0 || op.FailOps > 0 {
				t.Errorf("%s: %d ok, %d failed operations", op.Operation, op.OKOps, op.FailOps)
			}
		}
	}
	if ops != 12 { // INGESTION and Q1-Q11
		t.Errorf("%d operations recorded, want 12", ops)
	}
}
