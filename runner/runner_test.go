package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/queries"
)

func plan(t testing.TB, sets ...string) *Plan {
	t.Helper()
	base := []string{"DEVICE_NUMBER=8", "SENSOR_NUMBER=5", "DATA_CLIENT_NUMBER=3", "BATCH_SIZE_PER_WRITE=10", "LOOP=20", "INIT_WAIT_TIME=0"}
	// The catalog makes SQLITE_PATH a key, not an unknown --set.
	c := configtest.Load(t, adapters.Registry{sqlite.Driver(), null.Driver()}, append(base, sets...)...)
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func op(ph Phase, name string) *metrics.Snapshot {
	for _, s := range ph.Operations {
		if s.Operation == name {
			return s
		}
	}
	return &metrics.Snapshot{}
}

func TestOperationCountsExact(t *testing.T) {
	cases := []struct {
		weights []float64
		loop    int64
		want    []int64
	}{
		{[]float64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 100, []int64{100}},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, 22, []int64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		{[]float64{12, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 230, []int64{120, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}},
		{[]float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 10, []int64{4, 3, 3}},
		{[]float64{100, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 10, []int64{9, 1}}, // every weighted kind runs
		// LOOP × 1e307 overflows: the share must come from w/sum first
		// (it spun for minutes counting to an undefined conversion).
		{[]float64{1e307, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 20, []int64{20, 0}},
		{[]float64{1e307, 1e307, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 20, []int64{10, 10}},
	}
	for _, c := range cases {
		got := OperationCounts(c.weights, c.loop)
		var sum int64
		for i, w := range c.want {
			if got[i] != w {
				t.Errorf("%v LOOP=%d: counts %v, want %v", c.weights, c.loop, got, c.want)
				break
			}
			sum += w
		}
		if sum != c.loop {
			t.Errorf("want counts do not add up")
		}
		sched := Schedule(got)
		if int64(len(sched)) != c.loop {
			t.Fatalf("schedule of %d, want %d", len(sched), c.loop)
		}
		var seen [config.NumOperations]int64
		for _, o := range sched {
			seen[o]++
		}
		if seen != got {
			t.Errorf("schedule counts %v, want %v", seen, got)
		}
	}
	// 1:1 alternates rather than clumping.
	s := Schedule(OperationCounts([]float64{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 6))
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			t.Fatalf("schedule %v clumps", s)
		}
	}
}

func TestPureWriteTotals(t *testing.T) {
	// LOOP × devices × sensors × BATCH_SIZE_PER_WRITE points, LOOP × devices batches.
	p := plan(t, "DB_SWITCH=Null", "LOOP=7")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	s := op(res.Phases[0], config.Ingestion)
	if s.OKPoints != 7*8*5*10 || s.OKOps != 7*8 || s.FailOps != 0 {
		t.Fatalf("INGESTION %d points in %d ops, want %d in %d", s.OKPoints, s.OKOps, 7*8*5*10, 7*8)
	}
	if p.WrittenPoints() != s.OKPoints {
		t.Fatalf("plan says %d points, run wrote %d", p.WrittenPoints(), s.OKPoints)
	}
}

// DEVICE_NUM_PER_WRITE: a request holds n devices' batches and counts
// once, as iot-benchmark counts it (LOOP × D / n operations, the same
// points); n must divide every client's written devices.
func TestDevicesPerWrite(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=7", "DATA_CLIENT_NUMBER=2", "DEVICE_NUM_PER_WRITE=2")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	s := op(res.Phases[0], config.Ingestion)
	if s.OKPoints != 7*8*5*10 || s.OKOps != 7*8/2 || s.FailOps != 0 {
		t.Fatalf("INGESTION %d points in %d ops, want %d in %d", s.OKPoints, s.OKOps, 7*8*5*10, 7*8/2)
	}
	c := configtest.Load(t, adapters.Registry{null.Driver()}, "DB_SWITCH=Null", "DEVICE_NUMBER=8", "DATA_CLIENT_NUMBER=3", "DEVICE_NUM_PER_WRITE=2")
	_, err = NewPlan(c)
	if want := "DEVICE_NUM_PER_WRITE=2: does not divide the 3 written devices of client 0"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("8 devices over 3 clients, 2 a request: %v, want %q…", err, want)
	}
}

func sqliteRun(t *testing.T, sets ...string) (*Plan, *Result) {
	t.Helper()
	p := plan(t, append([]string{"SQLITE_PATH=" + filepath.Join(t.TempDir(), "r.db"), "VERIFY=true"}, sets...)...)
	drv := sqlite.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	return p, res
}

func TestMixedRunOnSQLite(t *testing.T) {
	p, res := sqliteRun(t, "OPERATION_PROPORTION=3:1:1:1:1:1:1:1:1:1:1:1:0", "LOOP=42", "IS_OUT_OF_ORDER=true")
	for _, s := range res.Phases[0].Operations {
		if s.OKOps == 0 || s.FailOps != 0 {
			t.Errorf("%s: %d ok, %d failed", s.Operation, s.OKOps, s.FailOps)
		}
	}
	if len(res.Phases[0].Operations) != 12 {
		t.Fatalf("%d operations, want INGESTION and 11 families", len(res.Phases[0].Operations))
	}
	if res.VerifyFailed() || len(res.Verify) != 8 || res.Verify[0].Expected != p.RowsPerDevice*5 {
		t.Fatalf("verify: %+v", res.Verify)
	}
}

func TestUnboundClientsWriteEveryDeviceFully(t *testing.T) {
	p, res := sqliteRun(t, "IS_CLIENT_BIND=false", "DATA_CLIENT_NUMBER=5", "LOOP=6", "REAL_INSERT_RATE=0.75")
	if res.VerifyFailed() {
		t.Fatalf("verify: %+v", res.Verify)
	}
	for _, v := range res.Verify {
		want := int64(0)
		if v.Device.Written {
			want = p.RowsPerDevice * 5
		}
		if v.Found != want {
			t.Fatalf("%s holds %d points, want %d", v.Device.Name, v.Found, want)
		}
	}
}

// slow wraps the Null adapter with a delay that honours the context, to
// test the runner's timeouts without a database that misbehaves on purpose.
type slow struct {
	*null.Adapter
	delay  time.Duration
	ignore bool // report success even after the context ended
}

func (s slow) Write(ctx context.Context, b *generator.Batch) error {
	select {
	case <-time.After(s.delay):
		return nil
	case <-ctx.Done():
		if s.ignore {
			time.Sleep(s.delay)
			return nil
		}
		return ctx.Err()
	}
}

func (s slow) Query(ctx context.Context, q *queries.Query) (int64, error) {
	return 5, s.Write(ctx, nil)
}

func slowDriver(delay time.Duration, ignore bool) *adapters.Driver {
	d := null.Driver()
	d.Open = func(context.Context, adapters.Params) (adapters.Adapter, error) {
		return slow{Adapter: &null.Adapter{}, delay: delay, ignore: ignore}, nil
	}
	return &d
}

func TestTimedOutOperationsFail(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		p := plan(t, "DB_SWITCH=Null", "LOOP=4", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "WRITE_OPERATION_TIMEOUT_MS=20", "READ_OPERATION_TIMEOUT_MS=20")
		t0 := time.Now()
		res, err := Run(context.Background(), p, slowDriver(200*time.Millisecond, ignore), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Phases[0].Operations {
			if s.OKOps != 0 || s.FailOps == 0 {
				t.Errorf("ignore=%v %s: %d ok, %d failed; every operation timed out", ignore, s.Operation, s.OKOps, s.FailOps)
			}
			if s.Operation == "PRECISE_POINT" && s.OKPoints != 0 {
				t.Errorf("a timed-out query contributed points")
			}
		}
		if !ignore && time.Since(t0) > 2*time.Second {
			t.Errorf("timeouts of 20 ms took %v", time.Since(t0))
		}
	}
}

func TestTestMaxTimeStopsTheRun(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=100000", "TEST_MAX_TIME=300")
	t0 := time.Now()
	res, err := Run(context.Background(), p, slowDriver(5*time.Millisecond, false), Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Fatalf("TEST_MAX_TIME=300 ms, the run took %v", el)
	}
	s := op(res.Phases[0], config.Ingestion)
	if s.OKOps == 0 || s.FailOps != 0 {
		t.Fatalf("%d ok and %d failed writes: in-flight writes must finish, not fail", s.OKOps, s.FailOps)
	}
}

func TestCancelStopsAndReports(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=100000")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(errors.New("test cancel")) })
	res, err := Run(ctx, p, slowDriver(time.Millisecond, false), Options{})
	if err != nil || res.Stopped == nil || len(res.Phases) != 1 {
		t.Fatalf("err %v, stopped %v, phases %d", err, res.Stopped, len(res.Phases))
	}
}

func TestUnreachableDatabaseIsAConnectError(t *testing.T) {
	p := plan(t)
	d := null.Driver()
	d.Open = func(context.Context, adapters.Params) (adapters.Adapter, error) {
		return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
	}
	_, err := Run(context.Background(), p, &d, Options{})
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("err %v, want ErrConnect", err)
	}
}

// BenchmarkNullPipeline measures the whole tool without a database:
// generation, scheduling and recording, with the weekly-report shape per
// client (500 sensors, batch 100).
func BenchmarkNullPipeline(b *testing.B) {
	p := plan(b, "DB_SWITCH=Null", "DEVICE_NUMBER=50", "SENSOR_NUMBER=500", "BATCH_SIZE_PER_WRITE=100", "DATA_CLIENT_NUMBER=10", "LOOP=10", "GROUP_NUMBER=10")
	drv := null.Driver()
	b.ReportAllocs()
	var points int64
	for b.Loop() {
		res, err := Run(context.Background(), p, &drv, Options{})
		if err != nil {
			b.Fatal(err)
		}
		points += op(res.Phases[0], config.Ingestion).OKPoints
	}
	b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
}

func TestOpMinIntervalPaces(t *testing.T) {
	// Four operations of at least 60 ms each cannot finish in under 240 ms,
	// however fast the machine; without pacing they take microseconds.
	p := plan(t, "DB_SWITCH=Null", "LOOP=4", "OP_MIN_INTERVAL=60", "DATA_CLIENT_NUMBER=2")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	if el := res.Phases[0].Elapsed; el < 240*time.Millisecond {
		t.Fatalf("LOOP=4 with OP_MIN_INTERVAL=60 took %v, less than 4 × 60 ms", el)
	}
}

// TestPlanSteps pins the order of a run's steps for each way of laying it
// out, computed without a database: what Run walks and --dry-run prints.
func TestPlanSteps(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{nil, "cleanup|create schema|main phase (writes and queries mixed)"},
		{[]string{"IS_DELETE_DATA=false", "CREATE_SCHEMA=false", "VERIFY=true", "DB_SWITCH=SQLite"},
			"cleanup (skipped: IS_DELETE_DATA=false)|create schema (skipped: CREATE_SCHEMA=false)|main phase (writes and queries mixed)|verify"},
		{[]string{"QUERY_ROUNDS=2", "OPERATION_PROPORTION=2:1:1:0:0:0:0:0:0:0:0:0:0"},
			"cleanup|create schema|ingest|lifecycle before round 1|query PRECISE_POINT (Q1) round 1|query TIME_RANGE (Q2) round 1|query PRECISE_POINT (Q1) round 2|query TIME_RANGE (Q2) round 2"},
		{[]string{"QUERY_ROUNDS=2", "RESTART_SCOPE=variant", "OPERATION_PROPORTION=2:1:1:0:0:0:0:0:0:0:0:0:0"},
			"cleanup|create schema|ingest|lifecycle before round 1 of PRECISE_POINT|query PRECISE_POINT (Q1) round 1|query PRECISE_POINT (Q1) round 2|lifecycle before round 1 of TIME_RANGE|query TIME_RANGE (Q2) round 1|query TIME_RANGE (Q2) round 2"},
		// A query-only run with rounds reads an earlier run's data: no ingest, nothing cleaned.
		{[]string{"QUERY_ROUNDS=1", "OPERATION_PROPORTION=0:0:0:0:0:0:0:0:1:0:0:0:0"},
			"cleanup (skipped: IS_DELETE_DATA=false)|create schema (skipped: CREATE_SCHEMA=false)|lifecycle before round 1|query LATEST_POINT (Q8) round 1"},
	} {
		p := plan(t, c.sets...)
		var got []string
		for _, s := range p.Steps {
			got = append(got, s.String())
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.sets, g, c.want)
		}
		var out strings.Builder
		p.Describe(&out)
		for i, s := range got {
			if line := fmt.Sprintf("%3d. %s\n", i+1, s); !strings.Contains(out.String(), line) {
				t.Errorf("%v: --dry-run does not print step %q:\n%s", c.sets, line, out.String())
			}
		}
	}
}

