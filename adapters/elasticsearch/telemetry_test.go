package elasticsearch

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/telemetry"
)

// TestTelemetryOverTimeThroughTheBinary: an ingest through the bench binary
// on Elasticsearch and on OpenSearch samples the node's _nodes/stats over
// the phase (not only at its start and end): the documents the node counts
// are the run's, its CPU agrees within 10% with its process's CPU that the
// host's sampler reads from /proc, and its GC and indexing over the phase
// are what Rally's rows, read at the run's start and end, say.
func TestTelemetryOverTimeThroughTheBinary(t *testing.T) {
	for _, c := range bothServers {
		t.Run(c.name, func(t *testing.T) {
			host, port := server(t, c.env, c.script)
			bin := adaptertest.Binary(t, t.TempDir())
			rec, _ := adaptertest.RunOne(t, bin, filepath.Join(t.TempDir(), "results"), []string{"-c", c.config}, "HOST="+host, "PORT="+port, "DB_NAME=tsbench_telemetry", "GROUP_NUMBER=2", "DEVICE_NUMBER=10",
				"LOOP=150", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "VERIFY=false", "SERVER_METRICS_INTERVAL=0.5")
			ph := rec.Phases[0]
			var docs int64
			for _, op := range ph.Operations {
				docs += op.OKDocs
			}
			totals := func(src telemetry.Source) map[string]float64 {
				sums := map[string]float64{}
				for _, su := range src.Summaries() {
					sums[su.Name] = su.Total
				}
				return sums
			}
			var node, proc map[string]float64
			for _, src := range ph.Server {
				switch {
				case strings.HasPrefix(src.Name, c.name+" node "):
					if len(src.At) < 3 || src.Missed > 0 {
						t.Errorf("%s: %d samples, %d missed (%s) over %.1f s at 0.5 s", src.Name, len(src.At), src.Missed, src.Error, ph.Seconds)
					}
					node = totals(src)
				case strings.HasSuffix(src.Name, ", port "+port+")"):
					proc = totals(src)
				}
			}
			if node == nil || proc == nil {
				t.Fatalf("sources %v: want the node's and the process on port %s (notes %q)", names(ph.Server), port, rec.Notes)
			}
			hostCPU := proc["CPU user"] + proc["CPU system"]
			t.Logf("%s over %.1f s: %.0f documents indexed (the run wrote %d), CPU %.2f s as the node reports it, %.2f s from /proc; %.0f refreshes, %.0f merges, %.1f MiB written to disk",
				c.name, ph.Seconds, node["documents indexed"], docs, node["process CPU"], hostCPU, node["refreshes"], node["merges"], node["disk written"]/(1<<20))
			// The lock marker's renewals are documents of their own. The node
			// refreshes its process's figures once a second
			// (monitor.process.refresh_interval): each end of the phase may
			// read them up to a second old, on this machine's two CPUs up to
			// 2 CPU-seconds between them.
			if d := node["documents indexed"]; d < float64(docs) || d > float64(docs)+20 {
				t.Errorf("the node indexed %.0f documents over the phase; the run wrote %d", d, docs)
			}
			if hostCPU < 0.5 || math.Abs(node["process CPU"]-hostCPU) > 0.1*hostCPU+2 {
				t.Errorf("the node's CPU %.2f s and its process's %.2f s from /proc differ by more than 10%% and a second of two CPUs", node["process CPU"], hostCPU)
			}
			// One phase: the run's start and end reads (Rally's rows)
			// surround it, and between its end and theirs there is only the
			// footprint's flush, no indexing. The node's counters over the
			// phase are the same figures.
			rally := map[string]float64{}
			for _, m := range rec.ServerMetrics {
				if !m.NotReported {
					rally[m.Name] = m.Value
				}
			}
			for _, c := range []struct {
				node, rally  string
				scale, slack float64 // slack: a collection during the flush counts in the run's figure only
			}{
				{"young GC", "Total Young Gen GC count", 1, 1},
				{"young GC time", "Total Young Gen GC time", 1, 0.1},
				{"old GC", "Total Old Gen GC count", 1, 1},
				{"indexing time", "Cumulative indexing time of primary shards", 60, 0.1},
			} {
				r, ok := rally[c.rally]
				if !ok {
					t.Errorf("Rally's %s is not in the record", c.rally)
					continue
				}
				r *= c.scale
				t.Logf("%s over the phase %.3f; %s (start and end) %.3f", c.node, node[c.node], c.rally, r)
				if math.Abs(node[c.node]-r) > 0.05*r+c.slack {
					t.Errorf("%s over the phase %.3f, but %s between the run's start and end reads %.3f", c.node, node[c.node], c.rally, r)
				}
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
