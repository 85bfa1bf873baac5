package iotdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// serverKeys are the shared keys whose effect only a server sees; the
// key walk of cmd/bench leaves them to this one (and Elasticsearch's).
var serverKeys = []string{"HOST", "PORT", "USERNAME", "PASSWORD", "DB_NAME", "TABLE_TIME_COLUMN", "CLEAR_CACHE"}

// TestEveryKeyChangesWhatIsSent walks IoTDB's keys and the shared keys
// only a server sees, through the bench binary against the real server
// behind a relay that keeps every thrift frame a run sends: each key's
// value must change the frames (their methods and sizes) or whether the
// run gets through. IOTDB_SESSION_POOL_SIZE acts on how many sessions are
// open at once, which TestSessionPoolSizeBoundsSessions shows. A key added
// to Keys() without an entry here fails.
func TestEveryKeyChangesWhatIsSent(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	plain := adaptertest.NewCapture(t, net.JoinHostPort(host, port), false)
	secure := adaptertest.NewCapture(t, net.JoinHostPort(host, port), true)
	keys := map[string][]string{
		"COMPRESSOR":                   {"COMPRESSOR=SNAPPY"},
		"VECTOR":                       {"VECTOR=false"},
		"TEMPLATE":                     {"TEMPLATE=true"},
		"TEMPLATE_NAME":                {"TEMPLATE=true", "TEMPLATE_NAME=OtherTemplate"},
		"ENABLE_THRIFT_COMPRESSION":    {"ENABLE_THRIFT_COMPRESSION=true"},
		"ENABLE_IOTDB_RPC_COMPRESSION": {"ENABLE_IOTDB_RPC_COMPRESSION=false"},
		"USE_SSL":                      {"USE_SSL=true"},
		// Against the relay's TLS end: its CA is not the system's.
		"TRUST_STORE_PATH":  {"USE_SSL=true", "PORT=" + secure.Port(), "TRUST_STORE_PATH=" + secure.CAFile},
		"ALIGN_BY_DEVICE":   {"ALIGN_BY_DEVICE=true"},
		"HOST":              {"HOST=127.0.0.2"},
		"PORT":              {"PORT=1"},
		"USERNAME":          {"USERNAME=nobody"},
		"PASSWORD":          {"PASSWORD=not-the-password"},
		"DB_NAME":           {"DB_NAME=tsbench_keys_other"},
		"TABLE_TIME_COLUMN": {"IOTDB_DIALECT_MODE=table", "TABLE_TIME_COLUMN=ts"},
		"CLEAR_CACHE":       {"QUERY_ROUNDS=1", "CLEAR_CACHE=false"},
	}
	for _, typ := range encodingTypes {
		alt := "PLAIN"
		if encodingDefaults[typ] == "PLAIN" {
			alt = "DICTIONARY"
		}
		keys["ENCODING_"+typ] = []string{"ENCODING_" + typ + "=" + alt}
	}
	must := append([]string(nil), serverKeys...)
	for _, k := range Keys().Keys {
		must = append(must, k.Name)
	}
	base := []string{"DB_SWITCH=IoTDB-200-SESSION_BY_TABLET", "HOST=127.0.0.1", "PORT=" + plain.Port(), "DB_NAME=tsbench_keys",
		"GROUP_NUMBER=1", "DEVICE_NUMBER=2", "SENSOR_NUMBER=10", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0", "STRING_LENGTH=6",
		// One client: the frames of one session come in one order.
		"DATA_CLIENT_NUMBER=1", "LOOP=24", "BATCH_SIZE_PER_WRITE=20", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0",
		"QUERY_DEVICE_NUM=1", "QUERY_SENSOR_NUM=2", "QUERY_AGGREGATE_FUN=count", "QUERY_INTERVAL=20000", "GROUP_BY_TIME_UNIT=5000",
		"INIT_WAIT_TIME=0", "VERIFY=false", "WRITE_OPERATION_TIMEOUT_MS=20000", "READ_OPERATION_TIMEOUT_MS=20000", "RESULTS_DIR=" + filepath.Join(dir, "results")}
	probe := adaptertest.ServerProbe(bin, adaptertest.ConfigFile(t, "IoTDB-200-SESSION_BY_TABLET"), base, frames, plain, secure)
	elsewhere := map[string]string{"IOTDB_SESSION_POOL_SIZE": "TestSessionPoolSizeBoundsSessions",
		// They choose what is sampled of the nodes' metrics endpoints, not
		// what the session sends.
		"IOTDB_METRICS_PORT": "TestServerMetricsThroughTheBinary", "IOTDB_CONFIGNODE_METRICS_PORT": "TestServerMetricsThroughTheBinary",
		"IOTDB_METRICS_RAW": "TestServerMetricsThroughTheBinary", "IOTDB_METRICS_INTERVAL": "TestServerMetricsThroughTheBinary"}
	adaptertest.KeyWalk{Keys: keys, Must: must, Elsewhere: elsewhere, Probe: probe}.Run(t)
}

