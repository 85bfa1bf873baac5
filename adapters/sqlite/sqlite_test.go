package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

type fixture struct {
	cfg    *config.Config
	schema *generator.Schema
	gen    *generator.Generator
	a      *Adapter
}

// load writes every device's rows into a fresh database file.
func load(t testing.TB, rows int64, sets ...string) *fixture {
	t.Helper()
	base := []string{"DEVICE_NUMBER=6", "GROUP_NUMBER=2", "SENSOR_NUMBER=8", "DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=40",
		"POINT_STEP=1000", "QUERY_INTERVAL=30000", "GROUP_BY_TIME_UNIT=7000", "QUERY_DEVICE_NUM=2", "STEP_SIZE=13",
		"QUERY_LOWER_VALUE=5", "QUERY_SENSOR_NUM=2", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "SQLITE_PATH=" + filepath.Join(t.TempDir(), "t.db")}
	l, err := config.Load(config.Source{Sets: append(base, sets...), NoEnv: true, Catalog: adapters.Registry{Driver()}})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if errs := Driver().Validate(c); len(errs) > 0 {
		t.Fatal(errs)
	}
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
	a := ad.(*Adapter)
	if err := a.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	g := generator.New(s, c, rows)
	b := g.NewBatch()
	for d := range s.Devices {
		st := g.NewStream(d)
		for st.Next(b) {
			if err := a.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &fixture{c, s, g, a}
}

func newGen(t testing.TB, f *fixture, rows int64) *generator.Generator {
	t.Helper()
	return generator.New(f.schema, f.cfg, rows)
}

func TestCapabilitiesAsDeclared(t *testing.T) {
	f := load(t, 10)
	if got := adapters.CapabilitiesOf(f.a); got != Driver().Can {
		t.Fatalf("adapter implements %+v, driver declares %+v", got, Driver().Can)
	}
}

// TestAnswersMatchModel checks every query family's SQLite answer against
// the answer computed from the generator's model of the data.
func TestAnswersMatchModel(t *testing.T) {
	for _, sets := range [][]string{
		nil,
		{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.4", "LAMBDA=30", "MAX_K=100"},
		{"QUERY_AGGREGATE_FUN=avg", "IS_REGULAR_FREQUENCY=false"},
		{"QUERY_AGGREGATE_FUN=max_value", "RESULT_ROW_LIMIT=17", "GROUP_NUMBER=1", "QUERY_DEVICE_NUM=4"},
		{"QUERY_AGGREGATE_FUN=sum", "TIMESTAMP_PRECISION=us", "SG_STRATEGY=div"},
		{"QUERY_AGGREGATE_FUN=min_value", "QUERY_LOWER_VALUE=-1000000"},
	} {
		f := load(t, 300, sets...)
		qg, err := queries.New(f.schema, queries.ParamsOf(f.cfg), 300)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for client := 0; client < 2; client++ {
			cl := qg.Client(client)
			for i := 0; i < 12; i++ {
				for _, fam := range queries.Families {
					q := cl.Next(fam)
					got, err := f.a.Answer(ctx, &q)
					if err != nil {
						t.Fatalf("%v %s: %v", sets, fam.ID(), err)
					}
					want := queries.Expected(f.gen, &q)
					if d := queries.Diff(got, want); d != "" {
						stmt, args := f.a.SQL(&q)
						t.Fatalf("%v %s: %s\nSQL: %s %v", sets, fam.ID(), d, stmt, args)
					}
					n, err := f.a.Query(ctx, &q)
					if err != nil || n != int64(len(want)) {
						t.Fatalf("%v %s: Query counted %d points (err %v), the answer has %d", sets, fam.ID(), n, err, len(want))
					}
				}
			}
		}
	}
}

func TestAnswersAreNotTrivial(t *testing.T) {
	// Guard the differential test: the queries above must return data.
	f := load(t, 300)
	qg, _ := queries.New(f.schema, queries.ParamsOf(f.cfg), 300)
	cl := qg.Client(0)
	for _, fam := range queries.Families {
		total, filtered := 0, false
		for i := 0; i < 12; i++ {
			q := cl.Next(fam)
			a, _ := f.a.Answer(context.Background(), &q)
			total += len(a)
			if fam == queries.ValueRange {
				unfiltered := q
				unfiltered.Family = queries.TimeRange
				b, _ := f.a.Answer(context.Background(), &unfiltered)
				filtered = filtered || len(b) > len(a)
			}
		}
		if total == 0 {
			t.Errorf("%s returned nothing in 12 queries: the comparison proves little", fam.ID())
		}
		if fam == queries.ValueRange && !filtered {
			t.Errorf("the value filter of Q3 never removed a row: QUERY_LOWER_VALUE tests nothing")
		}
	}
}

func TestCountPointsAndCleanup(t *testing.T) {
	f := load(t, 123, "IS_OUT_OF_ORDER=true")
	ctx := context.Background()
	for i := range f.schema.Devices {
		n, err := f.a.CountPoints(ctx, &f.schema.Devices[i])
		if err != nil || n != 123*8 {
			t.Fatalf("device %d holds %d points (err %v), want %d", i, n, err, 123*8)
		}
	}
	if err := f.a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.a.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := f.a.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables left after cleanup (err %v)", tables, err)
	}
	if n, err := f.a.CountPoints(ctx, &f.schema.Devices[0]); err != nil || n != 0 {
		t.Fatalf("after cleanup: %d points, err %v", n, err)
	}
}

func TestCancelledContextFails(t *testing.T) {
	f := load(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := f.gen.NewBatch()
	f.gen.NewStream(0).Next(b)
	if err := f.a.Write(ctx, b); err == nil {
		t.Fatal("a write with a cancelled context succeeded")
	}
	q := queries.Query{Family: queries.TimeRange, Devices: []*generator.Device{&f.schema.Devices[0]}, Sensors: []*generator.Sensor{&f.schema.Sensors[0]}, End: 1 << 62, Limit: -1}
	if _, err := f.a.Query(ctx, &q); err == nil {
		t.Fatal("a query with a cancelled context succeeded")
	}
}

func TestCheck(t *testing.T) {
	l, err := config.Load(config.Source{Sets: []string{"SENSOR_NUMBER=2500", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1"}, NoEnv: true, Catalog: adapters.Registry{Driver()}})
	if err != nil {
		t.Fatal(err)
	}
	errs := Driver().Validate(l.Config)
	if len(errs) != 1 || !strings.Contains(errs.Error(), "SENSOR_NUMBER=2500: is more than a SQLite table can hold as columns (valid: 1..1998 with DB_SWITCH=SQLite)") {
		t.Fatalf("errors = %v", errs)
	}
}
