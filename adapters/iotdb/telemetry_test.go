package iotdb

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
)

// cpuAt is a process's CPU seconds (user + system) at a moment, read from
// /proc/PID/stat by hand: apart from the procfs library tsbench uses.
type cpuAt struct {
	at  time.Time
	cpu float64
}

func readCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v %v", pid, err1, err2)
	}
	return (u + s) / 100, nil
}

// interpolate is the polled CPU at t, linear between the two polls around it.
func interpolate(polls []cpuAt, t time.Time) float64 {
	for i := 1; i < len(polls); i++ {
		if a, b := polls[i-1], polls[i]; !t.After(b.at) {
			span := b.at.Sub(a.at).Seconds()
			if span <= 0 {
				return b.cpu
			}
			return a.cpu + (b.cpu-a.cpu)*t.Sub(a.at).Seconds()/span
		}
	}
	return polls[len(polls)-1].cpu
}

// TestServerTelemetryThroughTheBinary: an ingest against the real IoTDB,
// through the bench binary, samples the DataNode (found by the port it
// listens on) and the machine; the DataNode's CPU over the phase agrees
// within 10% with /proc/PID/stat polled by this test every 20 ms (the pid
// from scripts/iotdb's own file); its memory, threads and bytes written
// are a server's.
func TestServerTelemetryThroughTheBinary(t *testing.T) {
	host, port := server(t)
	// The state folder scripts/test started the server in, or scripts/iotdb's own.
	home := os.Getenv("TSBENCH_IOTDB_HOME")
	if home == "" {
		home = filepath.Join(provision.DefaultCache(), "iotdb-run")
	}
	pidFile := filepath.Join(home, "datanode.pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		if os.Getenv("TSBENCH_IOTDB_MANAGED") != "" {
			t.Fatalf("scripts/iotdb started the server but %s cannot be read (TSBENCH_IOTDB_HOME names its state folder): %v", pidFile, err)
		}
		t.Skipf("the DataNode's pid is not in %s (a server scripts/iotdb did not start): nothing to check the samples against", pidFile)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("%s: %v", pidFile, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	polled := make(chan []cpuAt)
	go func() {
		var polls []cpuAt
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if c, err := readCPU(pid); err == nil {
				polls = append(polls, cpuAt{time.Now(), c})
			}
			select {
			case <-ctx.Done():
				polled <- polls
				return
			case <-tick.C:
			}
		}
	}()
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	results := filepath.Join(dir, "results")
	// Bounded: 6 s of ingest at most (TEST_MAX_TIME), 20 M points at most.
	out, code := adaptertest.RunBench(bin, ".", nil, "-c", "../../examples/iotdb.properties", "--set", "HOST="+host, "--set", "PORT="+port,
		"--set", "DB_NAME=tsbench_telemetry", "--set", "RESULTS_DIR="+results, "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0",
		"--set", "DEVICE_NUMBER=20", "--set", "GROUP_NUMBER=2", "--set", "LOOP=1000", "--set", "TEST_MAX_TIME=6000", "--set", "INIT_WAIT_TIME=0",
		"--set", "VERIFY=false", "--set", "SERVER_METRICS_INTERVAL=0.5")
	cancel()
	polls := <-polled
	if code != 0 {
		t.Fatalf("bench exit %d:\n%s", code, out)
	}
	recs, damaged := record.Store{Dir: results}.List()
	if len(damaged) > 0 || len(recs) != 1 {
		t.Fatalf("%d records: %v", len(recs), damaged)
	}
	ph := recs[0].Phases[0]
	want := fmt.Sprintf("process %d (java, port %s)", pid, port)
	var names []string
	for _, src := range ph.Server {
		names = append(names, src.Name)
		if src.Name != want {
			continue
		}
		if len(src.At) < 5 {
			t.Fatalf("%d samples of the DataNode over a %.1f s phase at 0.5 s", len(src.At), ph.Seconds)
		}
		from, to := src.Started.Add(time.Duration(src.At[0])*time.Millisecond), src.Started.Add(time.Duration(src.At[len(src.At)-1])*time.Millisecond)
		if len(polls) < 10 || polls[0].at.After(from) || polls[len(polls)-1].at.Before(to) {
			t.Fatalf("%d polls do not span the sampling %v .. %v", len(polls), from, to)
		}
		independent := interpolate(polls, to) - interpolate(polls, from)
		sums := map[string]float64{}
		maxes := map[string]float64{}
		for _, su := range src.Summaries() {
			sums[su.Name], maxes[su.Name] = su.Total, su.Max
		}
		sampled := sums["CPU user"] + sums["CPU system"]
		t.Logf("DataNode over the %s phase (%.1f s): CPU sampled %.2f s, polled %.2f s; %.0f MiB resident, %.0f threads, %.1f MiB written",
			ph.Name, ph.Seconds, sampled, independent, maxes["resident memory"]/(1<<20), maxes["threads"], sums["disk written"]/(1<<20))
		if independent < 0.5 || sampled < independent*0.9-0.02 || sampled > independent*1.1+0.02 {
			t.Errorf("the DataNode's CPU: %.2f s sampled, %.2f s by /proc polled every 20 ms: not within 10%%", sampled, independent)
		}
		if maxes["resident memory"] < 100<<20 || maxes["threads"] < 20 || sums["disk written"] <= 0 {
			t.Errorf("not a server's figures: %v %v", sums, maxes)
		}
		if !strings.Contains(out, "Server ("+ph.Name+")") || !regexp.MustCompile(`\| `+regexp.QuoteMeta(want)+` +\| CPU user `).MatchString(out) {
			t.Errorf("the run's output has no Server table naming %s", want)
		}
		return
	}
	t.Fatalf("no source %q among %q", want, names)
}

