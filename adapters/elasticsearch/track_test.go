package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// makeTrack writes tools/maketrack's track of n documents into dir.
func makeTrack(t *testing.T, dir string, n int) {
	t.Helper()
	cmd := exec.Command("go", "run", "./tools/maketrack", "-out", dir, "-docs", fmt.Sprint(n), "-bulk-size", "1000", "-clients", "3")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("maketrack: %v\n%s", err, out)
	}
}

// TestTrackThroughTheBinary ingests a Rally track (tools/maketrack's
// http_logs-like corpus, bzip2 as Rally ships it) through the bench binary
// into the real Elasticsearch and OpenSearch, and into the secured
// Elasticsearch once through each of two challenges' pipelines (none, and
// set_security_user), then compares those two: the track's bulk-size and
// clients are the run's where the configuration gives none, every
// document is sent once and counted by VERIFY and by the server's ingest
// pipeline counter, the processor's field is in the documents of its run
// only, the record's points are documents and its fingerprint names the
// documents, and compare judges the two runs as the same workload.
func TestTrackThroughTheBinary(t *testing.T) {
	const docs = 30000
	track := filepath.Join(t.TempDir(), "track")
	makeTrack(t, track, docs)
	bin := adaptertest.Binary(t, t.TempDir())
	for _, s := range []struct {
		name, env, script string
		challenges        []string
	}{
		{"Elasticsearch", "TSBENCH_ES", "scripts/elasticsearch start", []string{""}},
		{"OpenSearch", "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", []string{""}},
		{"SecuredPipelines", "", "", []string{"append-empty-pipeline", "append-user-pipeline"}},
	} {
		t.Run(s.name, func(t *testing.T) {
			var host, port string
			var sets []string
			if s.env == "" {
				var ca string
				host, port, ca = secured(t)
				sets = []string{"USE_SSL=true", "ES_CA_FILE=" + ca, "USERNAME=elastic", "PASSWORD=tsbench-elastic"}
			} else {
				host, port = server(t, s.env, s.script)
			}
			results := filepath.Join(t.TempDir(), "results")
			for _, challenge := range s.challenges {
				label := strings.TrimSuffix(strings.TrimPrefix(challenge, "append-"), "-pipeline")
				if label == "" {
					label = "default"
				}
				args := []string{"-c", adaptertest.ConfigFile(t, "Elasticsearch"), "--label", label}
				for _, kv := range append([]string{"HOST=" + host, "PORT=" + port, "TRACK_PATH=" + track, "TRACK_CHALLENGE=" + challenge, "VERIFY=true",
					"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0", "INIT_WAIT_TIME=0", "RESULTS_DIR=" + results}, sets...) {
					args = append(args, "--set", kv)
				}
				out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, args...)
				if code != 0 {
					t.Fatalf("bench run %s: exit %d\n%s", label, code, out)
				}
				for _, want := range []string{"BATCH_SIZE_PER_WRITE=1000 is the track's bulk task's bulk-size", "DATA_CLIENT_NUMBER=3 is the track's bulk task's clients",
					fmt.Sprintf("Size: this run writes %d documents", docs), "Verify: every index holds exactly the documents the workload writes."} {
					if !strings.Contains(out, want) {
						t.Errorf("%s: the output lacks %q:\n%s", label, want, out)
					}
				}
				rec := recordOf(t, results, label)
				ing := rec.Phases[0].Operations[0]
				// Documents are points here; 3 clients' parts of the file
				// in bulks of 1,000.
				if ing.Operation != "INGESTION" || ing.OKPoints != docs || ing.OKDocs != docs || ing.FailOps != 0 || ing.OKOps < docs/1000 || ing.OKOps > docs/1000+3 || ing.OKBytes < docs*100 {
					t.Errorf("%s: %s %d ok operations, %d points, %d documents, %d bytes, %d failed", label, ing.Operation, ing.OKOps, ing.OKPoints, ing.OKDocs, ing.OKBytes, ing.FailOps)
				}
				if v := rec.Verify; v == nil || !v.OK() || !v.Documents || v.Expected != docs || v.Found != docs || v.Devices != 1 {
					t.Errorf("%s: verify %+v", label, rec.Verify)
				}
				if rec.Config["BATCH_SIZE_PER_WRITE"] != "1000" || rec.Config["DATA_CLIENT_NUMBER"] != "3" || !strings.Contains(strings.Join(rec.WorkloadKeys, " "), "TRACK") || len(rec.Config["TRACK"]) != 16 {
					t.Errorf("%s: the record's BATCH_SIZE_PER_WRITE %s, DATA_CLIENT_NUMBER %s, workload keys %v, TRACK %q", label, rec.Config["BATCH_SIZE_PER_WRITE"], rec.Config["DATA_CLIENT_NUMBER"], rec.WorkloadKeys, rec.Config["TRACK"])
				}
				pipelined := false
				for _, m := range rec.ServerMetrics {
					if m.Name == "Total Ingest Pipeline count" {
						pipelined = m.Value == docs
					}
				}
				// OpenSearch skips a pipeline without processors and counts
				// nothing through it (its _nodes/stats/ingest stays at 0).
				if !pipelined && !strings.HasPrefix(rec.Target.Version, "OpenSearch") {
					t.Errorf("%s: the server's ingest pipeline count is not the %d documents: %+v", label, docs, rec.ServerMetrics)
				}
				if s.env == "" {
					// The processor's field is in the documents of its run only.
					users := count(t, host, port, sets, `{"query":{"term":{"user.username":"elastic"}}}`)
					if want := map[string]int64{"empty": 0, "user": docs}[label]; users != want {
						t.Errorf("%s: %d documents stamped with the user, want %d", label, users, want)
					}
				}
			}
			if s.name == "Elasticsearch" {
				// Paced and cut: TARGET_THROUGHPUT spaces the bulks,
				// TEST_MAX_TIME ends the ingest, and VERIFY, whose count
				// would report the cut as a loss, is skipped.
				args := []string{"-c", adaptertest.ConfigFile(t, "Elasticsearch"), "--label", "cut"}
				for _, kv := range []string{"HOST=" + host, "PORT=" + port, "TRACK_PATH=" + track, "VERIFY=true", "TARGET_THROUGHPUT=4", "TEST_MAX_TIME=2000",
					"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0", "INIT_WAIT_TIME=0", "RESULTS_DIR=" + results} {
					args = append(args, "--set", kv)
				}
				out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, args...)
				rec := recordOf(t, results, "cut")
				ops := rec.Phases[0].Operations[0].OKOps
				if code != 0 || !strings.Contains(out, fmt.Sprintf("ended the main phase after %d of its %d documents", ops*1000, docs)) || ops < 6 || ops > 10 || !strings.Contains(out, "skipped: TEST_MAX_TIME=2000 ms ended the main phase") {
					t.Errorf("paced and cut: exit %d, %d bulks\n%s", code, ops, out)
				}
			}
			if len(s.challenges) < 2 {
				return
			}
			out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, "compare", "empty", "user", "--results", results)
			if code != 0 && code != 1 || !strings.Contains(out, "document throughput") || !strings.Contains(out, "Total Ingest Pipeline time") {
				t.Errorf("compare empty user: exit %d\n%s", code, out)
			}
			t.Logf("compare empty user: exit %d\n%s", code, out)
		})
	}
}