// TestSessionPoolSizeBoundsSessions shows IOTDB_SESSION_POOL_SIZE's
// effect: eight clients writing at once open more than three sessions;
// with a pool of one (plus the two the adapter keeps for itself) at most
// three are open at once.
func TestSessionPoolSizeBoundsSessions(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	relay := adaptertest.NewCapture(t, net.JoinHostPort(host, port), false)
	base := []string{"DB_SWITCH=IoTDB-200-SESSION_BY_TABLET", "HOST=127.0.0.1", "PORT=" + relay.Port(), "DB_NAME=tsbench_pool",
		"GROUP_NUMBER=1", "DEVICE_NUMBER=8", "SENSOR_NUMBER=50", "DATA_CLIENT_NUMBER=8", "LOOP=30", "BATCH_SIZE_PER_WRITE=100",
		"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "INIT_WAIT_TIME=0", "VERIFY=false", "RESULTS_DIR=" + filepath.Join(dir, "results")}
	cfg := adaptertest.ConfigFile(t, "IoTDB-200-SESSION_BY_TABLET")
	open := func(sets ...string) int {
		relay.Take()
		args := []string{"-c", cfg}
		for _, s := range adaptertest.Merge(base, sets) {
			args = append(args, "--set", s)
		}
		if out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, args...); code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", sets, code, out)
		}
		_, most, _ := relay.Take()
		return most
	}
	// The lock marker holds a session of its own beside the pool's.
	const marker = 1
	wide, narrow := open(), open("IOTDB_SESSION_POOL_SIZE=1")
	t.Logf("sessions open at once: %d with the default pool (DATA_CLIENT_NUMBER=8), %d with IOTDB_SESSION_POOL_SIZE=1", wide, narrow)
	if narrow > 1+2+marker {
		t.Errorf("IOTDB_SESSION_POOL_SIZE=1: %d sessions open at once, want at most %d", narrow, 1+2+marker)
	}
	if wide <= 1+2+marker {
		t.Errorf("the default pool: only %d sessions open at once with 8 clients; the comparison shows nothing", wide)
	}
}

// frames lists the thrift frames of each connection as "method size",
// sorted: what the run asked the server, without the bytes that differ
// from run to run only in value (session and statement ids keep their
// size). The lock marker's frames (its holder's pid and times) are left
// out; bytes that are no frame (a TLS handshake to a plain server) show
// as one partial frame.
func frames(conns [][]byte) string {
	var lines []string
	for _, b := range conns {
		for len(b) >= 4 {
			n := int(binary.BigEndian.Uint32(b))
			if n > len(b)-4 {
				lines = append(lines, fmt.Sprintf("partial frame: %d of %d bytes", len(b)-4, n))
				b = nil
				break
			}
			f := b[4 : 4+n]
			b = b[4+n:]
			if bytes.Contains(f, []byte("tsbench_lock")) {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s %d", method(f), n))
		}
		if len(b) > 0 {
			lines = append(lines, fmt.Sprintf("%d stray bytes", len(b)))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// method is the thrift method a frame calls, in the binary or the compact
// protocol.
func method(f []byte) string {
	switch {
	case len(f) >= 8 && f[0] == 0x80 && f[1] == 0x01:
		n := int(binary.BigEndian.Uint32(f[4:8]))
		if 8+n <= len(f) {
			return string(f[8 : 8+n])
		}
	case len(f) >= 2 && f[0] == 0x82:
		_, k := binary.Uvarint(f[2:]) // sequence id
		if k > 0 {
			n, j := binary.Uvarint(f[2+k:])
			if j > 0 && 2+k+j+int(n) <= len(f) {
				return "compact " + string(f[2+k+j:2+k+j+int(n)])
			}
		}
	}
	return "?"
}
