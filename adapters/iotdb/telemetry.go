package iotdb

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/telemetry"
)

var (
	_ adapters.Telemetry = (*Adapter)(nil)
	_ adapters.Sizer     = (*Adapter)(nil)
)

// compaction names IoTDB's compaction tasks in its cost_task and
// data_written metrics (inner_seq_compaction, cross_compaction, …).
var compaction = map[string]string{"name": "*_compaction"}

// dataNodePicks are the DataNode figures a reader understands, from IoTDB
// 2.x's metrics at the IMPORTANT level (dn_metric_level): what an ingest
// or a query round made the server do. IoTDB names them per task, per
// database and region; each figure sums its samples over the labels it
// does not fix. The ones IoTDB lists only once there is something to count
// (a task's first flush or compaction, a region's first file) are 0 until
// then.
var dataNodePicks = []telemetry.Pick{
	{Name: "process CPU (cached by IoTDB)", Unit: "s", Counter: true, Metric: "process_cpu_time", Scale: 1e-9},
	{Name: "JVM heap used", Unit: "bytes", Metric: "jvm_memory_used_bytes", Labels: map[string]string{"area": "heap"}, Chart: true},
	{Name: "GC pauses", Unit: "pauses", Counter: true, Metric: "jvm_gc_pause_seconds_count"},
	{Name: "GC pause time", Unit: "s", Counter: true, Metric: "jvm_gc_pause_seconds_sum", Chart: true},
	{Name: "points written", Unit: "points", Counter: true, Metric: "quantity_total", Labels: map[string]string{"name": "points_in"}, Absent0: true, Chart: true, Written: true},
	{Name: "write requests", Unit: "requests", Counter: true, Metric: "performance_overview_seconds_count", Labels: map[string]string{"interface": "insert*"}, Absent0: true},
	{Name: "write time", Unit: "s", Counter: true, Metric: "performance_overview_seconds_sum", Labels: map[string]string{"interface": "insert*"}, Absent0: true},
	{Name: "queries", Unit: "queries", Counter: true, Metric: "performance_overview_seconds_count", Labels: map[string]string{"interface": "executeQueryStatement", "type": "QUERY"}, Absent0: true},
	{Name: "query time", Unit: "s", Counter: true, Metric: "performance_overview_seconds_sum", Labels: map[string]string{"interface": "executeQueryStatement", "type": "QUERY"}, Absent0: true},
	{Name: "flushes", Unit: "flushes", Counter: true, Metric: "cost_task_seconds_count", Labels: map[string]string{"name": "flush"}, Absent0: true, Chart: true},
	{Name: "flush time", Unit: "s", Counter: true, Metric: "cost_task_seconds_sum", Labels: map[string]string{"name": "flush"}, Absent0: true},
	{Name: "compactions", Unit: "tasks", Counter: true, Metric: "cost_task_seconds_count", Labels: compaction, Absent0: true, Chart: true},
	{Name: "compaction time", Unit: "s", Counter: true, Metric: "cost_task_seconds_sum", Labels: compaction, Absent0: true},
	{Name: "compaction bytes written", Unit: "bytes", Counter: true, Metric: "data_written_total", Labels: map[string]string{"type": "*_compaction"}},
	{Name: "compaction bytes read", Unit: "bytes", Counter: true, Metric: "data_read_total", Labels: map[string]string{"type": "*_compaction"}},
	{Name: "memtable memory", Unit: "bytes", Metric: "mem", Labels: map[string]string{"name": "database_*"}, Absent0: true, Chart: true},
	{Name: "WAL files", Unit: "files", Metric: "file_count", Labels: map[string]string{"name": "wal"}},
	{Name: "WAL size", Unit: "bytes", Metric: "file_size", Labels: map[string]string{"name": "wal"}, Chart: true},
	{Name: "sequence files", Unit: "files", Metric: "file_global_count", Labels: map[string]string{"name": "seq"}, Absent0: true},
	{Name: "sequence file size", Unit: "bytes", Metric: "file_global_size", Labels: map[string]string{"name": "seq"}, Absent0: true, Chart: true},
	{Name: "unsequence files", Unit: "files", Metric: "file_global_count", Labels: map[string]string{"name": "unseq"}, Absent0: true},
	{Name: "unsequence file size", Unit: "bytes", Metric: "file_global_size", Labels: map[string]string{"name": "unseq"}, Absent0: true, Chart: true},
}

