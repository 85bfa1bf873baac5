package iotdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/runner"
)

// server returns the address of the IoTDB the tests use (TSBENCH_IOTDB,
// set by scripts/test).
func server(t *testing.T) (host, port string) {
	return adaptertest.Server(t, "TSBENCH_IOTDB", "scripts/iotdb start", "./adapters/iotdb")
}

// managed reports whether the tests may stop and start the server
// (scripts/test sets TSBENCH_IOTDB_MANAGED when it started it).
func managed(t *testing.T) {
	if os.Getenv("TSBENCH_IOTDB_MANAGED") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TSBENCH_IOTDB_MANAGED is not set: CI must let the restart and fault tests control the server")
		}
		t.Skip("restart and fault tests stop the server: set TSBENCH_IOTDB_MANAGED=1 for a server started with scripts/iotdb")
	}
}

func script(t *testing.T, args ...string) {
	t.Helper()
	scriptEnv(t, nil, args...)
}

func scriptEnv(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "..", "scripts", "iotdb")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/iotdb %v: %v\n%s", args, err, out)
	}
}

// runPlan is the plan of a whole run against the test server.
func runPlan(t *testing.T, sets ...string) *runner.Plan {
	t.Helper()
	host, port := server(t)
	return planOf(t, append([]string{"HOST=" + host, "PORT=" + port}, sets...)...)
}

// openAfter opens the adapter on the data a run of p left, and drops the
// data when the test ends.
func openAfter(t *testing.T, p *runner.Plan) *Adapter {
	t.Helper()
	a, err := Driver().Open(context.Background(), adapters.Params{Config: p.Config, Schema: p.Schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Cleanup(context.Background())
		a.Close()
	})
	return a.(*Adapter)
}

// answersAreTheModels checks three queries of each family against the
// model of the data a complete run of p wrote; it fails when they all
// returned nothing.
func answersAreTheModels(t *testing.T, a *Adapter, p *runner.Plan, fams ...queries.Family) {
	t.Helper()
	cl := p.Queries.Client(0)
	cells := 0
	for range 3 {
		for _, fam := range fams {
			q := cl.Next(fam)
			got, err := a.Answer(context.Background(), &q)
			if err != nil {
				t.Fatal(err)
			}
			got.Sort()
			want := queries.Expected(p.Generator, &q)
			if d := queries.Diff(got, want); d != "" {
				t.Fatalf("%s: %s", fam.ID(), d)
			}
			cells += len(want)
		}
	}
	if cells == 0 {
		t.Fatal("every query returned nothing: the comparison proves little")
	}
}

