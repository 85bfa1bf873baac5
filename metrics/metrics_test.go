package metrics

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestPercentilesMatchExact(t *testing.T) {
	t0 := time.Unix(0, 0)
	rec := NewRecorder(t0)
	op := rec.Op("INGESTION")
	rng := rand.New(rand.NewPCG(1, 2))
	var exact []float64
	for i := 0; i < 100000; i++ {
		d := time.Duration(rng.ExpFloat64()*5000) * time.Microsecond
		d = max(d, time.Microsecond)
		op.Record(t0, d, 10, nil)
		exact = append(exact, float64(d/time.Microsecond)/1000)
	}
	op.Record(t0, time.Second, 10, errors.New("connection refused"))
	sort.Float64s(exact)
	s := rec.Snapshots()[0]
	if s.OKOps != 100000 || s.FailOps != 1 || s.OKPoints != 1000000 || s.FailPoints != 10 || s.Errors["connection refused"] != 1 {
		t.Fatalf("counts %+v", s)
	}
	l := s.Latency()
	at := func(q float64) float64 { return exact[int(math.Ceil(q/100*float64(len(exact))))-1] }
	for _, c := range []struct {
		name    string
		got, at float64
	}{{"P10", l.P10, at(10)}, {"MEDIAN", l.Median, at(50)}, {"P90", l.P90, at(90)}, {"P99", l.P99, at(99)}, {"P999", l.P999, at(99.9)}} {
		if math.Abs(c.got-c.at) > 0.001*c.at+0.001 {
			t.Errorf("%s = %.4f ms, exact %.4f ms", c.name, c.got, c.at)
		}
	}
	if l.Min != exact[0] || l.Max != exact[len(exact)-1] {
		t.Errorf("MIN/MAX %.3f/%.3f, exact %.3f/%.3f", l.Min, l.Max, exact[0], exact[len(exact)-1])
	}
	sum := 0.0
	for _, e := range exact {
		sum += e
	}
	if math.Abs(l.Avg-sum/float64(len(exact))) > 1e-9 {
		t.Errorf("AVG %.6f, exact %.6f", l.Avg, sum/float64(len(exact)))
	}
}

