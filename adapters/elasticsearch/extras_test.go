package elasticsearch

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/runner"
)

// TestPipelineCountsEveryDocument runs the ingest through a pipeline that
// tsbench creates from a file: the nodes' pipeline count must grow by
// exactly the documents sent, and cleanup must remove the pipeline.
func TestPipelineCountsEveryDocument(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pipeline.json")
	if err := os.WriteFile(file, []byte(`{"description":"empty","processors":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := esPlan(t, "DB_NAME=tsbench_pipeline", "DEVICE_NUMBER=3", "DATA_CLIENT_NUMBER=3", "SENSOR_NUMBER=5", "LOOP=7", "BATCH_SIZE_PER_WRITE=30",
		"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "ES_PIPELINE=tsbench-test-pipeline", "ES_PIPELINE_FILE="+file, "VERIFY=true")
	res, err := runner.Run(context.Background(), p, ptr(Driver()), runner.Options{})
	if err != nil || res.Stopped != nil || res.VerifyFailed() {
		t.Fatalf("run: %v %v, verify failed %v", err, res.Stopped, res.VerifyFailed())
	}
	got := map[string]float64{}
	for _, m := range res.ServerMetrics {
		got[m.Name] = m.Value
	}
	docs := float64(3 * 7 * 30)
	if got["Total Ingest Pipeline count"] != docs || got["Total Ingest Pipeline failed"] != 0 {
		t.Fatalf("pipeline count %g (failed %g), want the %g documents sent", got["Total Ingest Pipeline count"], got["Total Ingest Pipeline failed"], docs)
	}
	a := openPlain(t, p)
	if err := a.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.do(context.Background(), http.MethodGet, "/_ingest/pipeline/tsbench-test-pipeline", nil, nil); !notFound(err) {
		t.Fatalf("the pipeline is still there after cleanup: %v", err)
	}
}

// TestExtraIndicesWithAliases creates and removes many empty indices with
// aliases, as the users' cluster with 1,000 indices has them.
func TestExtraIndicesWithAliases(t *testing.T) {
	p := esPlan(t, "DB_NAME=tsbench_many", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=2", "LOOP=2", "BATCH_SIZE_PER_WRITE=10",
		"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "ES_EXTRA_INDICES=120", "ES_ALIASES_PER_INDEX=3")
	res, err := runner.Run(context.Background(), p, ptr(Driver()), runner.Options{})
	if err != nil || res.Stopped != nil {
		t.Fatalf("run: %v %v", err, res.Stopped)
	}
	a := openPlain(t, p)
	var aliases map[string]struct {
		Aliases map[string]any `json:"aliases"`
	}
	if err := a.do(context.Background(), http.MethodGet, "/tsbench_many-extra-*/_alias", nil, &aliases); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, idx := range aliases {
		n += len(idx.Aliases)
	}
	if len(aliases) != 120 || n != 360 {
		t.Fatalf("%d extra indices with %d aliases, want 120 with 360", len(aliases), n)
	}
	if err := a.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	aliases = nil
	if err := a.do(context.Background(), http.MethodGet, "/tsbench_many-extra-*/_alias", nil, &aliases); err != nil || len(aliases) != 0 {
		t.Fatalf("after cleanup %d extra indices are left (%v)", len(aliases), err)
	}
}

// openPlain opens the adapter of a plan's configuration, closed when the
// test ends.
func openPlain(t *testing.T, p *runner.Plan) *Adapter {
	t.Helper()
	ad, err := open(context.Background(), adapters.Params{Config: p.Config, Schema: p.Schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close() })
	return ad.(*Adapter)
}

// openClean opens the adapter, removes what an earlier run left and, with
// schema, creates the indices; what the test leaves is removed at its end.
func openClean(t *testing.T, p *runner.Plan, schema bool) *Adapter {
	t.Helper()
	a := openPlain(t, p)
	ctx := context.Background()
	t.Cleanup(func() { a.Cleanup(ctx) })
	if err := a.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if schema {
		if err := a.CreateSchema(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return a
}