// TestTargetThroughput: with a schedule, operations start on time when the
// database keeps up (the phase lasts as long as the schedule), and when it
// does not, later operations start late and their wait counts in their
// latency but not in their service time.
func TestTargetThroughput(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "DATA_CLIENT_NUMBER=2", "DEVICE_NUMBER=2", "LOOP=20", "TARGET_THROUGHPUT=200", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0")
	res, err := Run(context.Background(), p, ptrDriver(null.Driver()), Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	// 2 clients × 20 operations at 200/s: the last is due after 195 ms.
	if el := res.Phases[0].Elapsed; el < 190*time.Millisecond || el > 2*time.Second {
		t.Fatalf("the schedule of 40 operations at 200/s took %v", el)
	}
	if _, ok := res.Phases[0].Operations[0].ServiceTime(); !ok {
		t.Fatal("a scheduled run must report service time")
	}

	p = plan(t, "DB_SWITCH=Null", "DATA_CLIENT_NUMBER=1", "DEVICE_NUMBER=1", "LOOP=8", "TARGET_THROUGHPUT=100", "OPERATION_PROPORTION=0:1:0:0:0:0:0:0:0:0:0:0:0")
	res, err = Run(context.Background(), p, slowDriver(25*time.Millisecond, false), Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	q := res.Phases[0].Operations[0]
	l := q.Latency()
	st, ok := q.ServiceTime()
	// Due every 10 ms, each taking 25 ms: the 8th starts about 105 ms late,
	// so the latencies are 25, 40 … 130 ms, their median about 77, while
	// every service time is 25 ms. Medians, not maxima: a stall of the
	// machine lengthens one operation's service time too (CI saw 367 ms).
	if !ok || q.OKOps != 8 || 2*st.Median > l.Median || l.Max < 100 || l.Max < st.Max {
		t.Fatalf("latency %+v, service time %+v (%v): the waits must be in the latency only", l, st, ok)
	}
}

// TestScheduledLatencyIncludesTheClient: with a schedule, latency counts
// from the time an operation was due, so what the client does before it
// sends (here generating a batch of 1,000 rows × 2,000 sensors, several
// milliseconds) is latency but not service time. The Null database answers
// in microseconds: before the wait was taken when the request was sent, the
// two were equal.
func TestScheduledLatencyIncludesTheClient(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "DATA_CLIENT_NUMBER=1", "DEVICE_NUMBER=1", "SENSOR_NUMBER=2000", "BATCH_SIZE_PER_WRITE=1000",
		"INSERT_DATATYPE_PROPORTION=0:0:0:1:1:0:0:0:0:0:0", "LOOP=6", "TARGET_THROUGHPUT=10", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	res, err := Run(context.Background(), p, ptrDriver(null.Driver()), Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	w := op(res.Phases[0], config.Ingestion)
	l := w.Latency()
	st, ok := w.ServiceTime()
	t.Logf("latency %+v\n service time %+v", l, st)
	// 2 M points a batch take 5-10 ms to generate here; 1 ms is a floor
	// no machine generates them under.
	if !ok || w.OKOps != 6 || l.Min < st.Min+1 || l.Avg < st.Avg+1 {
		t.Fatalf("latency %+v, service time %+v (%v): the batch's generation must be in the latency", l, st, ok)
	}
}

func ptrDriver(d adapters.Driver) *adapters.Driver { return &d }

// TestInterruptedStepIsNotFailed: a step ended by Ctrl-C (a cancelled
// context) is said to be interrupted, not to have failed.
func TestInterruptedStepIsNotFailed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &walker{opts: Options{Log: io.Discard}, res: &Result{}}
	if w.step(ctx, "cleanup", "", func(ctx context.Context) error { return fmt.Errorf("drop tables: %w", ctx.Err()) }) {
		t.Fatal("an interrupted step let the run go on")
	}
	if got := w.res.Stopped.Error(); got != "cleanup interrupted: context canceled" {
		t.Fatalf("stopped: %q", got)
	}
	w = &walker{opts: Options{Log: io.Discard}, res: &Result{}}
	w.step(context.Background(), "cleanup", "", func(context.Context) error { return errors.New("disk full") })
	if got := w.res.Stopped.Error(); got != "cleanup failed: disk full" {
		t.Fatalf("stopped: %q", got)
	}
}

// With a start time the measured phase begins at it, after the setup; an
// instance ready only after it stops instead of measuring a run that does
// not overlap the others'. A distributed instance does not clean up.
func TestStartAt(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=3")
	drv := null.Driver()
	at := time.Now().Add(300 * time.Millisecond)
	res, err := Run(context.Background(), p, &drv, Options{StartAt: at})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	if got := res.Phases[0].Started; got.Before(at) || got.Sub(at) > 2*time.Second {
		t.Errorf("the phase began %s after the start time", got.Sub(at))
	}
	res, err = Run(context.Background(), p, &drv, Options{StartAt: time.Now().Add(-time.Second)})
	if err != nil || res.Stopped == nil || len(res.Phases) != 0 || !strings.Contains(res.Stopped.Error(), "after the start time") {
		t.Fatalf("a late instance: stopped %v, %d phases", res.Stopped, len(res.Phases))
	}
	d := plan(t, "DB_SWITCH=Null", "BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=3", "BENCHMARK_INDEX=2")
	if d.Steps[0].Kind != StepCleanup || !strings.Contains(d.Steps[0].Skip, "bench clean") {
		t.Errorf("a distributed instance's cleanup: %+v", d.Steps[0])
	}
	if id := d.Schema.Devices[0].ID; id != 16 {
		t.Errorf("instance 2 of 8 devices begins at device %d, want 16", id)
	}
	// Its queries read its own devices, 16..23.
	for i := 0; i < 50; i++ {
		q := d.Queries.Client(i % 3).Next(queries.TimeRange)
		for _, dev := range q.Devices {
			if dev.ID < 16 || dev.ID > 23 {
				t.Fatalf("instance 2 queries device %d", dev.ID)
			}
		}
	}
}

// decodingAdapter is a database whose adapter says when each answer is in
// (when answer is set) and then spends decode decoding it.
type decodingAdapter struct {
	adapters.Adapter
	answer bool
	decode time.Duration
}

func (d decodingAdapter) decoded(ctx context.Context) {
	if d.answer {
		adapters.Received(ctx)
	}
	time.Sleep(d.decode)
}

func (d decodingAdapter) Write(ctx context.Context, b *generator.Batch) error {
	err := d.Adapter.Write(ctx, b)
	d.decoded(ctx)
	return err
}

func (d decodingAdapter) Query(ctx context.Context, q *queries.Query) (int64, error) {
	n, err := d.Adapter.Query(ctx, q)
	d.decoded(ctx)
	return n, err
}

// TestLatencyEndsAtTheAnswer: an adapter that notes when the answer was in
// (adapters.Received) is timed to that moment, so the time it then spends
// decoding is not the database's latency; one that does not is timed to
// its return.
func TestLatencyEndsAtTheAnswer(t *testing.T) {
	const decode = 20 * time.Millisecond
	for _, answer := range []bool{true, false} {
		p := plan(t, "DB_SWITCH=Null", "DATA_CLIENT_NUMBER=1", "DEVICE_NUMBER=1", "LOOP=6", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0")
		drv := null.Driver()
		open := drv.Open
		drv.Open = func(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
			a, err := open(ctx, p)
			return decodingAdapter{Adapter: a, answer: answer, decode: decode}, err
		}
		res, err := Run(context.Background(), p, &drv, Options{})
		if err != nil || res.Stopped != nil {
			t.Fatal(err, res.Stopped)
		}
		for _, name := range []string{config.Ingestion, "PRECISE_POINT"} {
			s := op(res.Phases[0], name)
			l := s.Latency()
			if s.OKOps == 0 {
				t.Fatalf("answer %v: no %s operations", answer, name)
			}
			if answer && l.Max >= float64(decode.Milliseconds()) {
				t.Errorf("%s: latency up to %v ms although the answer was in before %v of decoding", name, l.Max, decode)
			}
			if !answer && l.Min < float64(decode.Milliseconds()) {
				t.Errorf("%s without Received: latency from %v ms, less than the adapter took", name, l.Min)
			}
		}
	}
}

// panicky is the Null adapter whose writes panic, as an adapter's bug would.
type panicky struct{ *null.Adapter }

func (panicky) Write(context.Context, *generator.Batch) error {
	panic("index out of range [3] with length 3")
}

// A client's panic comes back on Run's goroutine, where the command
// recovers it and reports a bug: from the client's goroutine it would end
// the process with Go's status 2, a usage error's.
func TestClientPanicReachesTheCaller(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=50", "DATA_CLIENT_NUMBER=3", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	d := null.Driver()
	d.Open = func(context.Context, adapters.Params) (adapters.Adapter, error) { return panicky{&null.Adapter{}}, nil }
	defer func() {
		cp, ok := recover().(*ClientPanic)
		if !ok {
			t.Fatalf("Run did not raise a ClientPanic")
		}
		if got := fmt.Sprint(cp); !strings.HasSuffix(got, ": index out of range [3] with length 3") || !strings.HasPrefix(got, "client ") {
			t.Errorf("the panic reads %q", got)
		}
		if !strings.Contains(string(cp.Stack), "panicky.Write") {
			t.Errorf("the stack does not show where:\n%s", cp.Stack)
		}
	}()
	_, _ = Run(context.Background(), p, &d, Options{})
	t.Fatal("Run returned")
}

// reporting is the Null adapter with server metrics that change between
// the runner's two reads: what each read returns, in turn.
type reporting struct {
	*null.Adapter
	reads [][]adapters.ServerMetric
	n     *int
}

func (r reporting) ServerMetrics(context.Context) ([]adapters.ServerMetric, error) {
	m := r.reads[min(*r.n, len(r.reads)-1)]
	*r.n++
	return append([]adapters.ServerMetric(nil), m...), nil
}

// TestServerMetricsNotReportedStayAbsent: a counter becomes its change
// over the run; a counter the server did not report before the run has no
// known change, and a figure it did not report at the end is not reported:
// neither becomes its total or 0.
func TestServerMetricsNotReportedStayAbsent(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "LOOP=20")
	d := null.Driver()
	n := 0
	d.Open = func(context.Context, adapters.Params) (adapters.Adapter, error) {
		return reporting{Adapter: &null.Adapter{}, n: &n, reads: [][]adapters.ServerMetric{
			{{Name: "gc", Value: 10, Counter: true}, {Name: "late", NotReported: true, Counter: true}, {Name: "size", Value: 1}},
			{{Name: "gc", Value: 15, Counter: true}, {Name: "late", Value: 7, Counter: true}, {Name: "size", NotReported: true}},
		}}, nil
	}
	res, err := Run(context.Background(), p, &d, Options{})
	if err != nil || res.ServerMetricsErr != nil {
		t.Fatal(err, res.ServerMetricsErr)
	}
	got := map[string]adapters.ServerMetric{}
	for _, m := range res.ServerMetrics {
		got[m.Name] = m
	}
	if g := got["gc"]; g.NotReported || g.Value != 5 {
		t.Errorf("gc: %+v, want its change 5", g)
	}
	for _, name := range []string{"late", "size"} {
		if g := got[name]; !g.NotReported || g.Value != 0 {
			t.Errorf("%s: %+v, want not reported", name, g)
		}
	}
}

// TestClean: bench clean's cleanup is the run's: a SQLite file a run
// filled holds nothing of it after Clean, which pauses INIT_WAIT_TIME
// after saying so; a database that cannot be opened is ErrConnect.
func TestClean(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	p, _ := sqliteRun(t, "SQLITE_PATH="+db)
	cnt := func() int64 {
		drv := sqlite.Driver()
		a, err := drv.Open(context.Background(), adapters.Params{Config: p.Config, Schema: p.Schema, Existing: true})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		var n int64
		for _, dc := range Verify(context.Background(), p, a.(adapters.Counter)) {
			n += dc.Found
		}
		return n
	}
	if cnt() == 0 {
		t.Fatal("the run left nothing to clean")
	}
	p = plan(t, "SQLITE_PATH="+db, "INIT_WAIT_TIME=300")
	drv := sqlite.Driver()
	var said time.Duration
	start := time.Now()
	if err := Clean(context.Background(), p, &drv, func(w time.Duration) { said = w }); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); said != 300*time.Millisecond || took < said {
		t.Errorf("the pause: said %v, took %v", said, took)
	}
	if n := cnt(); n != 0 {
		t.Errorf("%d points left after Clean", n)
	}
	d := null.Driver()
	d.Open = func(context.Context, adapters.Params) (adapters.Adapter, error) {
		return nil, errors.New("connection refused")
	}
	if err := Clean(context.Background(), p, &d, func(time.Duration) { t.Error("cleaned without a database") }); !errors.Is(err, ErrConnect) {
		t.Errorf("unreachable: %v, want ErrConnect", err)
	}
}

// lateTimer is a context whose deadline has passed while its timer has not
// run yet, as on a stalled machine: Err still says nothing.
type lateTimer struct {
	context.Context
	deadline time.Time
}

func (l lateTimer) Deadline() (time.Time, bool) { return l.deadline, true }

// TestOverdue: an operation is overdue by its context's error, or by the
// clock when that error has not come yet; never before its deadline.
func TestOverdue(t *testing.T) {
	bg := context.Background()
	if err := overdue(lateTimer{bg, time.Now().Add(-time.Millisecond)}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a deadline passed, its timer not run: %v", err)
	}
	if err := overdue(lateTimer{bg, time.Now().Add(time.Hour)}); err != nil {
		t.Errorf("before the deadline: %v", err)
	}
	if err := overdue(bg); err != nil {
		t.Errorf("no deadline: %v", err)
	}
	done, cancel := context.WithCancel(bg)
	cancel()
	if err := overdue(done); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}
