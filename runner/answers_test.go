package runner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
	"github.com/tsbench/tsbench/queries"
)

func planErr(t *testing.T, sets ...string) error {
	t.Helper()
	base := []string{"DEVICE_NUMBER=8", "SENSOR_NUMBER=5", "DATA_CLIENT_NUMBER=3", "BATCH_SIZE_PER_WRITE=10", "LOOP=20", "INIT_WAIT_TIME=0"}
	c := configtest.Load(t, adapters.Registry{sqlite.Driver(), null.Driver()}, append(base, sets...)...)
	_, err := NewPlan(c)
	return err
}

// TestAnswerAndWarmupRefusals: what cannot be checked, and a warm-up that
// applies to nothing or leaves nothing, are refused before the run.
func TestAnswerAndWarmupRefusals(t *testing.T) {
	mix := "OPERATION_PROPORTION=1:1:1:0:0:0:0:0:0:0:0:0:0"
	for _, c := range []struct {
		sets []string
		key  string // "" when the plan is fine
		msg  string
	}{
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=1", mix}, "", ""},
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=0", mix}, "CHECK_ANSWERS", "mixed phase"},
		// A query-only run: the plan is fine, its data the caller's to find (TestQueryOnlyPlan).
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "OPERATION_PROPORTION=0:1:1:0:0:0:0:0:0:0:0:0:0"}, "", ""},
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "IS_DELETE_DATA=false", mix}, "CHECK_ANSWERS", "IS_DELETE_DATA=false"},
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "BENCHMARK_CLUSTER=true", "BENCHMARK_INSTANCES=2", mix}, "CHECK_ANSWERS", "instances"},
		{[]string{"CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "CHECK_ANSWERS_RATIO=0", mix}, "CHECK_ANSWERS_RATIO", "checks no query"},
		{[]string{"CHECK_ANSWERS=false", "QUERY_ROUNDS=0", mix}, "", ""},
		{[]string{"WARMUP_TIME=5", "WARMUP_OPERATIONS=3"}, "WARMUP_TIME", "both"},
		{[]string{"WARMUP_TIME=5", "TEST_MAX_TIME=5000"}, "WARMUP_TIME", "whole of every phase"},
		{[]string{"WARMUP_OPERATIONS=20"}, "WARMUP_OPERATIONS", "leaves nothing to measure in the main phase"},
		{[]string{"WARMUP_OPERATIONS=19"}, "", ""},
		{[]string{"WARMUP_OPERATIONS=5", "QUERY_ROUNDS=1", "OPERATION_PROPORTION=0:1:0:0:0:0:0:0:0:0:0:0:0"}, "WARMUP_OPERATIONS", "has neither"},
		{[]string{"WARMUP_OPERATIONS=5", "QUERY_ROUNDS=2", "QUERY_LOOP=5", mix}, "WARMUP_OPERATIONS", "query phase"},
	} {
		err := planErr(t, c.sets...)
		var ce *config.Error
		switch {
		case c.key == "" && err != nil:
			t.Errorf("%v: %v", c.sets, err)
		case c.key == "":
		case !errors.As(err, &ce) || ce.Key != c.key || !strings.Contains(ce.Msg, c.msg):
			t.Errorf("%v: got %v, want %s refused (%q)", c.sets, err, c.key, c.msg)
		}
	}
}

