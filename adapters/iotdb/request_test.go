package iotdb

import (
	"path/filepath"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestOwnRequests: a suite's own SQL request that is Q4's statement, in
// the tree model and in the table model, answers Q4's points through the
// binary, and two runs compare (adaptertest.OwnRequests). Here, not in
// cmd/bench: this package's restart tests stop the server.
func TestOwnRequests(t *testing.T) {
	host, port := server(t)
	small := []string{"HOST=" + host, "PORT=" + port, "GROUP_NUMBER=1", "DEVICE_NUMBER=4", "SENSOR_NUMBER=4", "DATA_CLIENT_NUMBER=2", "LOOP=20", "QUERY_LOOP=6",
		"QUERY_SENSOR_NUM=1", "QUERY_DEVICE_NUM=2", "QUERY_AGGREGATE_FUN=max_value", "QUERY_ROUNDS=2", "INIT_WAIT_TIME=1000"}
	t.Run("tree", func(t *testing.T) {
		adaptertest.OwnRequests{Dir: filepath.Join("..", ".."), Config: "examples/iotdb.properties", Language: "iotdb",
			Sets:    append([]string{"DB_NAME=tsbench_own"}, small...),
			Request: "SELECT {aggregate}({sensor}) FROM {devices} WHERE time >= {start} AND time <= {end}"}.Run(t)
	})
	t.Run("table", func(t *testing.T) {
		adaptertest.OwnRequests{Dir: filepath.Join("..", ".."), Config: "examples/iotdb-table.properties", Language: "iotdb-table",
			Sets:    append([]string{"DB_NAME=tsbench_own_table", "IOTDB_TABLE_NUMBER=2"}, small...),
			Request: "SELECT device_id, {aggregate}({sensor}) FROM {table} WHERE device_id IN ({devices}) AND time >= {start} AND time <= {end} GROUP BY device_id"}.Run(t)
	})
}

// TestReplay: bench generate's files replayed with FILE_PATH into IoTDB,
// tree and table model, every type, pass VERIFY and CHECK_ANSWERS as the
// generated run does (adaptertest.Replay).
func TestReplay(t *testing.T) {
	host, port := server(t)
	small := []string{"HOST=" + host, "PORT=" + port, "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=10", "DATA_CLIENT_NUMBER=2", "QUERY_SENSOR_NUM=2", "LOOP=20", "QUERY_LOOP=4",
		"QUERY_ROUNDS=1", "INIT_WAIT_TIME=1000", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0"}
	t.Run("tree", func(t *testing.T) {
		adaptertest.Replay{Dir: filepath.Join("..", ".."), Config: "examples/iotdb.properties", Sets: append([]string{"DB_NAME=tsbench_replay"}, small...)}.Run(t)
	})
	t.Run("table", func(t *testing.T) {
		adaptertest.Replay{Dir: filepath.Join("..", ".."), Config: "examples/iotdb-table.properties",
			Sets: append([]string{"DB_NAME=tsbench_replay_table", "IOTDB_TABLE_NUMBER=2"}, small...)}.Run(t)
	})
}
