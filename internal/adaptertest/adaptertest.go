// Package adaptertest is the conformance suite every database adapter runs
// with one call, so that a new adapter gets the project's strongest test
// for free: its answers to every query family equal the answers computed
// from the generator's model of the data, under configurations that cover
// out-of-order modes, every data type, devices left out, every aggregate
// and limits; and its contract (capabilities, counting, cleanup,
// cancellation, reconnecting, failing at Open) holds. It runs against the
// real database the adapter's test points it at.
package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
	"github.com/tsbench/tsbench/queries"
)

// Target is the database under test.
type Target struct {
	Driver adapters.Driver
	// Sets are keys every configuration of the suite gets: DB_SWITCH,
	// where the server is, timeouts. RESULTS_DIR is a fresh folder.
	Sets []string
	// BadCredentials are keys that make Open fail to log in; nil for a
	// database without logins.
	BadCredentials []string
	// Unreachable are keys that point at an address where nothing
	// listens; nil for an embedded database.
	Unreachable []string
	// Skip names configurations of Configs this database cannot answer as
	// the model does, with the reason the test prints; each is a known
	// difference that docs/compat.md or docs/servers.md states.
	Skip map[string]string
}

// Server returns the address of the real server a test needs, from the
// environment variable env (scripts/test sets it after starting the server
// with script). In CI (CI set) a missing or unreachable server fails the
// test; elsewhere a missing one skips it with how to start it.
func Server(t testing.TB, env, script, pkg string) (host, port string) {
	t.Helper()
	addr := os.Getenv(env)
	if addr == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: CI must start the server with %s (scripts/test does)", env, script)
		}
		t.Skipf("no server: run %s, then %s=127.0.0.1:<port> go test %s", script, env, pkg)
	}
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s=%s: %v", env, addr, err)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("%s=%s is not reachable: %v (start it with %s)", env, addr, err, script)
	}
	c.Close()
	return h, p
}

// Load reads a configuration of the driver's database with the driver's
// keys from KEY=VALUE lines (configtest.Load): the loader runs the driver's
// checks too.
func Load(t testing.TB, drv adapters.Driver, sets ...string) *config.Config {
	t.Helper()
	return configtest.Load(t, adapters.Registry{drv}, append([]string{"DB_SWITCH=" + drv.Name}, sets...)...)
}

// Try is Load for the tests of refusals: the loader's error is returned.
func Try(drv adapters.Driver, sets ...string) (*config.Loaded, error) {
	return configtest.Try(adapters.Registry{drv}, append([]string{"DB_SWITCH=" + drv.Name}, sets...)...)
}

// base is a small schema whose queries return data: 6 devices in 2 groups,
// 8 sensors of every generated type, windows that overlap several batches.
var base = []string{"DEVICE_NUMBER=6", "GROUP_NUMBER=2", "SENSOR_NUMBER=8", "DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=40",
	"POINT_STEP=1000", "QUERY_INTERVAL=30000", "GROUP_BY_TIME_UNIT=7000", "QUERY_DEVICE_NUM=2", "STEP_SIZE=13",
	"QUERY_LOWER_VALUE=5", "QUERY_SENSOR_NUM=2", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "INIT_WAIT_TIME=0"}