// TestQueryOnlyPlan: a query-only run with CHECK_ANSWERS checks the data
// an earlier run wrote: its model holds LOOP × BATCH_SIZE_PER_WRITE rows a
// device, and its data fingerprint is the write run's of the same data
// (whatever the operations), not another LOOP's.
func TestQueryOnlyPlan(t *testing.T) {
	base := []string{"DEVICE_NUMBER=8", "SENSOR_NUMBER=5", "DATA_CLIENT_NUMBER=3", "BATCH_SIZE_PER_WRITE=10", "INIT_WAIT_TIME=0"}
	plan := func(sets ...string) *Plan {
		c := configtest.Load(t, adapters.Registry{sqlite.Driver(), null.Driver()}, append(slices.Clone(base), sets...)...)
		p, err := NewPlan(c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	q := plan("CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "LOOP=20", "OPERATION_PROPORTION=0:1:1:0:0:0:0:0:0:0:0:0:0", "IS_DELETE_DATA=false")
	w := plan("LOOP=20", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0")
	other := plan("LOOP=30", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0")
	if !q.EarlierData || w.EarlierData || q.DataRows != 200 || w.RowsPerDevice != 200 {
		t.Fatalf("earlier data %v and %v, rows %d and %d", q.EarlierData, w.EarlierData, q.DataRows, w.RowsPerDevice)
	}
	if q.DataFingerprint() != w.DataFingerprint() || q.DataFingerprint() == other.DataFingerprint() {
		t.Errorf("data fingerprints: query-only %s, its writer %s, another LOOP's %s", q.DataFingerprint(), w.DataFingerprint(), other.DataFingerprint())
	}
}

// dropping loses one row of every answer of a family, as a broken
// database would.
type dropping struct {
	*sqlite.Adapter
	family queries.Family
}

func (d dropping) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	a, err := d.Adapter.Answer(ctx, q)
	if q.Family == d.family && len(a) > 0 {
		a = a[1:]
	}
	return a, err
}

func TestWrongAnswersFailTheirFamily(t *testing.T) {
	p := plan(t, "SQLITE_PATH="+filepath.Join(t.TempDir(), "r.db"), "CHECK_ANSWERS=true", "QUERY_ROUNDS=2", "QUERY_LOOP=4", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "LOOP=24")
	drv := sqlite.Driver()
	open := drv.Open
	drv.Open = func(ctx context.Context, pa adapters.Params) (adapters.Adapter, error) {
		a, err := open(ctx, pa)
		return dropping{a.(*sqlite.Adapter), queries.ValueRange}, err
	}
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	rounds := 0
	for _, ph := range res.Phases {
		if ph.Name != "query" {
			continue
		}
		s := op(ph, ph.Variant)
		want := int64(0)
		if ph.Variant == "VALUE_RANGE" {
			want, rounds = 12, rounds+1
		}
		if s.AnswersChecked != 12 || s.AnswersWrong != want || s.FailOps != want {
			t.Errorf("%s round %d: %d checked, %d wrong, %d failed", ph.Variant, ph.Round, s.AnswersChecked, s.AnswersWrong, s.FailOps)
		}
		if want > 0 {
			for m := range s.Errors {
				if !strings.HasPrefix(m, "wrong answer: VALUE_RANGE d_") || !strings.Contains(m, "rows, expected") {
					t.Errorf("reason %q", m)
				}
			}
		}
	}
	if rounds != 2 {
		t.Errorf("VALUE_RANGE ran in %d rounds, want 2", rounds)
	}
}

// failingWrites fails the first write of the run: the ingest then lacks a
// batch, and the answers are not checked, as the run says.
type failingWrites struct {
	*sqlite.Adapter
	failed *bool
}

func (f failingWrites) Write(ctx context.Context, b *generator.Batch) error {
	if !*f.failed {
		*f.failed = true
		return errors.New("disk full")
	}
	return f.Adapter.Write(ctx, b)
}

func TestAnswersNotCheckedAfterALostWrite(t *testing.T) {
	p := plan(t, "SQLITE_PATH="+filepath.Join(t.TempDir(), "r.db"), "CHECK_ANSWERS=true", "QUERY_ROUNDS=1", "QUERY_LOOP=4", "DATA_CLIENT_NUMBER=1", "MAX_ERROR_RATE=100", "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0")
	drv := sqlite.Driver()
	open := drv.Open
	failed := false
	drv.Open = func(ctx context.Context, pa adapters.Params) (adapters.Adapter, error) {
		a, err := open(ctx, pa)
		return failingWrites{a.(*sqlite.Adapter), &failed}, err
	}
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	if !strings.Contains(res.AnswersNotChecked, "1 write operations of the ingest failed") {
		t.Errorf("answers not checked: %q", res.AnswersNotChecked)
	}
	if s := op(res.Phases[1], "PRECISE_POINT"); s.AnswersChecked != 0 || s.OKOps == 0 {
		t.Errorf("PRECISE_POINT: %d checked of %d", s.AnswersChecked, s.OKOps)
	}
}

// TestWarmupKeptApart: WARMUP_OPERATIONS puts each client's first
// operations (and whatever started before the last client finished them)
// into the warm-up; the phase's own figures are the rest, measured from
// the warm-up's end. Round 1 of the queries has none; round 2 has one.
func TestWarmupKeptApart(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "NULL_DELAY_MS=2", "DATA_CLIENT_NUMBER=2", "DEVICE_NUMBER=2", "LOOP=40", "WARMUP_OPERATIONS=5",
		"QUERY_ROUNDS=2", "QUERY_LOOP=10", "OPERATION_PROPORTION=3:1:0:0:0:0:0:0:0:0:0:0:0")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	for _, ph := range res.Phases {
		name, total := "PRECISE_POINT", int64(2*10)
		if ph.Name == "ingest" {
			name, total = config.Ingestion, 2*30
		}
		s := op(ph, name)
		if ph.Name == "query" && ph.Round == 1 {
			if ph.Warmup != nil || s.OKOps != total {
				t.Errorf("round 1: warm-up %v, %d measured of %d", ph.Warmup, s.OKOps, total)
			}
			continue
		}
		if ph.Warmup == nil {
			t.Fatalf("%s round %d has no warm-up", ph.Name, ph.Round)
		}
		var w int64
		for _, o := range ph.Warmup.Operations {
			w += o.OKOps
		}
		if w < 2*5 || w+s.OKOps != total || s.OKOps == 0 {
			t.Errorf("%s round %d: %d warm-up + %d measured operations, want at least 10 warm-up of %d", ph.Name, ph.Round, w, s.OKOps, total)
		}
		if ph.Warmup.Elapsed < 5*2*time.Millisecond {
			t.Errorf("%s: warm-up of %v", ph.Name, ph.Warmup.Elapsed)
		}
		if got := time.Duration(float64(len(s.PerSecond))) * time.Second; got > ph.Elapsed+time.Second {
			t.Errorf("%s: %d windows for a measured part of %v", ph.Name, len(s.PerSecond), ph.Elapsed)
		}
	}
}

// TestWarmupTime: WARMUP_TIME puts the operations that start in the
// phase's first seconds into the warm-up, which lasts exactly that long.
func TestWarmupTime(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "NULL_DELAY_MS=20", "DATA_CLIENT_NUMBER=1", "DEVICE_NUMBER=1", "LOOP=75", "WARMUP_TIME=1", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	ph := res.Phases[0]
	if ph.Warmup == nil || ph.Warmup.Elapsed != time.Second {
		t.Fatalf("warm-up %+v, want 1 s", ph.Warmup)
	}
	w, m := ph.Warmup.Operations[0].OKOps, op(ph, config.Ingestion).OKOps
	// 20 ms each: at most 50 start in the first second (fewer on a slow machine).
	if w+m != 75 || w > 51 || w < 10 || m < 24 {
		t.Errorf("%d warm-up and %d measured operations", w, m)
	}
}

// TestWarmupLongerThanAPhase: a warm-up that outlasts a phase leaves it
// unmeasured, and the run says so.
func TestWarmupLongerThanAPhase(t *testing.T) {
	p := plan(t, "DB_SWITCH=Null", "DATA_CLIENT_NUMBER=1", "DEVICE_NUMBER=1", "LOOP=4", "WARMUP_TIME=1", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	drv := null.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "the warm-up lasted the whole main phase") {
		t.Fatalf("notes: %q", res.Notes)
	}
	if res.Phases[0].Elapsed != 0 || res.Phases[0].Warmup.Operations[0].OKOps != 4 {
		t.Fatalf("phase: %v measured, warm-up %+v", res.Phases[0].Elapsed, res.Phases[0].Warmup)
	}
}
