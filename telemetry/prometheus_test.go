package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestParseIoTDB reads a real IoTDB 2.0.10 DataNode's exposition (trimmed
// to a few families), whose reporter repeats HELP and TYPE before every
// sample, with the Prometheus parser.
func TestParseIoTDB(t *testing.T) {
	f, err := os.Open("testdata/iotdb-datanode.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := parseText(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string, labels map[string]string) (float64, int) {
		v, n := 0.0, 0
		for _, s := range samples {
			if s.Name == name && s.Has(labels) {
				v += s.Value
				n++
			}
		}
		return v, n
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
		n      int
	}{
		{"cost_task_seconds_count", map[string]string{"name": "flush"}, 5, 1},
		{"cost_task_seconds_sum", map[string]string{"name": "flush"}, 0.614, 1},
		{"file_global_size", map[string]string{"name": "seq", "database": "root.weekly.*"}, 236085 + 237693 + 242505 + 236164, 4},
		{"process_cpu_time", nil, 8.82e9, 1},
		{"cost_task_seconds_count", map[string]string{"name": "*_compaction"}, 0, 5},
	} {
		got, n := find(c.name, c.labels)
		if n != c.n || got != c.want {
			t.Errorf("%s%v: %v over %d samples, want %v over %d", c.name, c.labels, got, n, c.want, c.n)
		}
	}
	for _, s := range samples {
		if s.Name == "cost_task_seconds_count" && !s.Counter {
			t.Errorf("a summary's count is cumulative: %+v", s)
		}
		if s.Name == "file_global_size" && s.Counter {
			t.Errorf("a gauge is not: %+v", s)
		}
	}
}

func serve(t *testing.T, body func() string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(body()))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestPrometheusReader: picks are sums of the samples they match, scaled;
// a pick the endpoint does not list is left out and named in a note (not
// 0), unless it is Absent0; the raw series keep every sample; a sample
// that goes missing later misses that read.
func TestPrometheusReader(t *testing.T) {
	var n atomic.Int64
	url := serve(t, func() string {
		i := n.Add(1)
		out := "# TYPE cpu gauge\ncpu 2e9\n# TYPE flushes_total counter\nflushes_total{db=\"a\"} " + strconv.FormatInt(i, 10) + "\nflushes_total{db=\"b\"} 10\n"
		if i >= 3 {
			out += "files{db=\"a\"} 7\n"
		}
		if i == 4 {
			out = "# TYPE cpu gauge\ncpu 3e9\n"
		}
		return out
	})
	picks := []Pick{
		{Name: "CPU", Unit: "s", Counter: true, Metric: "cpu", Scale: 1e-9},
		{Name: "flushes", Counter: true, Metric: "flushes_total"},
		{Name: "flushes of a", Counter: true, Metric: "flushes_total", Labels: map[string]string{"db": "a"}},
		{Name: "files", Metric: "files", Absent0: true},
		{Name: "GC", Metric: "gc_count"},
	}
	r, notes, err := Prometheus(context.Background(), Endpoint{Name: "node", URL: url + "/metrics", Picks: picks, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "node does not report GC") {
		t.Errorf("notes %q: one, naming GC", notes)
	}
	var names []string
	for _, f := range r.Figures() {
		names = append(names, f.Name)
	}
	want := `CPU|flushes|flushes of a|files|cpu|flushes_total{db="a"}|flushes_total{db="b"}`
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("figures %s, want %s", got, want)
	}
	for i, wantVals := range []string{"2 12 2 0 2e+09 2 10", "2 13 3 7 2e+09 3 10"} {
		v, err := r.Read(context.Background())
		if err != nil {
			t.Fatalf("read %d: %v", i+2, err)
		}
		if got := floats(v); got != wantVals {
			t.Errorf("read %d: %s, want %s", i+2, got, wantVals)
		}
	}
	if _, err := r.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "no longer lists flushes_total") {
		t.Errorf("a pick gone from the endpoint: %v, want an error naming it", err)
	}
}