// recordOf is the record of label in results.
func recordOf(t *testing.T, results, label string) *record.Record {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(results, "*.json"))
	for _, f := range files {
		if rec, err := record.Load(f); err == nil && rec.Label == label {
			return rec
		}
	}
	t.Fatalf("no record of %s among %v", label, files)
	return nil
}

// count is the documents of the track's index that match query, asked as
// the run's sets log in.
func count(t *testing.T, host, port string, sets []string, query string) int64 {
	t.Helper()
	c := adaptertest.Load(t, Driver(), append([]string{"HOST=" + host, "PORT=" + port}, sets...)...)
	a, err := newAdapter(c)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Count int64 `json:"count"`
	}
	if err := a.do(context.Background(), http.MethodPost, "/logs-small/_count", []byte(query), &res); err != nil {
		t.Fatal(err)
	}
	return res.Count
}

// TestGeneratedTrack: bench generate --format track writes the workload's
// documents as a Rally track, and a run with TRACK_PATH of it stores
// exactly the documents a run that generates them stores: the same
// sources, document for document, in every index, VERIFY counting them.
func TestGeneratedTrack(t *testing.T) {
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	conf := adaptertest.ConfigFile(t, "Elasticsearch")
	sets := []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_gentrack", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "DATA_CLIENT_NUMBER=2",
		"LOOP=10", "BATCH_SIZE_PER_WRITE=25", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0", "INIT_WAIT_TIME=0", "VERIFY=true",
		"IS_OUT_OF_ORDER=true", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:0:0:0:0:0", "RESULTS_DIR=" + filepath.Join(dir, "results")}
	args := func(cmd string, extra ...string) []string {
		a := []string{cmd, "-c", conf}
		for _, kv := range append(append([]string(nil), sets...), extra...) {
			a = append(a, "--set", kv)
		}
		return a
	}
	track := filepath.Join(dir, "track")
	if out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, append(args("generate"), "--format", "track", "--out", track)...); code != 0 || !strings.Contains(out, "wrote 1000 documents of 4 devices") {
		t.Fatalf("generate --format track: exit %d\n%s", code, out)
	}
	sources := func() string {
		var all []string
		for _, idx := range []string{"tsbench_gentrack-g_0", "tsbench_gentrack-g_1"} {
			c := adaptertest.Load(t, Driver(), "HOST="+host, "PORT="+port)
			a, err := newAdapter(c)
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				Hits struct {
					Hits []struct {
						Source json.RawMessage `json:"_source"`
					} `json:"hits"`
				} `json:"hits"`
			}
			if err := a.do(context.Background(), http.MethodPost, "/"+idx+"/_search", []byte(`{"size":10000,"sort":[{"device":"asc"},{"ts":"asc"}]}`), &res); err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits.Hits {
				all = append(all, idx+" "+string(h.Source))
			}
		}
		return strings.Join(all, "\n")
	}
	var got [2]string
	for i, run := range [][]string{args("run"), args("run", "TRACK_PATH="+track)} {
		if out, code := adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, run...); code != 0 || !strings.Contains(out, "Verify: every") {
			t.Fatalf("%v: exit %d\n%s", run, code, out)
		}
		got[i] = sources()
	}
	if strings.Count(got[0], "\n") != 999 || got[0] != got[1] {
		t.Errorf("the track's documents are not the generated ones: %d and %d documents\n%s", strings.Count(got[0], "\n")+1, strings.Count(got[1], "\n")+1, adaptertest.LineDiff(got[0], got[1]))
	}
}

// TestTypeless: a track's index body without a mapping type (Rally's since
// 7.x) is told apart from one with a type, so that 6.8 is asked to take it
// typeless and a typed body is sent as it is.
func TestTypeless(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{`{"mappings":{"dynamic":"strict","properties":{"a":{"type":"long"}}}}`, true},
		{`{"settings":{},"mappings":{"properties":{}}}`, true},
		{`{"mappings":{"_source":{"enabled":false}}}`, true},
		{`{"mappings":{"_doc":{"properties":{"a":{"type":"long"}}}}}`, false},
		{`{"settings":{"index":{"number_of_shards":1}}}`, false},
		{`not json`, false},
	} {
		if got := typeless([]byte(c.body)); got != c.want {
			t.Errorf("%s: %v, want %v", c.body, got, c.want)
		}
	}
}