func TestMergeIsExactAcrossEncoding(t *testing.T) {
	t0 := time.Unix(0, 0)
	all := NewRecorder(t0)
	a, b := NewRecorder(t0), NewRecorder(t0)
	for i := 1; i <= 2000; i++ {
		d := time.Duration(i*37%5000+1) * time.Microsecond
		at := t0.Add(time.Duration(i) * time.Millisecond)
		all.Op("Q").Record(at, d, 3, nil)
		if i%2 == 0 {
			a.Op("Q").Record(at, d, 3, nil)
		} else {
			b.Op("Q").Record(at, d, 3, nil)
		}
	}
	// Round-trip b through JSON, as a saved record would be.
	bs := b.Snapshots()
	for _, s := range bs {
		if err := s.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := json.Marshal(bs)
	var decoded []*Snapshot
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	merged := Merge(a.Snapshots(), decoded)[0]
	want := all.Snapshots()[0]
	if merged.Latency() != want.Latency() || merged.OKOps != want.OKOps || merged.OKPoints != want.OKPoints {
		t.Fatalf("merged %+v / %+v, want %+v / %+v", merged.Latency(), merged, want.Latency(), want)
	}
	for i := range want.PerSecond {
		if merged.PerSecond[i] != want.PerSecond[i] {
			t.Fatalf("per-second window %d: %d, want %d", i, merged.PerSecond[i], want.PerSecond[i])
		}
	}
}

func TestWindowThroughput(t *testing.T) {
	s := &Snapshot{OKPoints: 600, OKOps: 1, PerSecond: []int64{100, 300, 200}}
	got := s.WindowThroughput(3 * time.Second)
	if got.Min != 100 || got.Max != 300 || got.Median != 200 || got.Mean != 200 || got.Windows != 3 {
		t.Fatalf("%+v", got)
	}
	// 2.5 s: the last window is half long, so 100 points in it are 200/s.
	s = &Snapshot{OKPoints: 500, OKOps: 1, PerSecond: []int64{200, 200, 100}}
	if got := s.WindowThroughput(2500 * time.Millisecond); got.Min != 200 || got.Max != 200 {
		t.Fatalf("partial window: %+v", got)
	}
}

func TestEmptySnapshot(t *testing.T) {
	s := &Snapshot{Operation: "Q1", FailOps: 3}
	if s.Latency() != (Latency{}) || s.WindowThroughput(time.Second) != (Throughput{}) {
		t.Fatal("a snapshot without successes must summarise to zeros")
	}
}

// BenchmarkRecord measures the latency-recording hot path.
func BenchmarkRecord(b *testing.B) {
	t0 := time.Now()
	op := NewRecorder(t0).Op("INGESTION")
	d := 1234 * time.Microsecond
	b.ReportAllocs()
	for b.Loop() {
		op.Record(t0, d, 50000, nil)
	}
}

// TestRecordPartial: a bulk that stored 80 points and failed 20 is one
// failed operation, 80 written points and 20 failed points, and adds no
// latency (a failed request's time is not a result).
func TestRecordPartial(t *testing.T) {
	t0 := time.Now()
	rec := NewRecorder(t0)
	op := rec.Op("INGESTION")
	op.Record(t0, time.Millisecond, 100, nil)
	op.RecordPartial(t0.Add(1500*time.Millisecond), time.Millisecond, 80, 20, errors.New("2 of 10 documents failed"))
	s := rec.Snapshots()[0]
	if s.OKOps != 1 || s.FailOps != 1 || s.OKPoints != 180 || s.FailPoints != 20 || s.Errors["2 of 10 documents failed"] != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	if len(s.PerSecond) != 2 || s.PerSecond[0] != 100 || s.PerSecond[1] != 80 {
		t.Fatalf("per second %v", s.PerSecond)
	}
	if l := s.Latency(); l.Max != 1 {
		t.Fatalf("latency %+v: the failed bulk must not be in it", l)
	}
}

// TestRecordWaited: in a scheduled run latency includes the wait behind the
// schedule and service time does not; both survive encoding and merging.
func TestRecordWaited(t *testing.T) {
	t0 := time.Now()
	a, b := NewRecorder(t0), NewRecorder(t0)
	a.Op("Q").RecordWaited(t0, 2*time.Millisecond, 0, 1, nil)
	a.Op("Q").RecordWaited(t0, 4*time.Millisecond, 6*time.Millisecond, 1, nil)
	b.Op("Q").RecordWaited(t0, 3*time.Millisecond, 30*time.Millisecond, 1, nil)
	b.Op("Q").RecordWaited(t0, time.Second, 0, 1, errors.New("timeout"))
	var parts [][]*Snapshot
	for _, r := range []*Recorder{a, b} {
		snaps := r.Snapshots()
		for _, s := range snaps {
			if err := s.Encode(); err != nil {
				t.Fatal(err)
			}
			s.hist, s.svcHist = nil, nil // as read back from a record
		}
		parts = append(parts, snaps)
	}
	s := Merge(parts...)[0]
	l := s.Latency()
	st, ok := s.ServiceTime()
	if !ok || s.OKOps != 3 || s.FailOps != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	if l.Max != 33 || l.Min != 2 || st.Max != 4 || st.Min != 2 || st.Avg != 3 {
		t.Fatalf("latency %+v, service time %+v: latency must include the waits (10 and 33 ms), service time not", l, st)
	}
	if p, ok := s.ServicePercentile(100); !ok || p != 4 {
		t.Fatalf("service P100 %g %v", p, ok)
	}
	plain := NewRecorder(t0)
	plain.Op("Q").Record(t0, time.Millisecond, 1, nil)
	if _, ok := plain.Snapshots()[0].ServiceTime(); ok {
		t.Fatal("a run without a schedule has no separate service time")
	}
}
