package elasticsearch

import (
	"path/filepath"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/queries"
)

// q4Body is the search body tsbench sends for Q4 with one sensor and two
// devices (aggregationBody), written with placeholders.
const q4Body = `{"size":0,"query":{"bool":{"filter":[{"terms":{"device":[{devices}]}},{"range":{"ts":{"gte":{start},"lte":{end}}}}]}},` +
	`"aggs":{"d":{"terms":{"field":"device","size":2},"aggs":{"s0":{"{aggregate}":{"field":"{sensor}"}}}}}}`

// TestOwnRequests: a suite's own search body that is Q4's answers Q4's
// points on Elasticsearch and OpenSearch through the binary, and two runs
// compare (adaptertest.OwnRequests); a request may name its endpoint.
func TestOwnRequests(t *testing.T) {
	for _, s := range []struct{ name, env, script, config string }{
		{"Elasticsearch", "TSBENCH_ES", "scripts/elasticsearch start", "examples/elasticsearch.properties"},
		{"OpenSearch", "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", "examples/opensearch.properties"},
	} {
		t.Run(s.name, func(t *testing.T) {
			host, port := server(t, s.env, s.script)
			adaptertest.OwnRequests{Dir: filepath.Join("..", ".."), Config: s.config, Language: "elasticsearch",
				Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_own", "GROUP_NUMBER=1", "DEVICE_NUMBER=4", "SENSOR_NUMBER=4", "DATA_CLIENT_NUMBER=2",
					"LOOP=20", "QUERY_LOOP=6", "QUERY_SENSOR_NUM=1", "QUERY_DEVICE_NUM=2", "QUERY_AGGREGATE_FUN=max_value", "QUERY_ROUNDS=2", "INIT_WAIT_TIME=0"},
				Request: q4Body}.Run(t)
		})
	}
}

// The request's endpoint: a bare body searches the query's index; a path,
// with or without a method, is taken as given.
func TestSplitRequest(t *testing.T) {
	a := &Adapter{indices: []string{"test-g_0"}}
	for _, c := range []struct{ req, method, path, body string }{
		{`{"size":0}`, "POST", "/test-g_0/_search", `{"size":0}`},
		{`/test-g_0/_count {"query":{"match_all":{}}}`, "POST", "/test-g_0/_count", `{"query":{"match_all":{}}}`},
		{`GET /_cat/indices`, "GET", "/_cat/indices", ""},
		{`GET {"size":1}`, "GET", "/test-g_0/_search", `{"size":1}`},
	} {
		m, p, b := a.splitRequest(&queries.Query{Request: c.req})
		if m != c.method || p != c.path || b != c.body {
			t.Errorf("%q: %s %s %q, want %s %s %q", c.req, m, p, b, c.method, c.path, c.body)
		}
	}
}

// aggValues counts a metric's value, a multi-value metric's values and
// those in buckets, and no counts of documents.
func TestAggValues(t *testing.T) {
	aggs := map[string]any{
		"d": map[string]any{"sum_other_doc_count": 0.0, "buckets": []any{
			map[string]any{"key": "d_0", "doc_count": 5.0, "s0": map[string]any{"value": 1.5}, "p": map[string]any{"values": map[string]any{"50.0": 1.0, "99.0": nil}}},
			map[string]any{"key": "d_1", "doc_count": 0.0, "s0": map[string]any{"value": nil}},
		}},
	}
	if n := aggValues(aggs); n != 2 {
		t.Fatalf("%d values, want 2 (d_0's max and its median)", n)
	}
}

// TestReplay: bench generate's files replayed with FILE_PATH into
// Elasticsearch pass VERIFY and CHECK_ANSWERS as the generated run does
// (adaptertest.Replay).
func TestReplay(t *testing.T) {
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	adaptertest.Replay{Dir: filepath.Join("..", ".."), Config: "examples/elasticsearch.properties",
		Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_replay", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "DATA_CLIENT_NUMBER=2",
			"QUERY_SENSOR_NUM=2", "QUERY_DEVICE_NUM=2", "LOOP=20", "QUERY_LOOP=4", "QUERY_ROUNDS=1"}}.Run(t)
}
