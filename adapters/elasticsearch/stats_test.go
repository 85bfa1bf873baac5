package elasticsearch

import (
	"context"
	"encoding/json"
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

// TestServerMetricsNotReported reads the statistics a node answers without
// any of the figures tsbench reads (an empty _stats and _nodes/stats, as
// a stub or a version without them answers): every metric is listed as not
// reported, none as 0. Then a 7.x-like answer with the segments' heap
// figures: those rows are reported, in MB, and the figures 7.x lacks
// (dataset size) stay not reported.
func TestServerMetricsNotReported(t *testing.T) {
	read := func(index, nodes string) map[string]float64 {
		var r statsResponses
		if err := json.Unmarshal([]byte(index), &r.Index); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(nodes), &r.Nodes); err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, m := range r.metrics() {
			if m.NotReported {
				if m.Value != 0 {
					t.Errorf("%s: not reported with the value %g", m.Name, m.Value)
				}
				continue
			}
			got[m.Name] = m.Value
		}
		return got
	}
	if got := read(`{"_all": {"primaries": {}, "total": {}}, "indices": {}}`, `{"nodes": {"n1": {}}}`); len(got) != 0 {
		t.Errorf("empty statistics reported %v", got)
	}
	got := read(`{"_all": {"primaries": {"segments": {"count": 29}, "indexing": {"index_time_in_millis": 120000}},
		"total": {"store": {"size_in_bytes": 1073741824}, "segments": {"memory_in_bytes": 2097152, "terms_memory_in_bytes": 1048576}}},
		"indices": {"i": {"shards": {"0": [{"routing": {"primary": true}, "indexing": {"index_time_in_millis": 120000}}]}}}}`,
		`{"nodes": {"n1": {"jvm": {"gc": {"collectors": {"young": {"collection_count": 4, "collection_time_in_millis": 1500}}}}}}}`)
	want := map[string]float64{
		"Segment count": 29, "Cumulative indexing time of primary shards": 2, "Min cumulative indexing time across primary shards": 2,
		"Median cumulative indexing time across primary shards": 2, "Max cumulative indexing time across primary shards": 2,
		"Store size": 1, "Heap used for segments": 2, "Heap used for terms": 1, "Total Young Gen GC count": 4, "Total Young Gen GC time": 1.5,
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s = %g (reported: %v), want %g", name, got[name], got[name] != 0, v)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s reported as %g, but the answer holds no such figure", name, got[name])
		}
	}
}
