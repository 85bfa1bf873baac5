package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/telemetry"
)

// instance makes the record of instance i of n: one phase that began
// offset after t0, with the given INGESTION latencies (ms), one operation
// a second.
func instance(t *testing.T, i, n int, t0 time.Time, offset time.Duration, lat []int, loop string) *Record {
	t.Helper()
	start := t0.Add(offset)
	rec := metrics.NewRecorder(start)
	op := rec.Op("INGESTION")
	for k, ms := range lat {
		op.Record(start.Add(time.Duration(k)*time.Second), time.Duration(ms)*time.Millisecond, 100, nil)
	}
	snaps := rec.Snapshots()
	for _, s := range snaps {
		if err := s.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	cfg := map[string]string{"BENCHMARK_INDEX": fmt.Sprint(i), "LOOP": loop, "HOST": fmt.Sprintf("h%d", i)}
	keys := []string{"BENCHMARK_INDEX", "LOOP"}
	return &Record{ID: fmt.Sprintf("run-%d", i), Label: "dist", Status: StatusComplete, Config: cfg, WorkloadKeys: keys,
		Fingerprint: config.Fingerprint(cfg, keys), StartedAt: start, FinishedAt: start.Add(time.Duration(len(lat)) * time.Second),
		Tool: Tool{Version: "v1"}, Target: Target{DB: "SQLite", Version: "3"}, Host: Host{Hostname: fmt.Sprintf("node%d", i), CPUs: 2},
		Instance: &Instance{Index: i, Count: n},
		Verify:   &Verify{Devices: 2, Expected: int64(100 * len(lat)), Found: int64(100 * len(lat))},
		Phases:   []Phase{{Name: "ingest", Clients: 2, StartedAt: start, Seconds: float64(len(lat)), Operations: snaps}}}
}

func TestMergeIsExact(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	lats := [][]int{{1, 2, 3, 4}, {10, 20, 30, 40}, {100, 200, 300, 400}}
	var recs []*Record
	for i, l := range lats {
		// Instance 1 began 2 s after the others.
		off := time.Duration(0)
		if i == 1 {
			off = 2 * time.Second
		}
		recs = append(recs, instance(t, i, 3, t0, off, l, "10"))
	}
	m, err := Merge([]*Record{recs[2], recs[0], recs[1]}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusComplete || m.Label != "dist-merged" || m.Instance.Count != 3 || strings.Join(m.Instance.Merged, ",") != "run-0,run-1,run-2" {
		t.Fatalf("merged: %s %q %+v", m.Status, m.Label, m.Instance)
	}
	p := m.Phases[0]
	o := p.Operations[0]
	if o.OKOps != 12 || o.OKPoints != 1200 || o.Count() != 12 || p.Clients != 6 {
		t.Fatalf("merged %d ops, %d points, histogram %d, %d clients", o.OKOps, o.OKPoints, o.Count(), p.Clients)
	}
	// The percentiles are those of all twelve latencies, not an average of
	// each instance's: a recorder that saw them all agrees.
	all := metrics.NewRecorder(t0)
	a := all.Op("INGESTION")
	for _, l := range lats {
		for _, ms := range l {
			a.Record(t0, time.Duration(ms)*time.Millisecond, 100, nil)
		}
	}
	union := all.Snapshots()[0]
	for _, q := range []float64{0, 25, 50, 75, 90, 99, 100} {
		if got, want := o.Percentile(q), union.Percentile(q); got != want {
			t.Errorf("P%g: merged %g ms, all latencies %g ms", q, got, want)
		}
	}
	// Windows on wall-clock time: instance 1's four windows are seconds 2-5.
	if want := []int64{200, 200, 300, 300, 100, 100}; fmt.Sprint(o.PerSecond) != fmt.Sprint(want) {
		t.Errorf("per-second points %v, want %v", o.PerSecond, want)
	}
	if p.Seconds != 6 || !p.StartedAt.Equal(t0) {
		t.Errorf("merged phase %g s from %s", p.Seconds, p.StartedAt)
	}
	if m.Verify.Expected != 1200 || !m.Verify.OK() || m.Host.CPUs != 6 || m.Config["BENCHMARK_INDEX"] != "0..2" {
		t.Errorf("verify %+v, host %+v, index %q", m.Verify, m.Host, m.Config["BENCHMARK_INDEX"])
	}
	// Two merges of the same distributed workload compare; an instance does not.
	m2, err := Merge(recs, MergeOptions{Label: "again"})
	if err != nil || m2.Fingerprint != m.Fingerprint || m.Fingerprint == recs[0].Fingerprint || m2.Label != "again" {
		t.Errorf("fingerprints: merged %s and %s, instance %s (%v)", m.Fingerprint, m2.Fingerprint, recs[0].Fingerprint, err)
	}
}

func TestMergeRefuses(t *testing.T) {
	t0 := time.Now()
	mk := func(i int) *Record { return instance(t, i, 3, t0, 0, []int{1, 2}, "10") }
	single := mk(0)
	single.Instance = nil
	other := mk(2)
	other.Config["LOOP"] = "11"
	other.Fingerprint = config.Fingerprint(other.Config, other.WorkloadKeys)
	short := mk(2)
	short.Phases = nil
	twin := mk(1) // another run that says it is instance 1
	twin.ID += "-twin"
	merged, err := Merge([]*Record{mk(0), mk(1), mk(2)}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		recs []*Record
		want string
	}{
		{[]*Record{single, mk(1), mk(2)}, "is not an instance of a distributed run"},
		{[]*Record{mk(0), mk(1), twin}, "are both instance 1"},
		{[]*Record{mk(0), mk(2)}, "instance 1 of 3 is missing"},
		{[]*Record{mk(0), mk(1), other}, `LOOP: "10" vs "11"`},
		{[]*Record{merged, mk(1)}, "is already a merge"},
		{[]*Record{mk(0), mk(1), short}, "an instance stopped early"},
		{[]*Record{mk(0), instance(t, 1, 4, t0, 0, []int{1}, "10")}, "are not one distributed run"},
	} {
		_, err := Merge(tc.recs, MergeOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
	// One run named twice (its id and its label) counts once.
	if m, err := Merge([]*Record{mk(0), mk(1), mk(1), mk(2)}, MergeOptions{}); err != nil || len(m.Instance.Merged) != 3 {
		t.Errorf("a run given twice: %v", err)
	}
	if _, err := Merge([]*Record{mk(0), mk(1), mk(2)}, MergeOptions{Existing: []*Record{mk(0), merged}}); err == nil || !strings.Contains(err.Error(), "already merged as run "+merged.ID) {
		t.Errorf("the same runs merged twice: %v", err)
	}
	m, err := Merge([]*Record{mk(0), mk(2)}, MergeOptions{Force: true})
	if err != nil || m.Status != StatusIncomplete || fmt.Sprint(m.Instance.Missing) != "[1]" || !strings.Contains(m.Error, "instance 1 of 3 is missing") {
		t.Errorf("--force with instance 1 missing: %v %+v", err, m)
	}
}

// TestMergeKeepsWarmups: the instances' warm-ups merge apart from their
// measured operations, the longest warm-up's time kept; a phase's failures
// include its warm-up's.
func TestMergeKeepsWarmups(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := instance(t, 0, 2, t0, 0, []int{1, 2}, "10")
	b := instance(t, 1, 2, t0, 0, []int{3, 4}, "10")
	a.Phases[0].Warmup = &Warmup{Seconds: 2, Operations: instance(t, 0, 2, t0, 0, []int{50, 60, 70}, "10").Phases[0].Operations}
	b.Phases[0].Warmup = &Warmup{Seconds: 3, Operations: instance(t, 1, 2, t0, 0, []int{80}, "10").Phases[0].Operations}
	m, err := Merge([]*Record{a, b}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Phases[0]
	if p.Operations[0].OKOps != 4 || p.Warmup == nil || p.Warmup.Seconds != 3 || p.Warmup.Operations[0].OKOps != 4 || p.Operations[0].MaxMicros != 4000 {
		t.Fatalf("merged phase: %d measured (max %d µs), warm-up %+v", p.Operations[0].OKOps, p.Operations[0].MaxMicros, p.Warmup)
	}
	if n := len(p.AllOperations()); n != 2 {
		t.Fatalf("AllOperations: %d, want the measured and the warm-up's", n)
	}
}

// TestMergeKeepsServerSources: each instance's telemetry stays its own,
// named by its instance.
func TestMergeKeepsServerSources(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := instance(t, 0, 2, t0, 0, []int{1}, "10")
	b := instance(t, 1, 2, t0, 0, []int{2}, "10")
	src := telemetry.Source{Name: "machine", At: []int64{0, 1000}, Series: []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: []float64{0, 1.5}}}}
	a.Phases[0].Server = []telemetry.Source{src}
	src.Series = []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: []float64{0, 2.5}}}
	b.Phases[0].Server = []telemetry.Source{src}
	m, err := Merge([]*Record{a, b}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Phases[0].Server
	if len(got) != 2 || got[0].Name != "instance 0: machine" || got[1].Name != "instance 1: machine" || got[1].Series[0].Values[1] != 2.5 {
		t.Fatalf("merged sources %+v", got)
	}
	if a.Phases[0].Server[0].Name != "machine" {
		t.Error("the merge renamed an instance's own source")
	}
}

// TestWarmupFailuresCount: a failure in a warm-up fails the run as any
// other does; the warm-up is kept out of the figures, not out of the outcome.
func TestWarmupFailuresCount(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := instance(t, 0, 1, t0, 0, []int{1, 2}, "10")
	rec := metrics.NewRecorder(t0)
	rec.Op("INGESTION").Record(t0, time.Millisecond, 100, fmt.Errorf("disk full"))
	r.Phases[0].Warmup = &Warmup{Seconds: 1, Operations: rec.Snapshots()}
	if why := r.Failure(0); !strings.Contains(why, "1 of 3 operations failed") || !strings.Contains(why, "disk full") {
		t.Fatalf("failure: %q", why)
	}
	if why := r.Failure(50); why != "" {
		t.Fatalf("within MAX_ERROR_RATE=50: %q", why)
	}
}