// configNodePicks are the ConfigNode's: it plans and routes, so its JVM
// and CPU are what a run can move.
var configNodePicks = []telemetry.Pick{
	{Name: "process CPU (cached by IoTDB)", Unit: "s", Counter: true, Metric: "process_cpu_time", Scale: 1e-9},
	{Name: "JVM heap used", Unit: "bytes", Metric: "jvm_memory_used_bytes", Labels: map[string]string{"area": "heap"}},
	{Name: "GC pauses", Unit: "pauses", Counter: true, Metric: "jvm_gc_pause_seconds_count"},
	{Name: "GC pause time", Unit: "s", Counter: true, Metric: "jvm_gc_pause_seconds_sum"},
}

// metricsHint is what a note adds when a node's endpoint does not answer.
const metricsHint = "IoTDB's Prometheus reporter is off or elsewhere: scripts/iotdb turns it on; on another server set dn_metric_reporter_list=PROMETHEUS and dn_metric_level=IMPORTANT in iotdb-system.properties, or IOTDB_METRICS_PORT=0 to not ask"

// endpoints are the nodes' Prometheus endpoints: each DataNode's at its
// HOST entry and IOTDB_METRICS_PORT, then the ConfigNode's at the first
// HOST and IOTDB_CONFIGNODE_METRICS_PORT; a port of 0 asks none.
func (a *Adapter) endpoints() []telemetry.Endpoint {
	client := &http.Client{Timeout: telemetry.ReadTimeout}
	var out []telemetry.Endpoint
	add := func(role, host string, port int, picks []telemetry.Pick) {
		addr := joinHostPort(host, port)
		url := "http://" + addr + "/metrics"
		if port <= 0 || slices.ContainsFunc(out, func(e telemetry.Endpoint) bool { return e.URL == url }) {
			return
		}
		out = append(out, telemetry.Endpoint{Name: "IoTDB " + role + " " + addr, URL: url, Picks: picks, Raw: a.opts.MetricsRaw, Client: client,
			Every: time.Duration(a.opts.MetricsIntervalS * float64(time.Second))})
	}
	for i, h := range a.cfg.Hosts {
		add("DataNode", h, a.opts.MetricsPorts[min(i, len(a.opts.MetricsPorts)-1)], dataNodePicks)
	}
	if len(a.cfg.Hosts) > 0 {
		add("ConfigNode", a.cfg.Hosts[0], a.opts.ConfigNodeMetricsPort, configNodePicks)
	}
	return out
}

// TelemetrySources are the nodes' Prometheus endpoints that answer.
func (a *Adapter) TelemetrySources(ctx context.Context) ([]telemetry.Reader, []string) {
	var rs []telemetry.Reader
	var notes []string
	for _, e := range a.endpoints() {
		r, n, err := telemetry.Prometheus(ctx, e)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s is not sampled: %v (%s)", e.Name, err, metricsHint))
			continue
		}
		rs = append(rs, r)
		notes = append(notes, n...)
	}
	return rs, notes
}

// databases are the run's databases as IoTDB's metrics name them.
func (a *Adapter) databases() []string {
	if a.tm != nil {
		return a.tm.dbs
	}
	var out []string
	for _, g := range a.schema.Groups {
		out = append(out, a.root+"."+g.Name)
	}
	return out
}

// DataSize is the size of the run's TsFiles, sequence and unsequence, as
// every DataNode reports them (file_global_size, by database): IoTDB's own
// report, which counts each replica where a cluster keeps several.
func (a *Adapter) DataSize(ctx context.Context) (int64, string, error) {
	dbs := a.databases()
	var total float64
	var asked []string
	for _, e := range a.endpoints() {
		if !strings.HasPrefix(e.Name, "IoTDB DataNode") {
			continue
		}
		samples, err := telemetry.Scrape(ctx, e, "file_global_size")
		if err != nil {
			return 0, "", fmt.Errorf("the TsFiles' size: %s: %w (%s)", e.Name, err, metricsHint)
		}
		for _, s := range samples {
			if s.Name == "file_global_size" && slices.Contains(dbs, s.Labels["database"]) && (s.Labels["name"] == "seq" || s.Labels["name"] == "unseq") {
				total += s.Value
			}
		}
		asked = append(asked, strings.TrimPrefix(e.Name, "IoTDB DataNode "))
	}
	if len(asked) == 0 {
		return 0, "", fmt.Errorf("the TsFiles' size is read from the DataNodes' metrics, and IOTDB_METRICS_PORT=0 asks none")
	}
	return int64(total), "the TsFiles of the run's " + strconv.Itoa(len(dbs)) + " databases (file_global_size, sequence and unsequence) on " + strings.Join(asked, ", "), nil
}