// planOf is the plan of a run of IoTDB with the given keys.
func planOf(t *testing.T, sets ...string) *runner.Plan {
	t.Helper()
	p, err := runner.NewPlan(adaptertest.Load(t, Driver(), append([]string{"INIT_WAIT_TIME=0"}, sets...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type fixture struct {
	cfg    *config.Config
	schema *generator.Schema
	gen    *generator.Generator
	a      *Adapter
	lite   adapters.Adapter
}

func setup(t *testing.T, rows int64, sets ...string) *fixture {
	t.Helper()
	host, port := server(t)
	base := []string{"DB_SWITCH=IoTDB-200-SESSION_BY_TABLET", "HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_test",
		"DEVICE_NUMBER=6", "GROUP_NUMBER=2", "SENSOR_NUMBER=8", "DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=40",
		"POINT_STEP=1000", "QUERY_INTERVAL=30000", "GROUP_BY_TIME_UNIT=7000", "QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=2", "STEP_SIZE=13",
		"QUERY_LOWER_VALUE=5", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "QUERY_AGGREGATE_FUN=avg",
		"RESULTS_DIR=" + t.TempDir(), "WRITE_OPERATION_TIMEOUT_MS=30000", "READ_OPERATION_TIMEOUT_MS=30000"}
	c := adaptertest.Load(t, Driver(), append(base, sets...)...)
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ad, err := Driver().Open(ctx, adapters.Params{Config: c, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close() })
	lite, err := sqlite.Driver().Open(ctx, adapters.Params{Config: c, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	f := &fixture{cfg: c, schema: s, gen: generator.New(s, c, rows), a: ad.(*Adapter), lite: lite}
	for _, a := range []adapters.Adapter{f.a, f.lite} {
		if err := a.Cleanup(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.CreateSchema(ctx); err != nil {
			t.Fatal(err)
		}
	}
	b := f.gen.NewBatch()
	for d := range s.Devices {
		st := f.gen.NewStream(d)
		for st.Next(b) {
			for _, a := range []adapters.Adapter{f.a, f.lite} {
				if err := a.Write(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return f
}

// checkCounts compares the points of every series, and so of every device,
// with the generator's.
func (f *fixture) checkCounts(t *testing.T, rows int64) {
	t.Helper()
	ctx := context.Background()
	for i := range f.schema.Devices {
		d := &f.schema.Devices[i]
		n, err := f.a.CountPoints(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := rows * int64(len(f.schema.Sensors)); n != want {
			t.Fatalf("%s holds %d points, the generator wrote %d", d.Name, n, want)
		}
		series := 0
		sql := "SELECT count(*) FROM " + f.a.paths[d.Index]
		if f.a.tm != nil {
			var cols []string
			for _, s := range f.schema.Sensors {
				cols = append(cols, "count("+s.Name+")")
			}
			sql = fmt.Sprintf("SELECT %s FROM %s WHERE device_id = '%s'", strings.Join(cols, ", "), f.a.qualified(d.Table), d.Name)
		}
		err = f.a.pool.query(ctx, sql, 16, func(ds *client.SessionDataSet) error {
			for c, name := range ds.GetColumnNames() {
				if name == client.TimestampColumnName {
					continue
				}
				v, err := ds.GetLongByIndex(int32(c + 1))
				if err != nil {
					return err
				}
				if v != rows {
					return fmt.Errorf("series %s holds %d points, the generator wrote %d", name, v, rows)
				}
				series++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if series != len(f.schema.Sensors) {
			t.Fatalf("%s has %d series, want %d", d.Name, series, len(f.schema.Sensors))
		}
	}
}

// compare runs every family's queries on IoTDB and SQLite and compares.
func (f *fixture) compare(t *testing.T, rows int64, perFamily int) {
	t.Helper()
	qg, err := queries.New(f.schema, queries.ParamsOf(f.cfg), rows)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cells := 0
	for client := 0; client < 2; client++ {
		cl := qg.Client(client)
		for i := 0; i < perFamily; i++ {
			for _, fam := range queries.Families {
				q := cl.Next(fam)
				got, err := f.a.Answer(ctx, &q)
				if err != nil {
					t.Fatalf("%s: %v\nSQL: %s", fam.ID(), err, f.a.SQL(&q))
				}
				want, err := f.lite.(adapters.Answerer).Answer(ctx, &q)
				if err != nil {
					t.Fatal(err)
				}
				got.Sort()
				want.Sort()
				if d := queries.Diff(got, want); d != "" {
					t.Fatalf("%s: IoTDB and SQLite differ: %s\nSQL: %s", fam.ID(), d, f.a.SQL(&q))
				}
				n, err := f.a.Query(ctx, &q)
				if err != nil || n != int64(len(want)) {
					t.Fatalf("%s: Query counted %d points (%v), the answer has %d", fam.ID(), n, err, len(want))
				}
				cells += len(want)
			}
		}
	}
	if cells == 0 {
		t.Fatal("no query returned anything: the comparison proves nothing")
	}
}

// everyType gives each of the ten generated types one sensor.
var everyType = []string{"SENSOR_NUMBER=10", "QUERY_SENSOR_NUM=4", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0", "QUERY_AGGREGATE_FUN=count", "STRING_LENGTH=6"}

func TestIoTDB(t *testing.T) {
	server(t)
	for _, tc := range []struct {
		name string
		sets []string
	}{
		{"Tablet/NotAligned", []string{"VECTOR=false"}},
		{"Tablet/Template", []string{"TEMPLATE=true"}},
		{"Record", []string{"DB_SWITCH=IoTDB-200-SESSION_BY_RECORD"}},
		{"Records/OutOfOrder", []string{"DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS", "IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH"}},
		{"Tablet/NotAligned/Snappy", []string{"VECTOR=false", "COMPRESSOR=SNAPPY", "ENCODING_DOUBLE=PLAIN"}},
		// STRING, BLOB, TIMESTAMP and DATE go through every write path
		// (each encodes values its own way) and back through LAST and
		// raw queries; count is the aggregate that reads them.
		{"Tablet/NotAligned/EveryType", append([]string{"VECTOR=false"}, everyType...)},
		{"Tablet/Template/EveryType", append([]string{"TEMPLATE=true"}, everyType...)},
		{"Record/EveryType", append([]string{"DB_SWITCH=IoTDB-200-SESSION_BY_RECORD"}, everyType...)},
		{"Records/EveryType", append([]string{"DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS"}, everyType...)},
		// The table model with two tables in each of the two databases,
		// under every strategy that maps devices to them.
		{"Table/FourTables/mod", []string{"IOTDB_DIALECT_MODE=table", "DEVICE_NUMBER=8", "IOTDB_TABLE_NUMBER=4"}},
		{"Table/FourTables/div", []string{"IOTDB_DIALECT_MODE=table", "DEVICE_NUMBER=8", "IOTDB_TABLE_NUMBER=4", "SG_STRATEGY=div"}},
		// Tags: path levels in the tree model, TAG columns in the table model.
		{"Tablet/Tags", []string{"TAG_NUMBER=2", "TAG_VALUE_CARDINALITY=3,2"}},
		{"Table/Tags", []string{"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2", "TAG_NUMBER=3", "TAG_VALUE_CARDINALITY=2,2,2", "TAG_KEY_PREFIX=k"}},
		{"Table/FourTables/hash/EveryType", append([]string{"IOTDB_DIALECT_MODE=table", "DEVICE_NUMBER=8", "IOTDB_TABLE_NUMBER=4", "SG_STRATEGY=hash", "TABLE_TIME_COLUMN=ts"}, everyType...)},
		// Tablets go encoded by default (ENABLE_IOTDB_RPC_COMPRESSION);
		// plain ones, and tablets too small to encode, must land the same.
		{"Tablet/EveryType/Plain", append([]string{"ENABLE_IOTDB_RPC_COMPRESSION=false"}, everyType...)},
		{"Table/EveryType/Plain", append([]string{"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2", "ENABLE_IOTDB_RPC_COMPRESSION=false"}, everyType...)},
		{"Tablet/EveryType/SmallBatches", append([]string{"BATCH_SIZE_PER_WRITE=7"}, everyType...)},
		// Encoded tablets of out-of-order batches (rows sorted before
		// encoding) and of several blocks of TS_2DIFF (129 rows a block).
		{"Tablet/EveryType/OutOfOrder", append([]string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=POISSON", "OUT_OF_ORDER_RATIO=0.3"}, everyType...)},
		{"Tablet/EveryType/LongBatches", append([]string{"BATCH_SIZE_PER_WRITE=300"}, everyType...)},
	} {
		rows := int64(120)
		if strings.HasSuffix(tc.name, "LongBatches") {
			rows = 600
		}
		t.Run("SchemaAndInsertModes/"+tc.name, func(t *testing.T) {
			f := setup(t, rows, tc.sets...)
			f.checkCounts(t, rows)
			f.compare(t, rows, 2)
		})
	}
	t.Run("CleanupLeavesNothing", func(t *testing.T) {
		f := setup(t, 50, "TEMPLATE=true")
		ctx := context.Background()
		if err := f.a.Cleanup(ctx); err != nil {
			t.Fatal(err)
		}
		var dbs []string
		err := f.a.pool.query(ctx, "SHOW DATABASES root.tsbench_test.**", 100, func(ds *client.SessionDataSet) error {
			s, err := ds.GetStringByIndex(1)
			dbs = append(dbs, s)
			return err
		})
		if err != nil || len(dbs) != 0 {
			t.Fatalf("databases left after cleanup: %v (%v)", dbs, err)
		}
		var templates []string
		err = f.a.pool.query(ctx, "SHOW DEVICE TEMPLATES", 100, func(ds *client.SessionDataSet) error {
			s, err := ds.GetStringByIndex(1)
			if s == f.a.opts.TemplateName {
				templates = append(templates, s)
			}
			return err
		})
		if err != nil || len(templates) != 0 {
			t.Fatalf("template left after cleanup: %v (%v)", templates, err)
		}
		if n, err := f.a.CountPoints(ctx, &f.schema.Devices[0]); err != nil || n != 0 {
			t.Fatalf("after cleanup %d points, %v", n, err)
		}
	})
	for name, model := range map[string][]string{"tree": nil, "table": {"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2"}} {
		t.Run("FlushAndClearCache/"+name, func(t *testing.T) {
			f := setup(t, 50, model...)
			ctx := context.Background()
			if err := f.a.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if err := f.a.ClearCache(ctx); err != nil {
				t.Fatal(err)
			}
			f.checkCounts(t, 50)
			f.compare(t, 50, 1)
		})
	}
	t.Run("QueryRoundsWithClearCache", func(t *testing.T) {
		// Cold and warm rounds without restart commands: flush, drop caches
		// (not here: empty command), reconnect and CLEAR CACHE, then two
		// rounds of the weekly suite.
		p := runPlan(t, "DB_NAME=tsbench_rounds", "DEVICE_NUMBER=6", "GROUP_NUMBER=2", "SENSOR_NUMBER=10", "DATA_CLIENT_NUMBER=2", "LOOP=10",
			"BATCH_SIZE_PER_WRITE=50", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_SUITE=weekly", "QUERY_ROUNDS=2", "QUERY_LOOP=2",
			"DROP_CACHES_COMMAND=", "VERIFY=true")
		drv := Driver()
		res, err := runner.Run(context.Background(), p, &drv, runner.Options{})
		if err != nil || res.Stopped != nil {
			t.Fatal(err, res.Stopped)
		}
		var steps []string
		for _, s := range res.Steps {
			if s.Phase == "query" {
				steps = append(steps, s.Name)
			}
		}
		if got := strings.Join(steps, ","); got != "flush,reconnect,clear cache" {
			t.Fatalf("lifecycle steps %s", got)
		}
		rounds := map[int]int{}
		for _, ph := range res.Phases {
			if ph.Name != "query" {
				continue
			}
			rounds[ph.Round]++
			if s := ph.Operations[0]; s.OKOps != 4 || s.FailOps != 0 {
				t.Fatalf("%s round %d: %d ok, %d failed (%v)", ph.Variant, ph.Round, s.OKOps, s.FailOps, s.Errors)
			}
		}
		if rounds[1] != 24 || rounds[2] != 24 || res.VerifyFailed() {
			t.Fatalf("rounds %v, verify failed %v", rounds, res.VerifyFailed())
		}
	})
	// DEVICE_NUM_PER_WRITE: two devices a request, through the runner, in
	// the tree model (insertRecords) and the table model (one tablet); the
	// operations are counted once a request, VERIFY finds every point, and
	// the values are the model's.
	for _, mode := range [][]string{{"DB_SWITCH=IoTDB-200-SESSION_BY_RECORDS"}, {"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2"}} {
		t.Run("DevicesPerWrite/"+strings.Join(mode, ","), func(t *testing.T) {
			sets := append([]string{"DB_NAME=tsbench_dnw", "DEVICE_NUMBER=8", "GROUP_NUMBER=2", "SENSOR_NUMBER=6", "DATA_CLIENT_NUMBER=2", "LOOP=6",
				"BATCH_SIZE_PER_WRITE=20", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "DEVICE_NUM_PER_WRITE=2", "VERIFY=true",
				"INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0", "SENSOR_NUMBER=10", "QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=4", "QUERY_INTERVAL=60000", "POINT_STEP=1000"}, mode...)
			p := runPlan(t, sets...)
			drv := Driver()
			res, err := runner.Run(context.Background(), p, &drv, runner.Options{})
			if err != nil || res.Stopped != nil {
				t.Fatal(err, res.Stopped)
			}
			s := res.Phases[0].Operations[0]
			if s.OKOps != 6*8/2 || s.FailOps != 0 || s.OKPoints != 6*8*20*10 || res.VerifyFailed() {
				t.Fatalf("INGESTION %d ok (want %d), %d failed %v, %d points; verify failed %v", s.OKOps, 6*8/2, s.FailOps, s.Errors, s.OKPoints, res.VerifyFailed())
			}
			answersAreTheModels(t, openAfter(t, p), p, queries.TimeRange, queries.LatestPoint)
		})
	}
	t.Run("RestartKeepsData", func(t *testing.T) {
		managed(t)
		f := setup(t, 200, "IS_OUT_OF_ORDER=true")
		ctx := context.Background()
		before := f.answers(t)
		script(t, "stop")
		script(t, "start")
		// The pool's sessions died with the server; the adapter reconnects.
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, err := f.a.CountPoints(ctx, &f.schema.Devices[0])
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no answer after restart: %v", err)
			}
			time.Sleep(time.Second)
		}
		f.checkCounts(t, 200)
		after := f.answers(t)
		for i := range before {
			if d := queries.Diff(after[i], before[i]); d != "" {
				t.Fatalf("query %d answers differently after a restart: %s", i, d)
			}
		}
	})
	t.Run("TLS", func(t *testing.T) {
		managed(t)
		state := os.Getenv("IOTDB_HOME_DIR")
		if state == "" {
			home, _ := os.UserHomeDir()
			state = filepath.Join(home, ".cache", "tsbench", "iotdb-run")
		}
		script(t, "stop")
		scriptEnv(t, []string{"IOTDB_TLS=1"}, "start")
		defer func() {
			script(t, "stop")
			script(t, "start")
		}()
		f := setup(t, 60, "USE_SSL=true", "TRUST_STORE_PATH="+filepath.Join(state, "tls", "server.pem"))
		f.checkCounts(t, 60)
		f.compare(t, 60, 1)
		// A plain client is refused, with a hint rather than a riddle.
		host, port := server(t)
		c := adaptertest.Load(t, Driver(), "HOST="+host, "PORT="+port, "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1")
		s, _ := generator.NewSchema(c)
		if _, err := Driver().Open(context.Background(), adapters.Params{Config: c, Schema: s}); err == nil || !strings.Contains(err.Error(), "USE_SSL=true") {
			t.Fatalf("plain connection to a TLS server: %v", err)
		}
	})
	t.Run("DataNodeStoppedMidIngest", func(t *testing.T) {
		managed(t)
		p := runPlan(t, "DB_NAME=tsbench_fault", "DEVICE_NUMBER=10", "SENSOR_NUMBER=50", "DATA_CLIENT_NUMBER=5", "LOOP=3000",
			"BATCH_SIZE_PER_WRITE=100", "LOG_PRINT_INTERVAL=1", "WRITE_OPERATION_TIMEOUT_MS=3000")
		drv := Driver()
		// Stop the server once the run has written something, as its own
		// progress lines say; restart it only after the stop has finished.
		stopped := make(chan struct{})
		var once sync.Once
		var stopping atomic.Bool
		watch := writerFunc(func(p []byte) {
			if m := progressPoints.FindSubmatch(p); m != nil && string(m[1]) != "0" {
				once.Do(func() {
					stopping.Store(true)
					go func() {
						defer close(stopped)
						script(t, "stop")
					}()
				})
			}
		})
		defer func() {
			// A run that never printed a progress line never stopped the
			// server: waiting for the stop would hang the test.
			if stopping.Load() {
				<-stopped
				script(t, "start")
			}
		}()
		t0 := time.Now()
		res, err := runner.Run(context.Background(), p, &drv, runner.Options{Progress: watch})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(t0)
		ing := res.Phases[0].Operations[0]
		t.Logf("run ended after %v: %d ok, %d failed writes; errors %v", el, ing.OKOps, ing.FailOps, ing.Errors)
		if ing.OKOps == 0 || ing.FailOps == 0 {
			t.Fatalf("%d ok and %d failed writes: the server stopped mid-run, both must be counted", ing.OKOps, ing.FailOps)
		}
		// 6,000 batches of 5,000 points take about half a minute on this
		// server; after it dies every write fails within its 3 s timeout, so
		// the run must end well before the same work could have been done.
		if el > 45*time.Second {
			t.Fatalf("the run took %v: writes to a dead server were not bounded by their timeout", el)
		}
		if ing.OKOps+ing.FailOps != 3000*10 {
			t.Fatalf("%d writes accounted, want every one of the %d", ing.OKOps+ing.FailOps, 3000*10)
		}
	})
}

var progressPoints = regexp.MustCompile(`client steps\), (\d+) points written`)

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte)

func (w writerFunc) Write(p []byte) (int, error) {
	w(p)
	return len(p), nil
}

func (f *fixture) answers(t *testing.T) []queries.Answer {
	qg, _ := queries.New(f.schema, queries.ParamsOf(f.cfg), 200)
	cl := qg.Client(0)
	var out []queries.Answer
	for _, fam := range queries.Families {
		q := cl.Next(fam)
		a, err := f.a.Answer(context.Background(), &q)
		if err != nil {
			t.Fatal(err)
		}
		a.Sort()
		out = append(out, a)
	}
	return out
}

// TestConformance runs the suite every adapter passes against the real
// server: every family's answer equals the model's under every
// configuration (plus ALIGN_BY_DEVICE), counts, cleanup, cancellation,
// reconnecting, a wrong password and an unreachable port; with tablets
// encoded (the default) and plain.
func TestConformance(t *testing.T) {
	host, port := server(t)
	for _, wire := range []string{"true", "false"} {
		t.Run("ENABLE_IOTDB_RPC_COMPRESSION="+wire, func(t *testing.T) {
			adaptertest.Run(t, adaptertest.Target{
				Driver: Driver(),
				Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_conformance", "WRITE_OPERATION_TIMEOUT_MS=30000", "READ_OPERATION_TIMEOUT_MS=30000",
					"ENABLE_IOTDB_RPC_COMPRESSION=" + wire},
				BadCredentials: []string{"PASSWORD=not-the-password"},
				Unreachable:    []string{"HOST=127.0.0.1", "PORT=1"},
				Skip: map[string]string{
					"MicrosecondsDivMin": "the test server keeps IoTDB's default timestamp_precision=ms, so microsecond timestamps are read as milliseconds (GROUP BY windows differ); docs/servers.md",
					"LimitAcrossDevices": "a query over several devices limits IoTDB's time rows (each holding every device), not (device, time) rows; docs/compat.md",
				},
			})
		})
	}
}

// TestConformanceTable runs the suite on IoTDB's table model: a database
// per group, two tables (each group one table in most configurations; the
// suite's one-group configuration puts its devices into both).
func TestConformanceTable(t *testing.T) {
	host, port := server(t)
	adaptertest.Run(t, adaptertest.Target{
		Driver: Driver(),
		Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_table", "WRITE_OPERATION_TIMEOUT_MS=30000", "READ_OPERATION_TIMEOUT_MS=30000",
			"IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=2"},
		BadCredentials: []string{"PASSWORD=not-the-password"},
		Unreachable:    []string{"HOST=127.0.0.1", "PORT=1"},
		Skip: map[string]string{
			"MicrosecondsDivMin": "the test server keeps IoTDB's default timestamp_precision=ms, so microsecond timestamps are read as milliseconds; docs/servers.md",
			"AlignByDevice":      "ALIGN BY DEVICE is tree-model SQL; the table model refuses ALIGN_BY_DEVICE=true at start-up",
		},
	})
}

// sqlQuery is a query of family f over sensors s_1 and s_2 of the given
// devices, for the SQL tests.
func sqlQuery(s *generator.Schema, f queries.Family, agg string, limit int64, devs ...int) *queries.Query {
	q := &queries.Query{Family: f, Sensors: []*generator.Sensor{&s.Sensors[1], &s.Sensors[2]}, Start: 1000, End: 5000, ValueBound: -5, Aggregate: agg, GroupBy: 2000, Limit: limit}
	for _, d := range devs {
		q.Devices = append(q.Devices, &s.Devices[d])
	}
	return q
}

func TestSQL(t *testing.T) {
	c := adaptertest.Load(t, Driver(), "DEVICE_NUMBER=4", "GROUP_NUMBER=2", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=3", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0")
	s, _ := generator.NewSchema(c)
	a := &Adapter{cfg: c, opts: options(c), schema: s, root: "root.test"}
	for _, d := range s.Devices {
		a.paths = append(a.paths, a.root+"."+s.Groups[d.Group].Name+"."+d.Name)
	}
	q := func(f queries.Family, devs ...int) *queries.Query { return sqlQuery(s, f, "avg", -1, devs...) }
	for _, c := range []struct {
		q    *queries.Query
		want string
	}{
		{q(queries.PrecisePoint, 0), "SELECT s_1, s_2 FROM root.test.g_0.d_0 WHERE time = 1000"},
		{q(queries.TimeRange, 0, 2), "SELECT s_1, s_2 FROM root.test.g_0.d_0, root.test.g_0.d_2 WHERE time >= 1000 AND time <= 5000"},
		{q(queries.ValueRange, 0), "SELECT s_1, s_2 FROM root.test.g_0.d_0 WHERE time >= 1000 AND time <= 5000 AND s_1 > -5 AND s_2 > -5"},
		{q(queries.ValueRangeDesc, 0, 2), "SELECT s_1, s_2 FROM root.test.g_0.d_0, root.test.g_0.d_2 WHERE time >= 1000 AND time <= 5000 AND s_1 > -5 AND s_2 > -5 ORDER BY DEVICE ASC, TIME DESC ALIGN BY DEVICE"},
		{q(queries.AggValue, 1), "SELECT avg(s_1), avg(s_2) FROM root.test.g_1.d_1 WHERE s_1 > -5 AND s_2 > -5"},
		{q(queries.GroupByDesc, 1), "SELECT avg(s_1), avg(s_2) FROM root.test.g_1.d_1 GROUP BY ([1000, 5000), 2000ms) ORDER BY TIME DESC"},
		{q(queries.LatestPoint, 1, 3), "SELECT LAST s_1, s_2 FROM root.test.g_1.d_1, root.test.g_1.d_3"},
	} {
		if got := a.SQL(c.q); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q.Family.ID(), got, c.want)
		}
	}
}

func TestTrustStoreChecked(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "truststore.jks")
	os.WriteFile(bad, []byte("not pem"), 0o644)
	for _, c := range []struct{ path, want string }{
		{bad, "holds no PEM certificate (a Java .jks trust store must be exported first)"},
		{filepath.Join(dir, "missing.pem"), "cannot read the trust store"},
	} {
		// The loader reports the driver's checks with the keys' errors.
		_, err := adaptertest.Try(Driver(), "USE_SSL=true", "TRUST_STORE_PATH="+c.path, "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1")
		var errs config.Errors
		if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Key != "TRUST_STORE_PATH" || !strings.Contains(errs[0].Msg, c.want) {
			t.Fatalf("%s: %v", c.path, err)
		}
	}
}

// TestTableSQL pins the table dialect's statements (docs/servers.md shows
// them): one table per query, devices by the TAG column, date_bin windows
// from the query's start.
func TestTableSQL(t *testing.T) {
	c := adaptertest.Load(t, Driver(), "IOTDB_DIALECT_MODE=table", "IOTDB_TABLE_NUMBER=4", "DEVICE_NUMBER=8", "GROUP_NUMBER=2", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=3", "INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0")
	s, _ := generator.NewSchema(c)
	a := &Adapter{cfg: c, opts: options(c), schema: s}
	a.openTables(poolConfig{})
	q := func(f queries.Family, limit int64, devs ...int) *queries.Query {
		return sqlQuery(s, f, "max_value", limit, devs...)
	}
	for _, c := range []struct {
		q    *queries.Query
		want string
	}{
		{q(queries.PrecisePoint, -1, 0), "SELECT device_id, time, s_1, s_2 FROM test_g_0.table_0 WHERE device_id IN ('d_0') AND time = 1000"},
		{q(queries.TimeRange, 10, 0, 4), "SELECT device_id, time, s_1, s_2 FROM test_g_0.table_0 WHERE device_id IN ('d_0', 'd_4') AND time >= 1000 AND time <= 5000 ORDER BY time, device_id LIMIT 10"},
		{q(queries.ValueRangeDesc, -1, 2, 6), "SELECT device_id, time, s_1, s_2 FROM test_g_0.table_2 WHERE device_id IN ('d_2', 'd_6') AND time >= 1000 AND time <= 5000 AND s_1 > -5 AND s_2 > -5 ORDER BY device_id, time DESC"},
		{q(queries.AggValue, -1, 1), "SELECT device_id, max(s_1), max(s_2) FROM test_g_1.table_1 WHERE device_id IN ('d_1') AND s_1 > -5 AND s_2 > -5 GROUP BY device_id"},
		{q(queries.GroupByDesc, -1, 3), "SELECT device_id, date_bin(2000ms, time, 1000), max(s_1), max(s_2) FROM test_g_1.table_3 WHERE device_id IN ('d_3') AND time >= 1000 AND time < 5000 GROUP BY device_id, 2 ORDER BY device_id, 2 DESC"},
		{q(queries.LatestPoint, -1, 1, 5), "SELECT device_id, last(time), last_by(s_1, time), last_by(s_2, time) FROM test_g_1.table_1 WHERE device_id IN ('d_1', 'd_5') GROUP BY device_id"},
	} {
		if got := a.SQL(c.q); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q.Family.ID(), got, c.want)
		}
	}
}

// TestDistributed runs three bench processes against the real server, as
// three pods of an Indexed Job would, merges their records, verifies the
// whole workload and compares two such distributed runs.
func TestDistributed(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	d := adaptertest.Distributed{Bin: adaptertest.Binary(t, dir), Dir: filepath.Join("..", ".."), Config: "examples/iotdb.properties", N: 3,
		Results: dir, StartIn: 20 * time.Second,
		Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_dist", "GROUP_NUMBER=4", "DEVICE_NUMBER=20", "SENSOR_NUMBER=10", "QUERY_SENSOR_NUM=3",
			"DATA_CLIENT_NUMBER=4", "LOOP=100", "VERIFY=true"}}
	_, a := d.Run(t, "iotdb-dist-a")
	_, b := d.Run(t, "iotdb-dist-b")
	cmp := exec.Command(d.Bin, "compare", "iotdb-dist-a-merged", "iotdb-dist-b-merged", "--results", dir)
	if out, err := cmp.CombinedOutput(); err != nil || a.Fingerprint != b.Fingerprint {
		t.Fatalf("compare of two merged distributed runs: %v\n%s", err, out)
	}
	t.Logf("merged: %d instances, INGESTION %d points in %.1f s", len(a.Instance.Merged), a.Verify.Expected, a.Phases[0].Seconds)
}

// TestExclusive: a second run on the database of a running one is refused
// at its start; a killed run's marker is taken over (adaptertest.Exclusive).
func TestExclusive(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	adaptertest.Exclusive{Bin: adaptertest.Binary(t, dir), Dir: filepath.Join("..", ".."), Config: "examples/iotdb.properties",
		Sets: []string{"HOST=" + host, "PORT=" + port, "DB_NAME=tsbench_exclusive", "RESULTS_DIR=" + dir,
			"GROUP_NUMBER=1", "DEVICE_NUMBER=2", "SENSOR_NUMBER=2", "QUERY_SENSOR_NUM=1", "DATA_CLIENT_NUMBER=1"}}.Run(t)
}

// An iot-benchmark table-model configuration, in its own key spellings
// (tables, tags, every data type), runs unchanged through the bench binary,
// and VERIFY finds every point. It lives here, not in cmd/bench, because
// this package's restart tests stop the server: Go runs packages in
// parallel, tests of one package one after another.
func TestTableModelExample(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	cmd := exec.Command(bin, "-c", "examples/iotdb-table.properties", "--set", "HOST="+host, "--set", "PORT="+port,
		"--set", "RESULTS_DIR="+dir, "--set", "DB_NAME=tsbench_example")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("bench: %v\n%s", err, stderr)
	}
	if !strings.Contains(string(out), "Verify: every device holds exactly the points the workload writes.") {
		t.Fatalf("VERIFY did not pass:\n%s", out)
	}
	recs, errs := record.Store{Dir: dir}.List()
	if len(errs) > 0 || len(recs) != 1 {
		t.Fatalf("%d records, errors %v", len(recs), errs)
	}
	ops := 0
	for _, ph := range recs[0].Phases {
		for _, op := range ph.Operations {
			ops++
			if op.OKOps == 0 || op.FailOps > 0 {
				t.Errorf("%s: %d ok, %d failed operations", op.Operation, op.OKOps, op.FailOps)
			}
		}
	}
	if ops != 12 { // INGESTION and Q1-Q11
		t.Errorf("%d operations recorded, want 12", ops)
	}
}

// An error names its statement, shortened: the server's reason must not
// sit after 10 KB of column definitions.
func TestBriefStatement(t *testing.T) {
	short := "CREATE DATABASE root.test.g_0"
	if brief(short) != short {
		t.Errorf("a short statement is changed: %q", brief(short))
	}
	long := "CREATE ALIGNED TIMESERIES root.test.g_9.d_9(" + strings.Repeat("s_1 BOOLEAN ENCODING=RLE COMPRESSOR=LZ4, ", 100) + ")"
	got := brief(long)
	if len(got) > 200 || !strings.HasPrefix(got, "CREATE ALIGNED TIMESERIES root.test.g_9.d_9(") || !strings.HasSuffix(got, fmt.Sprintf("… (%d characters)", len(long))) {
		t.Errorf("brief of a %d-character statement: %q", len(long), got)
	}
	if !utf8.ValidString(brief(strings.Repeat("é", 200))) {
		t.Error("brief cut a character in two")
	}
}

// TestQueryAnswerNoted: a query whose whole result came in the first
// answer notes it (adapters.Received) before decoding it and closing the
// query, so that the runner's clock stops there.
func TestQueryAnswerNoted(t *testing.T) {
	p := runPlan(t, "DB_NAME=answer", "GROUP_NUMBER=1", "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=4", "BATCH_SIZE_PER_WRITE=10", "LOOP=1", "VERIFY=false")
	a := openAfter(t, p)
	ctx := context.Background()
	if err := a.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	g := generator.New(p.Schema, p.Config, 10)
	b := g.NewBatch()
	g.NewStream(0).Next(b)
	if err := a.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	q := &queries.Query{Family: queries.TimeRange, Devices: []*generator.Device{&p.Schema.Devices[0]}, Sensors: []*generator.Sensor{&p.Schema.Sensors[0]},
		Start: b.Timestamps[0], End: b.Timestamps[b.Len()-1], Limit: -1}
	qctx, clock := adapters.WithResponseClock(ctx)
	before := time.Now()
	n, err := a.Query(qctx, q)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Fatalf("the query read %d points, want %d", n, b.Len())
	}
	if at := clock.At(); at.Before(before) || at.After(after) {
		t.Fatalf("the answer noted at %v, not during the query (%v to %v)", at, before, after)
	}
}

// TestAnswersThroughTheBinary: CHECK_ANSWERS finds every answer right on
// IoTDB, tree model out of order and table model with every type, and a
// binary that breaks one family's answers fails the run naming it
// (adaptertest.Answers).
func TestAnswersThroughTheBinary(t *testing.T) {
	host, port := server(t)
	for _, c := range []struct {
		name, config     string
		sets             []string
		sabotage, family string
	}{
		{"tree", "examples/iotdb.properties", []string{"DB_NAME=tsbench_answers", "GROUP_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=6", "QUERY_SENSOR_NUM=3", "IS_OUT_OF_ORDER=true"}, "TIME_RANGE:shift", "TIME_RANGE"},
		{"table", "examples/iotdb-table.properties", []string{"DB_NAME=tsbench_answers_table", "IoTDB_TABLE_NUMBER=2", "DEVICE_NUMBER=4", "SENSOR_NUMBER=10"}, "LATEST_POINT:drop", "LATEST_POINT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sets := append(append([]string{"HOST=" + host, "PORT=" + port}, c.sets...), adaptertest.SmallAnswers...)
			adaptertest.Answers{Dir: filepath.Join("..", ".."), Config: c.config, Sets: sets, Sabotage: c.sabotage, Family: c.family}.Run(t)
		})
	}
}