// Configs are the configurations every adapter's answers are checked under.
var Configs = []struct {
	Name string
	Sets []string
}{
	{"InOrderCount", nil},
	{"OutOfOrderPoissonAvg", []string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=POISSON", "OUT_OF_ORDER_RATIO=0.4", "LAMBDA=30", "MAX_K=100", "QUERY_AGGREGATE_FUN=avg"}},
	{"OutOfOrderBatchSum", []string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_MODE=BATCH", "OUT_OF_ORDER_RATIO=0.3", "QUERY_AGGREGATE_FUN=sum"}},
	{"EveryTypeIrregularAvg", []string{"SENSOR_NUMBER=12", "QUERY_SENSOR_NUM=3", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:0:0:0:0:0", "IS_REGULAR_FREQUENCY=false", "QUERY_AGGREGATE_FUN=avg"}},
	{"DevicesLeftOutMaxLimit", []string{"REAL_INSERT_RATE=0.5", "GROUP_NUMBER=1", "QUERY_DEVICE_NUM=1", "QUERY_AGGREGATE_FUN=max_value", "RESULT_ROW_LIMIT=17"}},
	// The model limits (device, time) rows in time order across devices.
	{"LimitAcrossDevices", []string{"RESULT_ROW_LIMIT=17", "QUERY_DEVICE_NUM=2"}},
	// IoTDB's newer types, one sensor of each type; count is the aggregate
	// that applies to every type, so aggregates read them too.
	{"EveryNewTypeCount", []string{"SENSOR_NUMBER=10", "QUERY_SENSOR_NUM=3", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0", "QUERY_AGGREGATE_FUN=count", "STRING_LENGTH=5"}},
	{"MicrosecondsDivMin", []string{"TIMESTAMP_PRECISION=us", "SG_STRATEGY=div", "QUERY_AGGREGATE_FUN=min_value", "QUERY_LOWER_VALUE=-1000000"}},
}

// rows each device holds in the suite's data.
const rows = 300

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, tg Target) {
	t.Run("Capabilities", func(t *testing.T) {
		f := open(t, tg)
		if got := adapters.CapabilitiesOf(f.a); got != tg.Driver.Can {
			t.Fatalf("the adapter implements %+v, the driver declares %+v", got, tg.Driver.Can)
		}
		if v, ok := f.a.(adapters.Versioner); ok {
			if s, err := v.ServerVersion(context.Background()); err != nil || s == "" {
				t.Fatalf("ServerVersion %q, %v", s, err)
			}
		}
		// A server that says which build it is must say it: the routine
		// refuses two sides of one build by it.
		if b, ok := f.a.(adapters.Builder); ok && strings.TrimSpace(b.ServerBuild()) == "" {
			t.Fatalf("the adapter is a Builder but reported no build (after ServerVersion)")
		}
	})
	configs := Configs
	if tg.Driver.Keys != nil && hasKey(tg.Driver.Keys, "ALIGN_BY_DEVICE") {
		configs = append(configs, struct {
			Name string
			Sets []string
		}{"AlignByDevice", []string{"ALIGN_BY_DEVICE=true", "QUERY_AGGREGATE_FUN=count"}})
	}
	g := &guard{cells: map[queries.Family]int{}, offered: map[generator.DataType]bool{}, answered: map[generator.DataType]int{}}
	for _, c := range configs {
		t.Run("Answers/"+c.Name, func(t *testing.T) {
			if why, ok := tg.Skip[c.Name]; ok {
				t.Skipf("%s: %s", tg.Driver.Name, why)
			}
			f := load(t, tg, c.Sets...)
			if f.answer == nil {
				f.queriesSucceed(t)
				return
			}
			f.answersMatchModel(t, g)
		})
	}
	if tg.Driver.Can.Answer {
		t.Run("AnswersAreNotTrivial", func(t *testing.T) { g.check(t) })
	}
	t.Run("CountPointsAndCleanup", func(t *testing.T) {
		if !tg.Driver.Can.Count {
			t.Skipf("%s does not count points (Capabilities.Count is false)", tg.Driver.Name)
		}
		f := load(t, tg, "REAL_INSERT_RATE=0.5")
		f.countsMatch(t)
		if fl, ok := f.a.(adapters.Flusher); ok {
			if err := fl.Flush(context.Background()); err != nil {
				t.Fatalf("Flush: %v", err)
			}
		}
		if err := f.a.Cleanup(context.Background()); err != nil {
			t.Fatalf("Cleanup: %v", err)
		}
		for i := range f.schema.Devices {
			if n, err := f.count.CountPoints(context.Background(), &f.schema.Devices[i]); err == nil && n != 0 {
				t.Fatalf("after Cleanup %s still holds %d points", f.schema.Devices[i].Name, n)
			}
		}
	})
	t.Run("CancelledContextFailsPromptly", func(t *testing.T) {
		f := load(t, tg)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		b := f.gen.NewBatch()
		f.gen.NewStream(0).Next(b)
		within(t, "Write", 2*time.Second, func() error { return f.a.Write(ctx, b) })
		q := f.queries.Client(0).Next(queries.TimeRange)
		within(t, "Query", 2*time.Second, func() error { _, err := f.a.Query(ctx, &q); return err })
	})
	t.Run("ReconnectKeepsData", func(t *testing.T) {
		if !tg.Driver.Can.Reconnect || !tg.Driver.Can.Count {
			t.Skipf("%s cannot reconnect or cannot count", tg.Driver.Name)
		}
		f := load(t, tg)
		if err := f.a.(adapters.Reconnecter).Reconnect(context.Background()); err != nil {
			t.Fatalf("Reconnect: %v", err)
		}
		f.countsMatch(t)
	})
	for _, c := range []struct {
		name string
		sets []string
	}{{"BadCredentialsFailAtOpen", tg.BadCredentials}, {"UnreachableFailsAtOpen", tg.Unreachable}} {
		t.Run(c.name, func(t *testing.T) {
			if c.sets == nil {
				t.Skipf("%s has no logins or no address", tg.Driver.Name)
			}
			cfg := Load(t, tg.Driver, append(append(append([]string{}, base...), tg.Sets...), append(c.sets, "RESULTS_DIR="+t.TempDir())...)...)
			s, err := generator.NewSchema(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			a, err := tg.Driver.Open(ctx, adapters.Params{Config: cfg, Schema: s})
			if err == nil {
				a.Close()
				t.Fatal("Open succeeded")
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || msg == "" {
				t.Fatalf("Open must fail with one clear line, got %q", msg)
			}
			if ctx.Err() != nil {
				t.Fatalf("Open took longer than 30 s to fail: %v", err)
			}
		})
	}
}

func hasKey(ks *config.KeySet, name string) bool {
	for _, k := range ks.Keys {
		if k.Name == name {
			return true
		}
	}
	return false
}

// within calls f and requires an error within d.
func within(t *testing.T, what string, d time.Duration, f func() error) {
	t.Helper()
	t0 := time.Now()
	err := f()
	if err == nil {
		t.Fatalf("%s with a cancelled context succeeded", what)
	}
	if el := time.Since(t0); el > d {
		t.Fatalf("%s with a cancelled context took %v (limit %v)", what, el, d)
	}
}

// fixture is an open adapter holding the suite's data.
type fixture struct {
	cfg     *config.Config
	schema  *generator.Schema
	gen     *generator.Generator
	queries *queries.Generator
	a       adapters.Adapter
	answer  adapters.Answerer // nil when the adapter cannot answer
	count   adapters.Counter  // nil when it cannot count
}

// open opens the adapter on an empty schema (nothing written).
func open(t *testing.T, tg Target, sets ...string) *fixture {
	t.Helper()
	all := append(append(append([]string{}, base...), tg.Sets...), sets...)
	cfg := Load(t, tg.Driver, append(all, "RESULTS_DIR="+t.TempDir())...)
	s, err := generator.NewSchema(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := tg.Driver.Open(ctx, adapters.Params{Config: cfg, Schema: s})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	qg, err := queries.New(s, queries.ParamsOf(cfg), rows)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{cfg: cfg, schema: s, gen: generator.New(s, cfg, rows), queries: qg, a: a}
	f.answer, _ = a.(adapters.Answerer)
	f.count, _ = a.(adapters.Counter)
	return f
}

// load opens the adapter, cleans, creates the schema and writes every
// written device's rows, as a run's ingest does.
func load(t *testing.T, tg Target, sets ...string) *fixture {
	t.Helper()
	f := open(t, tg, sets...)
	ctx := context.Background()
	if err := f.a.Cleanup(ctx); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if err := f.a.CreateSchema(ctx); err != nil {
		t.Fatalf("CreateSchema: %v", err)
	}
	b := f.gen.NewBatch()
	for d := range f.schema.Devices {
		if !f.schema.Devices[d].Written {
			continue
		}
		st := f.gen.NewStream(d)
		for st.Next(b) {
			if err := f.a.Write(ctx, b); err != nil {
				t.Fatalf("Write %s: %v", f.schema.Devices[d].Name, err)
			}
		}
	}
	if fl, ok := f.a.(adapters.Flusher); ok {
		if err := fl.Flush(ctx); err != nil {
			t.Fatalf("Flush: %v", err)
		}
	}
	t.Cleanup(func() { f.a.Cleanup(context.Background()) })
	return f
}

// guard keeps the comparisons honest across all configurations: a family
// whose queries all return nothing, or a value filter that never removes a
// row, would make "equal to the model" prove little.
type guard struct {
	cells    map[queries.Family]int
	filtered bool // did the value filter of Q3 ever remove a row?
	// Every data type a configuration's schema had must have been in some
	// compared answer, or a type's values would be written and never read.
	offered  map[generator.DataType]bool
	answered map[generator.DataType]int
}

func (g *guard) check(t *testing.T) {
	for _, fam := range queries.Families {
		if g.cells[fam] == 0 {
			t.Errorf("%s (%s) returned nothing under every configuration: the comparison proves little", fam.ID(), fam)
		}
	}
	for typ := range g.offered {
		if g.answered[typ] == 0 {
			t.Errorf("no answer held a value of a %s sensor: its values were written and never compared", typ)
		}
	}
	if !g.filtered {
		t.Error("the value filter of Q3 never removed a row: QUERY_LOWER_VALUE tests nothing")
	}
}

// answersMatchModel checks 12 queries of every family per client against
// the model, and that Query counts the answer's cells.
func (f *fixture) answersMatchModel(t *testing.T, g *guard) {
	t.Helper()
	ctx := context.Background()
	typeOf := map[string]generator.DataType{}
	for _, sn := range f.schema.Sensors {
		typeOf[sn.Name] = sn.Type
		g.offered[sn.Type] = true
	}
	for client := 0; client < 2; client++ {
		cl := f.queries.Client(client)
		for i := 0; i < 12; i++ {
			for _, fam := range queries.Families {
				q := cl.Next(fam)
				got, err := f.answer.Answer(ctx, &q)
				if err != nil {
					t.Fatalf("%s: %v", queries.Describe(&q), err)
				}
				got.Sort()
				want := queries.Expected(f.gen, &q)
				if d := queries.Diff(got, want); d != "" {
					t.Fatalf("%s: the answer differs from the model: %s", queries.Describe(&q), d)
				}
				n, err := f.a.Query(ctx, &q)
				if err != nil || n != int64(len(want)) {
					t.Fatalf("%s: Query counted %d points (err %v), the answer has %d cells", queries.Describe(&q), n, err, len(want))
				}
				g.cells[fam] += len(want)
				if !fam.IsAggregate() { // aggregates count or sum, not read, values
					for _, c := range want {
						g.answered[typeOf[c.Sensor]]++
					}
				}
				if fam == queries.ValueRange {
					unfiltered := q
					unfiltered.Family = queries.TimeRange
					all, err := f.answer.Answer(ctx, &unfiltered)
					g.filtered = g.filtered || err == nil && len(all) > len(got)
				}
			}
		}
	}
}

// queriesSucceed is what applies to an adapter without answers: every
// family runs without error.
func (f *fixture) queriesSucceed(t *testing.T) {
	t.Helper()
	cl := f.queries.Client(0)
	for _, fam := range queries.Families {
		q := cl.Next(fam)
		if _, err := f.a.Query(context.Background(), &q); err != nil {
			t.Fatalf("%s: %v", queries.Describe(&q), err)
		}
	}
}

// countsMatch checks CountPoints of every device against what was written.
func (f *fixture) countsMatch(t *testing.T) {
	t.Helper()
	var errs []error
	for i := range f.schema.Devices {
		d := &f.schema.Devices[i]
		want := int64(0)
		if d.Written {
			want = rows * int64(len(f.schema.Sensors))
		}
		n, err := f.count.CountPoints(context.Background(), d)
		if err != nil || n != want {
			errs = append(errs, fmt.Errorf("%s holds %d points (err %v), want %d", d.Name, n, err, want))
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
