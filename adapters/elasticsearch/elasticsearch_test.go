package elasticsearch

import (
	"context"
	"testing"

	"strings"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
)

// server returns the address of the server in env (set by scripts/test).
// bothServers are the two servers of the tests that run through the binary
// on each: the test's name, the environment variable with its address, how
// to start it, and its example configuration.
var bothServers = []struct{ name, env, script, config string }{
	{"Elasticsearch", "TSBENCH_ES", "scripts/elasticsearch start", "../../examples/elasticsearch.properties"},
	{"OpenSearch", "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", "../../examples/opensearch.properties"},
}

func server(t *testing.T, env, script string) (host, port string) {
	return adaptertest.Server(t, env, script, "./adapters/elasticsearch")
}

// noNewTypes: the adapter refuses BLOB, TIMESTAMP and DATE at Check, as
// iot-benchmark does for every database but IoTDB (cmd/bench's bad-input
// test shows the message); STRING is a keyword like TEXT.
const noNewTypes = "Elasticsearch does not store BLOB, TIMESTAMP or DATE (docs/compat.md)"

// TestConformance runs the suite every adapter passes against a real
// Elasticsearch and a real OpenSearch.
func TestConformance(t *testing.T) {
	for _, s := range []struct {
		name, env, script string
		sets              []string
		skip              map[string]string
	}{
		{"Elasticsearch", "TSBENCH_ES", "scripts/elasticsearch start", nil, map[string]string{"EveryNewTypeCount": noNewTypes}},
		{"OpenSearch", "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", nil, map[string]string{"EveryNewTypeCount": noNewTypes}},
		{"ElasticsearchTimeSeries", "TSBENCH_ES", "scripts/elasticsearch start", []string{"ES_INDEX_MODE=time_series"},
			map[string]string{"MicrosecondsDivMin": "a time series index keeps @timestamp in milliseconds (ES_INDEX_MODE=time_series needs TIMESTAMP_PRECISION=ms)", "EveryNewTypeCount": noNewTypes}},
	} {
		t.Run(s.name, func(t *testing.T) {
			host, port := server(t, s.env, s.script)
			adaptertest.Run(t, adaptertest.Target{
				Driver: Driver(),
				Sets: append([]string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_conformance", "WRITE_OPERATION_TIMEOUT_MS=30000", "READ_OPERATION_TIMEOUT_MS=30000"},
					s.sets...),
				Unreachable: []string{"HOST=127.0.0.1", "PORT=1"},
				Skip:        s.skip,
			})
		})
	}
}

// TestTimeSeriesRefusedWhereMissing: OpenSearch has no time series
// indices, so ES_INDEX_MODE=time_series must end the run at Open with one
// line saying so.
func TestTimeSeriesRefusedWhereMissing(t *testing.T) {
	host, port := server(t, "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start")
	c := adaptertest.Load(t, Driver(), "HOST="+host, "PORT="+port, "ES_INDEX_MODE=time_series", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1")
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Driver().Open(context.Background(), adapters.Params{Config: c, Schema: s})
	if err == nil || !strings.Contains(err.Error(), "ES_INDEX_MODE=time_series needs Elasticsearch 8.7 or newer; OpenSearch") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open: %v", err)
	}
}
