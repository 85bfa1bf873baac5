package elasticsearch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// serverKeys are the shared keys whose effect only a server sees; the
// key walk of cmd/bench leaves them to this one (and IoTDB's).
var serverKeys = []string{"HOST", "PORT", "USERNAME", "PASSWORD", "DB_NAME", "CLEAR_CACHE", "TRACK_PATH", "TRACK_CHALLENGE", "TRACK_INDEX_BODY"}

// TestEveryKeyChangesWhatIsSent walks the keys of Elasticsearch and
// OpenSearch and the shared keys only a server sees, through the bench
// binary against the real Elasticsearch behind a relay that keeps every
// HTTP request a run sends: each key's value must change the requests
// (method, path, the kind of credentials, a digest of the body) or whether
// the run gets through. A key added to Keys() without an entry here fails.
func TestEveryKeyChangesWhatIsSent(t *testing.T) {
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	plain := adaptertest.NewCapture(t, net.JoinHostPort(host, port), false)
	secure := adaptertest.NewCapture(t, net.JoinHostPort(host, port), true)
	pipeline := filepath.Join("examples", "empty-pipeline.json")
	// A track, and its documents as a plain file of documents.
	track := filepath.Join(dir, "track")
	makeTrack(t, track, 2000)
	ingest := "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"
	keys := map[string][]string{
		"ES_INDEX_MODE":       {"ES_INDEX_MODE=time_series"},
		"ES_SHARDS":           {"ES_SHARDS=2"},
		"ES_REPLICAS":         {"ES_REPLICAS=1"},
		"ES_REFRESH_INTERVAL": {"ES_REFRESH_INTERVAL=30s"},
		"USE_SSL":             {"USE_SSL=true"},
		// Against the relay's TLS end: its CA is not the system's.
		"ES_CA_FILE":           {"USE_SSL=true", "PORT=" + secure.Port(), "ES_CA_FILE=" + secure.CAFile},
		"ES_API_KEY":           {"ES_API_KEY=dGVzdDp0ZXN0"},
		"ES_PIPELINE":          {"ES_PIPELINE=tsbench-walk-missing"},
		"ES_PIPELINE_FILE":     {"ES_PIPELINE=tsbench-walk", "ES_PIPELINE_FILE=" + pipeline},
		"ES_EXTRA_INDICES":     {"ES_EXTRA_INDICES=2"},
		"ES_ALIASES_PER_INDEX": {"ES_EXTRA_INDICES=2", "ES_ALIASES_PER_INDEX=2"},
		"HOST":                 {"HOST=127.0.0.2"},
		"PORT":                 {"PORT=1"},
		"USERNAME":             {"USERNAME=tsbench"},
		"PASSWORD":             {"USERNAME=tsbench", "PASSWORD=other-password"},
		"DB_NAME":              {"DB_NAME=tsbench_keys_other"},
		"CLEAR_CACHE":          {"QUERY_ROUNDS=1", "CLEAR_CACHE=false"},
		// The track's index, pipeline and documents instead of the rows.
		"TRACK_PATH": {ingest, "TRACK_PATH=" + track},
		// Another challenge puts another pipeline.
		"TRACK_CHALLENGE": {ingest, "TRACK_PATH=" + track, "TRACK_CHALLENGE=append-user-pipeline"},
		// The documents file's index gets the body's mappings.
		"TRACK_INDEX_BODY": {ingest, "TRACK_PATH=" + filepath.Join(track, "documents.json.bz2"), "TRACK_INDEX_BODY=" + filepath.Join(track, "index.json")},
	}
	must := append([]string(nil), serverKeys...)
	for _, k := range Keys().Keys {
		must = append(must, k.Name)
	}
	base := []string{"HOST=127.0.0.1", "PORT=" + plain.Port(), "DB_NAME=tsbench_keys", "GROUP_NUMBER=1", "DEVICE_NUMBER=2", "SENSOR_NUMBER=4",
		// One client: its requests come in one order.
		"DATA_CLIENT_NUMBER=1", "LOOP=24", "BATCH_SIZE_PER_WRITE=20", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:0:0",
		"QUERY_DEVICE_NUM=1", "QUERY_SENSOR_NUM=2", "QUERY_AGGREGATE_FUN=count", "QUERY_INTERVAL=20000", "GROUP_BY_TIME_UNIT=5000",
		"INIT_WAIT_TIME=0", "VERIFY=false", "WRITE_OPERATION_TIMEOUT_MS=20000", "READ_OPERATION_TIMEOUT_MS=20000", "RESULTS_DIR=" + filepath.Join(dir, "results")}
	probe := adaptertest.ServerProbe(bin, adaptertest.ConfigFile(t, "Elasticsearch"), base, requests, plain, secure)
	adaptertest.KeyWalk{Keys: keys, Must: must, Probe: probe}.Run(t)
}

// requests lists the HTTP requests of each connection as "method target
// credentials body-digest", sorted. The lock marker's requests (its
// holder's pid and times) are left out; bytes that are no HTTP (a TLS
// handshake to a plain server) show as such.
func requests(conns [][]byte) string {
	var lines []string
	for _, b := range conns {
		r := bufio.NewReader(bytes.NewReader(b))
		for {
			req, err := http.ReadRequest(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				lines = append(lines, fmt.Sprintf("no HTTP request: %d bytes", len(b)))
				break
			}
			body, _ := io.ReadAll(req.Body)
			if strings.Contains(req.URL.Path, "tsbench-lock") {
				continue
			}
			scheme, cred, _ := strings.Cut(req.Header.Get("Authorization"), " ")
			lines = append(lines, fmt.Sprintf("%s %s %s/%d %x", req.Method, req.URL.RequestURI(), scheme, len(cred), sha256.Sum256(body)))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
