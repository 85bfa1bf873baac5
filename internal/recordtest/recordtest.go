// Package recordtest makes run records with known numbers for the tests of
// the packages that read records (record, compare, report).
package recordtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/telemetry"
)

// Sample is a small run with known numbers: 4 INGESTION operations of 1..4
// ms and one failed PRECISE_POINT, two steps and a verify that found one
// device short.
func Sample() *record.Record {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rec := metrics.NewRecorder(t0)
	ing := rec.Op(config.Ingestion)
	for i := 1; i <= 4; i++ {
		ing.Record(t0.Add(time.Duration(i)*300*time.Millisecond), time.Duration(i)*time.Millisecond, 500, nil)
	}
	q := rec.Op("PRECISE_POINT")
	q.Record(t0, time.Millisecond, 0, os.ErrDeadlineExceeded)
	q.Record(t0, 2*time.Millisecond, 6, nil)
	return &record.Record{
		SchemaVersion: record.SchemaVersion, ID: "20261130T090000Z-abc123", Label: "master-a2b704d", Status: record.StatusComplete,
		Target: record.Target{DB: "SQLite", Version: "SQLite 3.54.1"}, StartedAt: t0, FinishedAt: t0.Add(2 * time.Second),
		Config: map[string]string{"LOOP": "4", "PASSWORD": config.Mask, "HOST": "127.0.0.1"},
		Steps:  []record.Step{{Name: "cleanup", Seconds: 0.5}, {Name: "create schema", Skipped: true, Detail: "CREATE_SCHEMA=false"}},
		Phases: []record.Phase{{Name: "main", Clients: 2, StartedAt: t0, Seconds: 1.5, Operations: rec.Snapshots()}},
		Verify: &record.Verify{Devices: 2, Expected: 2000, Found: 1990, Mismatches: []record.Mismatch{{Device: "d_1", Expected: 1000, Found: 990}}},
	}
}

// Synthetic makes a run whose operations have latencies around the given
// means (ms) with 2% noise per run and per operation, drawn from seed; an
// operation whose mean is 0 fails every time.
func Synthetic(label string, seed uint64, means map[string]float64, order []string) *record.Record {
	rng := rand.New(rand.NewPCG(seed, 99))
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rec := metrics.NewRecorder(t0)
	runShift := 1 + 0.02*rng.NormFloat64() // run-to-run noise
	for _, op := range order {
		o := rec.Op(op)
		m := means[op]
		for i := 0; i < 50; i++ {
			if m == 0 {
				o.Record(t0, time.Millisecond, 0, fmt.Errorf("no data"))
				continue
			}
			d := time.Duration(m * runShift * (1 + 0.01*rng.NormFloat64()) * float64(time.Millisecond))
			o.Record(t0.Add(time.Duration(i)*20*time.Millisecond), d, 100, nil)
		}
	}
	return &record.Record{SchemaVersion: record.SchemaVersion, ID: fmt.Sprintf("20261130T09%04dZ-%06x", seed%10000, seed), Label: label, Status: record.StatusComplete,
		Fingerprint: "f00d", Target: record.Target{DB: "SQLite"},
		Phases: []record.Phase{{Name: "main", Seconds: 1, Operations: rec.Snapshots()}}}
}

// Runs makes n synthetic runs of one side: the runs of seed*1000+i.
func Runs(label string, seed uint64, n int, means map[string]float64, order []string) []*record.Record {
	var out []*record.Record
	for i := 0; i < n; i++ {
		out = append(out, Synthetic(label, seed*1000+uint64(i), means, order))
	}
	return out
}

// ServerMetricRuns are two sides of three runs whose servers reported
// figures: the baseline's indexing time 2, 3 and 4 min and a segment count
// of 10, the contender's indexing time 6 min and no segment count.
func ServerMetricRuns() (base, contender []*record.Record) {
	order := []string{config.Ingestion}
	base = Runs("base", 1, 3, map[string]float64{config.Ingestion: 5}, order)
	contender = Runs("cont", 2, 3, map[string]float64{config.Ingestion: 5}, order)
	for i, r := range base {
		r.ServerMetrics = []record.ServerMetric{{Name: "Cumulative indexing time of primary shards", Value: float64(2 + i), Unit: "min"}, {Name: "Segment count", Value: 10}}
	}
	for _, r := range contender {
		r.ServerMetrics = []record.ServerMetric{{Name: "Cumulative indexing time of primary shards", Value: 6, Unit: "min"}}
	}
	return base, contender
}

// TelemetryRuns are two sides of three runs with server telemetry over
// their one phase: the machine, and the server's process (another pid in
// every run) whose CPU adds up to 2+i seconds in the baseline's run i and
// 6 in the contender's, with a resident memory of 100 MiB then 300 MiB (a
// mean of 200) in the baseline and 200 MiB in the contender; only the
// baseline's process reports threads.
func TelemetryRuns() (base, contender []*record.Record) {
	order := []string{config.Ingestion}
	base = Runs("base", 1, 3, map[string]float64{config.Ingestion: 5}, order)
	contender = Runs("cont", 2, 3, map[string]float64{config.Ingestion: 5}, order)
	for i, r := range append(base, contender...) {
		cpu, mem := []float64{0, 1, float64(1 + i)}, []float64{100 << 20, 300 << 20, 200 << 20}
		series := []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: cpu}, {Name: "resident memory", Unit: "bytes", Values: mem}}
		// The contender's server listens on a port of its own, as
		// bench routine --keep-running starts it: one kind of source still.
		port := 6767
		if i < 3 {
			port = 6667
			series = append(series, telemetry.Series{Name: "threads", Unit: "threads", Values: []float64{40, 40, 40}})
		} else {
			cpu[2], mem[0], mem[1] = 5, 200<<20, 200<<20
		}
		r.Phases[0].Server = []telemetry.Source{
			{Name: "machine", At: []int64{0, 1000, 2000}, Series: []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: []float64{0, 1, 1}}}},
			{Name: fmt.Sprintf("process %d (java, port %d)", 1000+i, port), At: []int64{0, 1000, 2000}, Series: series},
		}
	}
	return base, contender
}
