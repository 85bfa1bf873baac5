package elasticsearch

import (
	"path/filepath"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestExclusive: a second run on the indices of a running one is refused
// at its start; a killed run's marker is taken over (adaptertest.Exclusive),
// on Elasticsearch and on OpenSearch. It runs the bench binary from this
// package, whose fault tests stop the server: tests of one package run one
// after another.
func TestExclusive(t *testing.T) {
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	for _, s := range []struct{ name, env, script, config string }{
		{"Elasticsearch", "TSBENCH_ES", "scripts/elasticsearch start", "examples/elasticsearch.properties"},
		{"OpenSearch", "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", "examples/opensearch.properties"},
	} {
		t.Run(s.name, func(t *testing.T) {
			host, port := server(t, s.env, s.script)
			adaptertest.Exclusive{Bin: bin, Dir: filepath.Join("..", ".."), Config: s.config,
				Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_exclusive", "RESULTS_DIR=" + t.TempDir(),
					"GROUP_NUMBER=1", "DEVICE_NUMBER=2", "SENSOR_NUMBER=2", "QUERY_SENSOR_NUM=1", "DATA_CLIENT_NUMBER=1"}}.Run(t)
		})
	}
}

// TestAnswersThroughTheBinary: CHECK_ANSWERS finds every answer right on
// Elasticsearch, and a binary that breaks one family's answers fails the
// run naming it (adaptertest.Answers).
func TestAnswersThroughTheBinary(t *testing.T) {
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	sets := append([]string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_answers", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "QUERY_SENSOR_NUM=3"}, adaptertest.SmallAnswers...)
	adaptertest.Answers{Dir: filepath.Join("..", ".."), Config: "examples/elasticsearch.properties", Sets: sets, Sabotage: "AGG_RANGE:shift", Family: "AGG_RANGE"}.Run(t)
}
