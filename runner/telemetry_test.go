package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/telemetry"
)

// withEndpoint is an adapter with a source of its own (as IoTDB's metrics
// endpoint is), which counts its reads.
type withEndpoint struct{ adapters.Adapter }

func (withEndpoint) TelemetrySources(context.Context) ([]telemetry.Reader, []string) {
	return []telemetry.Reader{&endpoint{}}, nil
}

type endpoint struct{ n float64 }

func (*endpoint) Name() string { return "endpoint" }
func (*endpoint) Figures() []telemetry.Series {
	return []telemetry.Series{{Name: "reads", Counter: true}}
}
func (e *endpoint) Read(context.Context) ([]float64, error) { e.n++; return []float64{e.n}, nil }

// TestServerTelemetry: every phase of a run samples the machine and the
// process behind the server's port; a port nobody listens on is one note
// of the run, however many phases; SERVER_METRICS_INTERVAL=0 samples
// nothing.
func TestServerTelemetry(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("host metrics come from /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	run := func(sets ...string) *Result {
		t.Helper()
		p := plan(t, append([]string{"DB_SWITCH=Null", "QUERY_ROUNDS=2", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "LOOP=30"}, sets...)...)
		d := null.Driver()
		d.Address = func(c *config.Config) []string { return []string{fmt.Sprintf("127.0.0.1:%d", c.Ports[0])} }
		res, err := Run(context.Background(), p, &d, Options{})
		if err != nil || res.Stopped != nil {
			t.Fatal(err, res.Stopped)
		}
		return res
	}
	res := run("HOST=127.0.0.1", fmt.Sprintf("PORT=%d", port), "SERVER_METRICS_INTERVAL=0.01")
	if len(res.Phases) != 3 {
		t.Fatalf("%d phases, want ingest and two query rounds", len(res.Phases))
	}
	self := fmt.Sprintf("process %d (", os.Getpid())
	for _, ph := range res.Phases {
		// And the disk of the process's working folder, where it is on a
		// block device.
		if len(ph.Server) < 2 || len(ph.Server) > 3 || ph.Server[0].Name != "machine" || !strings.HasPrefix(ph.Server[1].Name, self) ||
			len(ph.Server) == 3 && !strings.HasPrefix(ph.Server[2].Name, "disk ") {
			t.Fatalf("%s round %d: sources %+v, want the machine, %s…) and its disk", ph.Name, ph.Round, ph.Server, self)
		}
		for _, src := range ph.Server {
			if len(src.At) < 2 || src.Check() != nil {
				t.Errorf("%s: %d samples, %v", src.Name, len(src.At), src.Check())
			}
		}
	}
	res = run("HOST=127.0.0.1", "PORT=1", "SERVER_METRICS_INTERVAL=0.01")
	notes := 0
	for _, n := range res.Notes {
		if strings.Contains(n, "no process of this machine listens on port 1") {
			notes++
		}
	}
	if notes != 1 || len(res.Phases[2].Server) != 1 {
		t.Errorf("port 1: %d notes (want 1) in %q; sources of the last phase %d (want the machine)", notes, res.Notes, len(res.Phases[2].Server))
	}
	if res = run("SERVER_METRICS_INTERVAL=0"); res.Phases[0].Server != nil {
		t.Errorf("SERVER_METRICS_INTERVAL=0 sampled %+v", res.Phases[0].Server)
	}
	// A server on another host: nothing of this machine is passed off as
	// its; the run says so once. (Null connects to nothing.)
	res = run("HOST=db.example", "PORT=6667", "SERVER_METRICS_INTERVAL=0.01")
	if res.Phases[0].Server != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "the server is on another host (HOST db.example)") {
		t.Errorf("a remote server: sources %+v, notes %q", res.Phases[0].Server, res.Notes)
	}
	// With the database's own source (an endpoint of its), a remote
	// server still has that, sampled in every phase; the note says the
	// machine and the processes are not.
	d := null.Driver()
	open := d.Open
	d.Open = func(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
		a, err := open(ctx, p)
		return withEndpoint{a}, err
	}
	p := plan(t, "DB_SWITCH=Null", "QUERY_ROUNDS=2", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "LOOP=30", "HOST=db.example", "PORT=6667", "SERVER_METRICS_INTERVAL=0.01")
	d.Address = func(c *config.Config) []string { return []string{"db.example:6667"} }
	res, err = Run(context.Background(), p, &d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range res.Phases {
		if len(ph.Server) != 1 || ph.Server[0].Name != "endpoint" || len(ph.Server[0].At) < 2 || ph.Server[0].Check() != nil {
			t.Errorf("a remote server with an endpoint, %s round %d: sources %+v, want the endpoint's alone", ph.Name, ph.Round, ph.Server)
		}
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "only what the database reports itself") {
		t.Errorf("notes %q, want the remote server's", res.Notes)
	}
	// An embedded database works in tsbench's own process: that is sampled.
	p = plan(t, "DB_SWITCH=Null", "LOOP=30", "SERVER_METRICS_INTERVAL=0.01")
	res, err = Run(context.Background(), p, ptrDriver(null.Driver()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if srv := res.Phases[0].Server; len(srv) != 2 || srv[0].Name != "machine" || !strings.HasPrefix(srv[1].Name, self) {
		t.Errorf("embedded: sources %+v, want the machine and %s…)", srv, self)
	}
}

// TestFootprint: after the ingest and a flush, the SQLite file's size and
// the points the ingest wrote; none without telemetry or for a database
// that cannot say (Null).
func TestFootprint(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	p, res := sqliteRun(t, "SQLITE_PATH="+db, "QUERY_ROUNDS=1", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "SERVER_METRICS_INTERVAL=0.05")
	f := res.Footprint
	if f == nil {
		t.Fatalf("no footprint; notes %q", res.Notes)
	}
	st, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	// The query round and verify write nothing: the file is as measured.
	if f.Bytes != st.Size() || f.Points != op(res.Phases[0], config.Ingestion).OKPoints || f.Points != p.ExpectedPoints(&p.Schema.Devices[0])*int64(len(p.Schema.Devices)) || !strings.Contains(f.Where, db) {
		t.Errorf("footprint %+v; the file holds %d bytes, the ingest wrote %d points", f, st.Size(), op(res.Phases[0], config.Ingestion).OKPoints)
	}
	// SQLite works in tsbench's process (its address is its file's path,
	// not a server's).
	self := fmt.Sprintf("process %d (", os.Getpid())
	// And the disk of the file's folder, where it is on a block device.
	if srv := res.Phases[0].Server; len(srv) < 2 || !strings.HasPrefix(srv[1].Name, self) ||
		len(srv) == 3 && !strings.HasSuffix(srv[2].Name, "("+filepath.Dir(db)+")") || len(srv) == 2 && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "no block device") }) {
		t.Errorf("SQLite: sources %+v, want the machine, %s…) and the disk of %s; notes %q", srv, self, filepath.Dir(db), res.Notes)
	}
	if _, res := sqliteRun(t, "SQLITE_PATH="+filepath.Join(t.TempDir(), "g.db"), "SERVER_METRICS_INTERVAL=0"); res.Footprint != nil {
		t.Errorf("SERVER_METRICS_INTERVAL=0 measured %+v", res.Footprint)
	}
	res, err = Run(context.Background(), plan(t, "DB_SWITCH=Null"), ptrDriver(null.Driver()), Options{})
	if err != nil || res.Footprint != nil {
		t.Errorf("Null: %v, %+v", err, res.Footprint)
	}
	// A warm-up's writes are stored too: every point written counts.
	p, res = sqliteRun(t, "SQLITE_PATH="+filepath.Join(t.TempDir(), "w.db"), "QUERY_ROUNDS=1", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "WARMUP_OPERATIONS=2", "SERVER_METRICS_INTERVAL=0.05")
	if f := res.Footprint; f == nil || f.Points != p.ExpectedPoints(&p.Schema.Devices[0])*int64(len(p.Schema.Devices)) || res.Phases[0].Warmup == nil {
		t.Errorf("with a warm-up: %+v, want every written point (%d)", f, p.ExpectedPoints(&p.Schema.Devices[0])*int64(len(p.Schema.Devices)))
	}
	// Earlier data kept: bytes per point would count it; not measured.
	db = filepath.Join(t.TempDir(), "k.db")
	sqliteRun(t, "SQLITE_PATH="+db, "SERVER_METRICS_INTERVAL=0")
	_, res = sqliteRun(t, "SQLITE_PATH="+db, "IS_DELETE_DATA=false", "CREATE_SCHEMA=false", "VERIFY=false", "SERVER_METRICS_INTERVAL=0.05")
	if res.Footprint != nil || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "IS_DELETE_DATA=false") }) {
		t.Errorf("IS_DELETE_DATA=false: %+v, notes %q", res.Footprint, res.Notes)
	}
}