// stateFolder is the folder scripts/iotdb keeps the test server's state
// in: the one scripts/test started it in, or scripts/iotdb's own.
func stateFolder() string {
	if home := os.Getenv("TSBENCH_IOTDB_HOME"); home != "" {
		return home
	}
	return filepath.Join(provision.DefaultCache(), "iotdb-run")
}

// tsfileBytes is the size of the TsFiles of the databases under root
// (root.<DB_NAME>.*) in the data folder, read by walking it.
func tsfileBytes(t *testing.T, home, root string) int64 {
	t.Helper()
	var total int64
	for _, kind := range []string{"sequence", "unsequence"} {
		dbs, _ := filepath.Glob(filepath.Join(home, "data", "datanode", "data", kind, root+".*"))
		for _, db := range dbs {
			err := filepath.WalkDir(db, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tsfile") {
					return err
				}
				info, err := d.Info()
				if err == nil {
					total += info.Size()
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return total
}

// TestServerMetricsThroughTheBinary: a bounded ingest through the bench
// binary samples the DataNode's and the ConfigNode's own metrics (their
// Prometheus reporters, which scripts/iotdb turns on, on 127.0.0.1): the
// points the DataNode counts are the points the run wrote, it flushed and
// collected garbage, counters never go back; the footprint after the flush
// is the size of the run's TsFiles in the data folder. A DataNode port
// nobody answers on costs one note and the footprint, not the run.
func TestServerMetricsThroughTheBinary(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	run := func(results string, sets ...string) (*record.Record, string) {
		// Bounded: 8 s of ingest at most (TEST_MAX_TIME), 20 M points at most.
		return adaptertest.RunOne(t, bin, results, []string{"-c", "../../examples/iotdb.properties"}, append([]string{"HOST=" + host, "PORT=" + port,
			"DB_NAME=tsbench_metrics", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "DEVICE_NUMBER=20", "GROUP_NUMBER=2", "LOOP=1000",
			"TEST_MAX_TIME=8000", "INIT_WAIT_TIME=0", "VERIFY=false", "SERVER_METRICS_INTERVAL=0.5", "IOTDB_METRICS_INTERVAL=1"}, sets...)...)
	}
	rec, out := run(filepath.Join(dir, "results"))
	onDisk := tsfileBytes(t, stateFolder(), "root.tsbench_metrics")
	ph := rec.Phases[0]
	var written int64
	for _, op := range ph.Operations {
		written += op.OKPoints
	}
	dataNode := "IoTDB DataNode " + joinHostPort(host, 9092)
	found := map[string]bool{}
	for _, src := range ph.Server {
		found[src.Name] = true
		if !strings.HasPrefix(src.Name, "IoTDB ") {
			continue
		}
		// IOTDB_METRICS_INTERVAL=1: a read a second and one at each end,
		// while the host's sources are read every 0.5 s.
		if n := len(src.At); n < int(ph.Seconds)-1 || n > int(ph.Seconds)+3 || src.Missed > 0 {
			t.Errorf("%s: %d samples, %d missed (%s) over a %.1f s phase, one a second", src.Name, len(src.At), src.Missed, src.Error, ph.Seconds)
		}
		for _, se := range src.Series {
			for i, v := range se.Values {
				if se.Counter && v < 0 {
					t.Errorf("%s: counter %s went back by %v at sample %d", src.Name, se.Name, -v, i)
				}
			}
		}
		if src.Name != dataNode {
			continue
		}
		sums, maxes := map[string]float64{}, map[string]float64{}
		for _, su := range src.Summaries() {
			sums[su.Name], maxes[su.Name] = su.Total, su.Max
		}
		t.Logf("%s over %.1f s: %.0f points (the run wrote %d), %.0f write requests, %.0f flushes in %.2f s, %.0f compactions, %.0f GC pauses in %.2f s, heap at most %.0f MiB, memtables at most %.0f MiB, WAL at most %.0f MiB",
			src.Name, ph.Seconds, sums["points written"], written, sums["write requests"], sums["flushes"], sums["flush time"], sums["compactions"],
			sums["GC pauses"], sums["GC pause time"], maxes["JVM heap used"]/(1<<20), maxes["memtable memory"]/(1<<20), maxes["WAL size"]/(1<<20))
		// The lock marker's renewals are a few points of their own.
		if p := sums["points written"]; p < float64(written) || p > float64(written)+100 {
			t.Errorf("the DataNode counted %.0f points written over the phase; the run wrote %d", p, written)
		}
		if sums["write requests"] <= 0 || sums["flushes"] <= 0 || sums["flush time"] <= 0 || sums["GC pauses"] <= 0 || maxes["JVM heap used"] <= 0 || maxes["WAL files"] <= 0 {
			t.Errorf("implausible DataNode figures: %v %v", sums, maxes)
		}
	}
	for _, want := range []string{dataNode, "IoTDB ConfigNode " + joinHostPort(host, 9091)} {
		if !found[want] {
			t.Errorf("no source %q among %v; notes %q", want, found, rec.Notes)
		}
		if !strings.Contains(out, "| "+want) {
			t.Errorf("the Server table does not show %s", want)
		}
	}
	fp := rec.Footprint
	if fp == nil {
		t.Fatalf("no footprint; notes %q", rec.Notes)
	}
	t.Logf("footprint %d bytes for %d points (%.3f bytes a point), TsFiles in the data folder %d bytes: %s", fp.Bytes, fp.Points, fp.BytesPerPoint(), onDisk, fp.Where)
	// A compaction after the run may rewrite the files: a few per cent.
	if onDisk <= 0 || float64(fp.Bytes) < 0.95*float64(onDisk) || float64(fp.Bytes) > 1.05*float64(onDisk) {
		t.Errorf("footprint %d bytes, TsFiles of the run in the data folder %d bytes", fp.Bytes, onDisk)
	}

	// A port nobody answers on: one note, no source, no footprint, exit 0;
	// the ConfigNode's port 0 asks nothing of it.
	rec, _ = run(filepath.Join(dir, "dead"), "IOTDB_METRICS_PORT=1", "IOTDB_CONFIGNODE_METRICS_PORT=0", "LOOP=50")
	var notes []string
	for _, n := range rec.Notes {
		if strings.Contains(n, "IoTDB DataNode "+joinHostPort(host, 1)+" is not sampled") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 1 || rec.Footprint != nil {
		t.Errorf("a dead DataNode endpoint: %d notes naming it (want 1), footprint %v (want none); notes %q", len(notes), rec.Footprint, rec.Notes)
	}
	for _, src := range rec.Phases[0].Server {
		if strings.HasPrefix(src.Name, "IoTDB ") {
			t.Errorf("a dead endpoint, or one asked for none, became a source: %s", src.Name)
		}
	}
	for _, n := range rec.Notes {
		if strings.Contains(n, "ConfigNode") {
			t.Errorf("IOTDB_CONFIGNODE_METRICS_PORT=0 asks nothing, yet: %s", n)
		}
	}

	// IOTDB_METRICS_RAW keeps every series the endpoint lists.
	rec, _ = run(filepath.Join(dir, "raw"), "IOTDB_METRICS_RAW=true", "LOOP=20")
	for _, src := range rec.Phases[0].Server {
		if src.Name != dataNode {
			continue
		}
		raw := 0
		for _, se := range src.Series {
			if strings.HasPrefix(se.Name, "process_cpu_time{") || strings.HasPrefix(se.Name, "jvm_gc_pause_seconds_count{") {
				raw++
			}
		}
		t.Logf("IOTDB_METRICS_RAW=true: %d series of the DataNode", len(src.Series))
		if len(src.Series) < 1000 || raw < 2 {
			t.Errorf("IOTDB_METRICS_RAW=true: %d series, %d of them process_cpu_time and GC counts; want the endpoint's every series", len(src.Series), raw)
		}
		return
	}
	t.Errorf("IOTDB_METRICS_RAW=true: no %s source", dataNode)
}

// TestStorageSettingComparedThroughTheBinary: two IoTDB configurations
// that differ only in how IoTDB stores the series (the defaults, GORILLA
// and TS_2DIFF encodings compressed with LZ4, against PLAIN encodings
// stored UNCOMPRESSED) compare through the binary: compare's server rows
// show the bytes per point apart, the HTML page has them, and
// --gate-server "Bytes per point" fails the larger one.
func TestStorageSettingComparedThroughTheBinary(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	results := filepath.Join(dir, "results")
	// Bounded: 2 M points a run.
	base := []string{"-c", "../../examples/iotdb.properties", "--set", "HOST=" + host, "--set", "PORT=" + port, "--set", "DB_NAME=tsbench_storage",
		"--set", "RESULTS_DIR=" + results, "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "--set", "DEVICE_NUMBER=10", "--set", "GROUP_NUMBER=2",
		"--set", "SENSOR_NUMBER=20", "--set", "LOOP=100", "--set", "INIT_WAIT_TIME=0", "--set", "VERIFY=false"}
	plain := []string{"--set", "COMPRESSOR=UNCOMPRESSED"}
	for _, typ := range []string{"INT32", "INT64", "FLOAT", "DOUBLE", "BOOLEAN", "TEXT"} {
		plain = append(plain, "--set", "ENCODING_"+typ+"=PLAIN")
	}
	for _, run := range []struct {
		label string
		sets  []string
	}{{"compressed", nil}, {"plain", plain}} {
		if out, code := adaptertest.RunBench(bin, ".", nil, append(append(slices.Clone(base), run.sets...), "--label", run.label)...); code != 0 {
			t.Fatalf("bench run %s: exit %d\n%s", run.label, code, out)
		}
	}
	out, code := adaptertest.RunBench(bin, ".", nil, "compare", "--results", results, "compressed", "plain", "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	var cmp struct {
		Rows []struct {
			Metric, Phase, Operation string
			Baseline                 struct{ Median float64 }
			Contenders               []struct {
				Median float64
				Ratio  *float64
			}
		}
	}
	// The JSON, then the warnings on standard error.
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&cmp); err != nil {
		t.Fatalf("compare's JSON: %v\n%s", err, out)
	}
	found := false
	for _, r := range cmp.Rows {
		if r.Metric == "Bytes per point" && r.Phase == "server" {
			found = true
			t.Logf("bytes per point: %.3f compressed, %.3f plain and uncompressed", r.Baseline.Median, r.Contenders[0].Median)
			if r.Contenders[0].Ratio == nil || *r.Contenders[0].Ratio < 1.5 {
				t.Errorf("bytes per point %.3f against %.3f: want PLAIN and UNCOMPRESSED larger by half or more", r.Contenders[0].Median, r.Baseline.Median)
			}
		}
	}
	if !found {
		t.Fatalf("no Bytes per point row in compare's JSON:\n%s", out)
	}
	page := filepath.Join(dir, "compare.html")
	pngs := filepath.Join(dir, "png")
	if out, code := adaptertest.RunBench(bin, ".", nil, "compare", "--results", results, "compressed", "plain", "--format", "html", "-o", page, "--png", pngs); code != 0 {
		t.Fatalf("compare --format html: exit %d\n%s", code, out)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "Bytes per point") || !strings.Contains(string(html), "Server telemetry") {
		t.Errorf("the HTML page lacks the bytes per point or the telemetry table (%v)", err)
	}
	for _, png := range []string{"server-metrics.png", "server-sequence-file-size.png", "server-flushes.png"} {
		if _, err := os.Stat(filepath.Join(pngs, png)); err != nil {
			t.Errorf("--png wrote no %s: %v", png, err)
		}
	}
	// Bytes per point is deterministic: gated by default, as when named.
	for _, extra := range [][]string{nil, {"--gate-server", "Bytes per point"}} {
		out, code = adaptertest.RunBench(bin, ".", nil, append([]string{"compare", "--results", results, "compressed", "plain", "--fail-above", "10", "--untested", "ratio"}, extra...)...)
		if code != 1 || !strings.Contains(out, "Gate failed: regression in ") || !strings.Contains(out, "plain: Bytes per point is worse: ") {
			t.Errorf("compare %v: exit %d, want 1 naming bytes per point:\n%s", extra, code, out)
		}
	}
}