// TestDeadEndpoint: an endpoint nobody answers fails at once, and a
// Sampler with it reads nothing from it while its other sources go on.
func TestDeadEndpoint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if _, _, err := Prometheus(context.Background(), Endpoint{Name: "gone", URL: "http://" + addr + "/metrics"}); err == nil {
		t.Fatal("a dead endpoint: want an error")
	}
	// An endpoint that dies after the look-up costs its samples only.
	var up atomic.Bool
	up.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("g 1\n"))
	}))
	defer srv.Close()
	r, _, err := Prometheus(context.Background(), Endpoint{Name: "dying", URL: srv.URL, Picks: []Pick{{Name: "g", Metric: "g"}}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{vals: [][]float64{{1, 1}}}
	s := &Sampler{Interval: 10 * time.Millisecond, readers: []Reader{r, f}}
	sm := s.Start(context.Background())
	up.Store(false)
	time.Sleep(40 * time.Millisecond)
	srcs := sm.Stop()
	if srcs[0].Missed == 0 || !strings.Contains(srcs[0].Error, "503") || len(srcs[0].At) != 1 {
		t.Errorf("the dead endpoint: %d samples, %d missed (%q); want 1 and some missed, naming the answer", len(srcs[0].At), srcs[0].Missed, srcs[0].Error)
	}
	if srcs[1].Missed != 0 || len(srcs[1].At) < 3 {
		t.Errorf("the other source: %d samples, %d missed; want every sample", len(srcs[1].At), srcs[1].Missed)
	}
}

func floats(v []float64) string {
	var parts []string
	for _, f := range v {
		parts = append(parts, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

// body is a transport that answers every request with the same body, so
// that a benchmark measures the reading side alone (a server's own work is
// the server's CPU, not tsbench's).
type body []byte

func (b body) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Body: io.NopCloser(bytes.NewReader(b)), ContentLength: int64(len(b))}, nil
}

// BenchmarkPrometheusRead is one read of a real IoTDB 2.0.10 DataNode's
// endpoint at the IMPORTANT level after an ingest (testdata, 4,900 lines,
// 0.5 MB), parsed and summed into IoTDB's picks as the adapter declares
// them (a copy here: telemetry cannot import the adapter); the answer comes
// from memory, not a socket.
func BenchmarkPrometheusRead(b *testing.B) {
	f, err := os.Open("testdata/iotdb-datanode-full.prom.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: body(text)}
	picks := []Pick{
		{Name: "process CPU", Counter: true, Metric: "process_cpu_time", Scale: 1e-9},
		{Name: "JVM heap used", Metric: "jvm_memory_used_bytes", Labels: map[string]string{"area": "heap"}},
		{Name: "GC pauses", Counter: true, Metric: "jvm_gc_pause_seconds_count"},
		{Name: "points written", Counter: true, Metric: "quantity_total", Labels: map[string]string{"name": "points_in"}, Absent0: true},
		{Name: "write requests", Counter: true, Metric: "performance_overview_seconds_count", Labels: map[string]string{"interface": "insert*"}, Absent0: true},
		{Name: "flushes", Counter: true, Metric: "cost_task_seconds_count", Labels: map[string]string{"name": "flush"}, Absent0: true},
		{Name: "compactions", Counter: true, Metric: "cost_task_seconds_count", Labels: map[string]string{"name": "*_compaction"}, Absent0: true},
		{Name: "memtable memory", Metric: "mem", Labels: map[string]string{"name": "database_*"}, Absent0: true},
		{Name: "WAL size", Metric: "file_size", Labels: map[string]string{"name": "wal"}},
		{Name: "sequence file size", Metric: "file_global_size", Labels: map[string]string{"name": "seq"}, Absent0: true},
	}
	r, _, err := Prometheus(context.Background(), Endpoint{Name: "node", URL: "http://node/metrics", Picks: picks, Client: client})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
