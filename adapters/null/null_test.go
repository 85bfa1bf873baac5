package null

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"

	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestConformance runs what applies of the suite: Null declares no
// answers, counts or reconnects, so it shows that it declares exactly what
// it implements, accepts every write and query, and fails on a done context.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{Driver: Driver()})
}

// TestSlowOperationIsARunsOperation: a NULL_SLOW_OPERATION that names no
// operation of the run is refused with the names it could take, so a check
// of the gate cannot pass by slowing nothing.
func TestSlowOperationIsARunsOperation(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string // "" when accepted
	}{
		{[]string{"NULL_SLOW_OPERATION=FOO"}, "NULL_SLOW_OPERATION=FOO: names no operation of this run, so it would slow nothing (valid: INGESTION, or empty)"},
		{[]string{"NULL_SLOW_OPERATION=PRECISE_POINT"}, "(valid: INGESTION, or empty)"},
		{[]string{"NULL_SLOW_OPERATION=precise_point", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0"}, "(valid: INGESTION, PRECISE_POINT, or empty)"},
		{[]string{"NULL_SLOW_OPERATION=PRECISE_POINT", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0"}, ""},
		{[]string{"NULL_SLOW_OPERATION=INGESTION"}, ""},
		{[]string{"NULL_SLOW_OPERATION=Q4b3", "QUERY_SUITE=weekly"}, ""},
		{[]string{"NULL_SLOW_OPERATION=TIME_RANGE", "QUERY_SUITE=weekly"}, "names no operation of this run"},
		{nil, ""},
	} {
		_, err := adaptertest.Try(Driver(), c.sets...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: refused: %v", c.sets, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want %q", c.sets, err, c.want)
		}
	}
}

// TestDelayTarget checks the delay target's promise: every operation takes
// at least NULL_DELAY_MS, the slow operation its share more, and a done
// context ends the wait at once with an error.
func TestDelayTarget(t *testing.T) {
	ctx := context.Background()
	cfg := adaptertest.Load(t, Driver(), "NULL_DELAY_MS=20", "NULL_JITTER_MS=0", "NULL_SLOW_OPERATION=PRECISE_POINT", "NULL_SLOWDOWN_PCT=100",
		"OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0")
	a, err := Driver().Open(ctx, adapters.Params{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	took := func(f func() error) time.Duration {
		t.Helper()
		start := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	write := took(func() error { return a.Write(ctx, nil) })
	other := took(func() error { _, err := a.Query(ctx, &queries.Query{Variant: "TIME_RANGE"}); return err })
	slow := took(func() error { _, err := a.Query(ctx, &queries.Query{Variant: "PRECISE_POINT"}); return err })
	// Lower bounds only: a timer never fires early, but a busy machine may
	// wake it late.
	if write < 20*time.Millisecond || other < 20*time.Millisecond || slow < 40*time.Millisecond {
		t.Fatalf("write %v, TIME_RANGE %v, PRECISE_POINT (100%% slower) %v; want ≥ 20, 20, 40 ms", write, other, slow)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	if err := a.Write(done, nil); !errors.Is(err, context.Canceled) || time.Since(start) > 15*time.Millisecond {
		t.Fatalf("a cancelled write returned %v after %v", err, time.Since(start))
	}
}

// TestNoDelayByDefault keeps the Null database what it was: a measure of
// tsbench's own cost, adding nothing.
func TestNoDelayByDefault(t *testing.T) {
	a, err := Driver().Open(context.Background(), adapters.Params{Config: adaptertest.Load(t, Driver())})
	if err != nil {
		t.Fatal(err)
	}
	if a.(*Adapter).rng != nil {
		t.Fatal("the Null database draws delays although NULL_DELAY_MS and NULL_JITTER_MS are 0")
	}
}

// TestTrace: with NULL_TRACE the Null database writes the schema, each
// write's device, rows, time range and value digest, and each query's
// parameters; two writes of other values differ in their digest.
func TestTrace(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trace.txt")
	cfg := adaptertest.Load(t, Driver(), "NULL_TRACE="+path, "DEVICE_NUMBER=2", "SENSOR_NUMBER=3", "DATA_CLIENT_NUMBER=1", "BATCH_SIZE_PER_WRITE=5")
	s, err := generator.NewSchema(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Driver().Open(ctx, adapters.Params{Config: cfg, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	g := generator.New(s, cfg, 10)
	b := g.NewBatch()
	st := g.NewStream(0)
	if err := a.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		st.Next(b)
		if err := a.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	q := &queries.Query{Family: queries.TimeRange, Variant: "TIME_RANGE", Devices: []*generator.Device{&s.Devices[1]}, Sensors: []*generator.Sensor{&s.Sensors[2]}, Start: 10, End: 20, Limit: -1}
	if _, err := a.Query(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var writes []string
	for _, want := range []string{"schema group g_0", "schema device d_1 ", "schema sensor s_2 ", "write: d_0, 5 rows, ", "query TIME_RANGE (TIME_RANGE): devices d_1, sensors s_2, time 10..20"} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, want) {
				found = true
				if want == "write: d_0, 5 rows, " {
					writes = append(writes, l[strings.Index(l, "digest"):])
				}
			}
		}
		if !found {
			t.Errorf("no line %q in the trace:\n%s", want, raw)
		}
	}
	if len(writes) != 2 || writes[0] == writes[1] {
		t.Errorf("two writes of other rows: digests %v", writes)
	}
}
