package elasticsearch

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/telemetry"
)

// TestTelemetryOverTimeThroughTheBinary: an ingest through the bench binary
// on Elasticsearch and on OpenSearch samples the node's _nodes/stats over
// the phase (not only at its start and end): the documents the node counts
// are the run's, its CPU agrees within 10% with its process's CPU that the
// host's sampler reads from /proc; and Rally's rows, sampled too, end the
// phase where the start and end reads of the run (Server metrics) put them.
func TestTelemetryOverTimeThroughTheBinary(t *testing.T) {
	for _, c := range bothServers {
		t.Run(c.name, func(t *testing.T) {
			host, port := server(t, c.env, c.script)
			dir := t.TempDir()
			bin := adaptertest.Binary(t, dir)
			results := filepath.Join(dir, "results")
			out, code := adaptertest.RunBench(bin, ".", nil, "-c", c.config, "--set", "HOST="+host, "--set", "PORT="+port,
				"--set", "DB_NAME=tsbench_telemetry", "--set", "RESULTS_DIR="+results, "--set", "GROUP_NUMBER=2", "--set", "DEVICE_NUMBER=10",
				"--set", "LOOP=150", "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "VERIFY=false", "--set", "SERVER_METRICS_INTERVAL=0.5")
			if code != 0 {
				t.Fatalf("bench exit %d:\n%s", code, out)
			}
			recs, damaged := record.Store{Dir: results}.List()
			if len(damaged) > 0 || len(recs) != 1 {
				t.Fatalf("%d records: %v", len(recs), damaged)
			}
			rec := recs[0]
			ph := rec.Phases[0]
			var docs int64
			for _, op := range ph.Operations {
				docs += op.OKDocs
			}
			totals := func(src telemetry.Source) (map[string]float64, map[string]float64) {
				sums, last := map[string]float64{}, map[string]float64{}
				for _, su := range src.Summaries() {
					sums[su.Name] = su.Total
				}
				for _, se := range src.Series {
					if n := len(se.Values); n > 0 {
						last[se.Name] = se.Values[n-1]
					}
				}
				return sums, last
			}
			var node, rally, proc map[string]float64
			var rallyLast map[string]float64
			counter := map[string]bool{}
			for _, src := range ph.Server {
				switch {
				case strings.HasPrefix(src.Name, c.name+" node "):
					if len(src.At) < 3 || src.Missed > 0 {
						t.Errorf("%s: %d samples, %d missed (%s) over %.1f s at 0.5 s", src.Name, len(src.At), src.Missed, src.Error, ph.Seconds)
					}
					node, _ = totals(src)
				case strings.HasPrefix(src.Name, c.name+" index and node statistics"):
					rally, rallyLast = totals(src)
					for _, se := range src.Series {
						counter[se.Name] = se.Counter
					}
				case strings.HasSuffix(src.Name, ", port "+port+")"):
					proc, _ = totals(src)
				}
			}
			if node == nil || rally == nil || proc == nil {
				t.Fatalf("sources %v: want the node's, Rally's rows and the process on port %s (notes %q)", names(ph.Server), port, rec.Notes)
			}
			hostCPU := proc["CPU user"] + proc["CPU system"]
			t.Logf("%s over %.1f s: %.0f documents indexed (the run wrote %d), CPU %.2f s as the node reports it, %.2f s from /proc; %.0f refreshes, %.0f merges, %.1f MiB written to disk",
				c.name, ph.Seconds, node["documents indexed"], docs, node["process CPU"], hostCPU, node["refreshes"], node["merges"], node["disk written"]/(1<<20))
			// The lock marker's renewals are documents of their own. The
			// node refreshes its process's CPU once a second: over a phase of
			// some seconds that is within 10%.
			if d := node["documents indexed"]; d < float64(docs) || d > float64(docs)+20 {
				t.Errorf("the node indexed %.0f documents over the phase; the run wrote %d", d, docs)
			}
			if hostCPU < 0.5 || math.Abs(node["process CPU"]-hostCPU) > 0.1*hostCPU+0.1 {
				t.Errorf("the node's CPU %.2f s and its process's %.2f s from /proc differ by more than 10%%", node["process CPU"], hostCPU)
			}
			// One phase: the run's start and end reads surround it; between
			// its end and theirs only the footprint's flush (no indexing).
			checked := 0
			for _, m := range rec.ServerMetrics {
				if m.NotReported || m.Name == "Data size on disk" || m.Name == "Bytes per point" {
					continue // the footprint's, after the phase
				}
				sampled, ok := rallyLast[m.Name]
				if counter[m.Name] {
					sampled, ok = rally[m.Name]
				}
				if !ok {
					t.Errorf("%s: in the run's start and end reads but not sampled", m.Name)
					continue
				}
				if counter[m.Name] || strings.Contains(m.Name, "indexing time") {
					checked++
					// A collection during the flush after the phase counts in
					// the run's figure only.
					if math.Abs(sampled-m.Value) > 0.05*math.Abs(m.Value)+1 {
						t.Errorf("%s: %v over the phase, %v between the run's start and end reads", m.Name, sampled, m.Value)
					}
				}
			}
			if checked < 8 {
				t.Errorf("only %d of Rally's rows compared", checked)
			}
		})
	}
}

func names(srcs []telemetry.Source) []string {
	var out []string
	for _, s := range srcs {
		out = append(out, s.Name)
	}
	return out
}
