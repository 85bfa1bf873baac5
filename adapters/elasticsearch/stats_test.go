package elasticsearch

import (
	"context"
	"testing"

	"github.com/tsbench/tsbench/runner"
)

// TestServerMetricsAfterIngest: after an ingest and a query round (whose
// lifecycle refreshes and flushes, so segments exist whatever the timing)
// the node metrics are there and plausible: indexing took time, segments
// exist, the store holds bytes, and every metric has a name Rally uses.
func TestServerMetricsAfterIngest(t *testing.T) {
	p := esPlan(t, "DB_NAME=tsbench_stats", "DEVICE_NUMBER=4", "GROUP_NUMBER=2", "DATA_CLIENT_NUMBER=2", "SENSOR_NUMBER=10", "LOOP=20", "BATCH_SIZE_PER_WRITE=100",
		"OPERATION_PROPORTION=1:0:1:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=1", "QUERY_LOOP=5", "DROP_CACHES_COMMAND=", "ES_SHARDS=2")
	res, err := runner.Run(context.Background(), p, ptr(Driver()), runner.Options{})
	if err != nil || res.Stopped != nil || res.ServerMetricsErr != nil {
		t.Fatalf("run: %v %v %v", err, res.Stopped, res.ServerMetricsErr)
	}
	got := map[string]float64{}
	for _, m := range res.ServerMetrics {
		got[m.Name] = m.Value
	}
	for _, name := range []string{"Cumulative indexing time of primary shards", "Min cumulative indexing time across primary shards",
		"Median cumulative indexing time across primary shards", "Max cumulative indexing time across primary shards",
		"Cumulative refresh count of primary shards", "Cumulative flush count of primary shards", "Segment count", "Store size"} {
		if got[name] <= 0 {
			t.Errorf("%s = %g after writing %d documents, want > 0", name, got[name], 4*20*100)
		}
	}
	if got["Min cumulative indexing time across primary shards"] > got["Max cumulative indexing time across primary shards"] {
		t.Error("min above max across primary shards")
	}
	for _, name := range []string{"Total Young Gen GC time", "Total Old Gen GC count", "Total Ingest Pipeline count", "Cumulative merge throttle time of primary shards"} {
		if v, ok := got[name]; !ok || v < 0 {
			t.Errorf("%s missing or negative (%g)", name, v)
		}
	}
	if got["Total Ingest Pipeline count"] != 0 {
		t.Errorf("no pipeline ran, yet the ingest pipeline count is %g", got["Total Ingest Pipeline count"])
	}
}
