package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/export"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// nullWeeks saves runs of the weekly suite's workload on the Null target
// (an ingest and two query rounds of eleven families), a label each, and
// returns their records.
func nullWeeks(t *testing.T, dir string, labels ...string) []*record.Record {
	t.Helper()
	for _, l := range labels {
		args := []string{"run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "LOOP=30",
			"--set", "RESULTS_DIR=" + dir, "--set", "NULL_DELAY_MS=1", "--label", l}
		if r := bench(t, args...); r.code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	return records(t, dir)
}

// valuesByField are a record's values as compare reads them, by phase,
// operation and the metric's field name.
func valuesByField(rec *record.Record) map[[3]string]float64 {
	vals, _ := compare.RunValues(rec)
	out := map[[3]string]float64{}
	for k, v := range vals {
		out[[3]string{k.Phase, k.Op, export.Field(k.Metric)}] = v
	}
	return out
}

// TestExportFormats: CSV and OpenMetrics of real runs through the binary,
// read back by a CSV reader and by the Prometheus project's OpenMetrics
// parser, hold every value compare reads from the records, exactly.
func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	recs := nullWeeks(t, dir, "master-w01", "master-w02")
	want := 0
	byID := map[string]*record.Record{}
	for _, r := range recs {
		vals, _ := compare.RunValues(r)
		want += len(vals)
		byID[r.ID] = r
	}
	out := filepath.Join(dir, "runs.csv")
	r := bench(t, "export", "master-*", "--results", dir, "--to", "csv", "-o", out)
	if r.code != 0 {
		t.Fatalf("export csv: exit %d\n%s", r.code, r.stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != want+1 || strings.Join(rows[0], ",") != strings.Join(export.CSVHeader, ",") {
		t.Fatalf("%d rows (%v), want a header and %d values", len(rows), err, want)
	}
	for _, row := range rows[1:] {
		rec := byID[row[0]]
		round, _ := strconv.Atoi(row[9])
		v, err := strconv.ParseFloat(row[13], 64)
		vals, _ := compare.RunValues(rec)
		k := compare.Key{Metric: row[11], Phase: row[8], Round: round, Op: row[10]}
		if err != nil || rec == nil || vals[k] != v || row[1] != rec.Label || row[3] != "Null" {
			t.Fatalf("row %v: the record says %v (%v)", row, vals[k], err)
		}
	}

	r = bench(t, "export", "master-w01", "master-w02", "--results", dir, "--to", "openmetrics")
	if r.code != 0 {
		t.Fatalf("export openmetrics: exit %d\n%s", r.code, r.stderr)
	}
	dec := expfmt.NewDecoder(strings.NewReader(r.stdout), expfmt.NewFormat(expfmt.TypeOpenMetrics))
	samples := 0
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the OpenMetrics parser refuses the export: %v\n%s", err, r.stdout[:min(len(r.stdout), 2000)])
		}
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, p := range m.Label {
				l[p.GetName()] = p.GetValue()
			}
			rec := byID[l["run"]]
			var metric compare.Metric
			for _, cm := range compare.Metrics {
				if export.FamilyName(cm) == mf.GetName() {
					metric = cm
				}
			}
			round, _ := strconv.Atoi(l["round"])
			vals, _ := compare.RunValues(rec)
			want, ok := vals[compare.Key{Metric: metric.Name, Phase: l["phase"], Round: round, Op: l["operation"]}]
			if !ok || m.GetGauge().GetValue() != want || m.GetTimestampMs() != rec.StartedAt.UnixMilli() {
				t.Fatalf("%s%v = %v at %d: the record says %v at %d", mf.GetName(), l, m.GetGauge().GetValue(), m.GetTimestampMs(), want, rec.StartedAt.UnixMilli())
			}
			samples++
		}
	}
	if samples != want {
		t.Errorf("%d samples, want %d", samples, want)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "parquet"}, `--to "parquet" is not a format or a store's URL (valid: csv, openmetrics, iotdb://`},
		{[]string{"--to", "iotdb://root:hunter2@127.0.0.1:6667/tsbench"}, `--to iotdb://root:xxxxx@127.0.0.1:6667/tsbench: the path "tsbench" is not a series path under root`},
		{[]string{"--to", "ftp://u:hunter2@127.0.0.1/x"}, `no store speaks "ftp"`},
		{[]string{"--to", "iotdb://127.0.0.1:6667", "-o", "x.csv"}, "-o writes a file"},
		{[]string{"--to", "csv", "nomatch-*"}, `no saved run in ` + dir + ` has a label that matches "nomatch-*"`},
	} {
		args := append([]string{"export", "master-w01", "--results", dir}, c.args...)
		r := bench(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "hunter2") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestExportToIoTDB: runs exported into the test suite's IoTDB through the
// binary are there, queried back by the IoTDB client: every value on its
// device at its run's start, the run's id and label beside them; a second
// export of the same runs writes the same points again.
func TestExportToIoTDB(t *testing.T) {
	host, port := adaptertest.Server(t, "TSBENCH_IOTDB", "scripts/iotdb start", "./cmd/bench")
	dir := t.TempDir()
	recs := nullWeeks(t, dir, "export-a", "export-b")
	path := fmt.Sprintf("root.tsbench_export_%d", time.Now().UnixNano()%1e9)
	s := client.NewSession(&client.Config{Host: host, Port: port, UserName: "root", Password: "root"})
	if err := s.Open(false, 10000); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer s.ExecuteNonQueryStatement("DROP DATABASE " + path)
	to := fmt.Sprintf("iotdb://root:root@%s:%s/%s", host, port, path)
	for range 2 {
		r := bench(t, "export", "export-*", "--results", dir, "--to", to)
		if r.code != 0 || !strings.Contains(r.stdout, "exported 2 runs to iotdb://root:xxxxx@") || strings.Contains(r.stdout+r.stderr, "root:root@") {
			t.Fatalf("export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	timeout := int64(30000)
	checked := 0
	for _, rec := range recs {
		want := valuesByField(rec)
		devices := map[string][2]string{}
		for k := range want {
			devices[export.IoTDBDevice(path, rec.Target.DB, k[0], k[1])] = [2]string{k[0], k[1]}
		}
		for dev, po := range devices {
			ds, err := s.ExecuteQueryStatement(fmt.Sprintf("SELECT * FROM %s WHERE time = %d", dev, rec.StartedAt.UnixMilli()), &timeout)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := ds.Next()
			if !ok || err != nil {
				t.Fatalf("%s holds no point at %d (%v)", dev, rec.StartedAt.UnixMilli(), err)
			}
			for _, col := range ds.GetColumnNames() {
				field := strings.TrimPrefix(col, dev+".")
				switch field {
				case "Time":
				case "run_id", "label":
					got, _ := ds.GetString(col)
					if field == "run_id" && got != rec.ID || field == "label" && got != rec.Label {
						t.Errorf("%s %s = %q", dev, field, got)
					}
				case "version", "fingerprint", "status":
				default:
					if null, _ := ds.IsNull(col); null {
						continue
					}
					got, err := ds.GetDouble(col)
					w, ok := want[[3]string{po[0], po[1], field}]
					if err != nil || !ok || got != w {
						t.Errorf("%s.%s = %v (%v), the record says %v (%v)", dev, field, got, err, w, ok)
					}
					checked++
				}
			}
			if more, _ := ds.Next(); more {
				t.Errorf("%s has two points at one time", dev)
			}
			ds.Close()
		}
	}
	total := 0
	for _, rec := range recs {
		total += len(valuesByField(rec))
	}
	if checked != total {
		t.Errorf("%d values read back, the records have %d", checked, total)
	}
	ds, err := s.ExecuteQueryStatement("SELECT count(run_id) FROM "+path+".** ALIGN BY DEVICE", &timeout)
	if err != nil {
		t.Fatal(err)
	}
	devs := 0
	for ok, _ := ds.Next(); ok; ok, _ = ds.Next() {
		n, _ := ds.GetLong("count(run_id)")
		if n != 2 {
			dev, _ := ds.GetString("Device")
			t.Errorf("%s has %d points after two exports of two runs, want 2", dev, n)
		}
		devs++
	}
	ds.Close()
	if devs != 23 {
		t.Errorf("%d devices, want 23 (the ingest and eleven families in two rounds)", devs)
	}

	// RESULTS_STORE exports a run as it is saved.
	r := bench(t, "run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "LOOP=30",
		"--set", "RESULTS_DIR="+dir, "--set", "RESULTS_STORE="+to, "--label", "export-c")
	if r.code != 0 || !strings.Contains(r.stdout, "Exported to iotdb://root:xxxxx@") || strings.Contains(r.stdout+r.stderr, "root:root@") {
		t.Fatalf("RESULTS_STORE: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rec *record.Record
	for _, x := range records(t, dir) {
		if x.Label == "export-c" {
			rec = x
		}
	}
	dev := export.IoTDBDevice(path, "Null", "ingest", "INGESTION")
	ds, err = s.ExecuteQueryStatement(fmt.Sprintf("SELECT throughput, label FROM %s WHERE time = %d", dev, rec.StartedAt.UnixMilli()), &timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ok, _ := ds.Next()
	got, _ := ds.GetDouble(dev + ".throughput")
	label, _ := ds.GetString(dev + ".label")
	if want := valuesByField(rec)[[3]string{"ingest", "INGESTION", "throughput"}]; !ok || got != want || label != "export-c" {
		t.Errorf("RESULTS_STORE's point: %v %v %q, want %v of export-c", ok, got, label, want)
	}
	// A store that cannot be reached is a warning: the run stands.
	r = bench(t, "run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "LOOP=30",
		"--set", "RESULTS_DIR="+dir, "--set", "RESULTS_STORE=iotdb://root:hunter2@127.0.0.1:1", "--label", "export-d")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: RESULTS_STORE: the run was not exported to iotdb://root:xxxxx@127.0.0.1:1") || strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Errorf("an unreachable RESULTS_STORE: exit %d\n%s", r.code, r.stderr)
	}
}

// TestExportToElasticsearch: runs exported into the test suite's
// Elasticsearch and OpenSearch through the binary are documents equal to
// the records, and every panel of the shipped Grafana dashboard
// (deploy/grafana), its query run as Grafana's Elasticsearch data source
// sends it, charts them: the ingest panel's points are the runs'
// throughputs.
func TestExportToElasticsearch(t *testing.T) {
	t.Run("Elasticsearch", func(t *testing.T) {
		host, port := adaptertest.Server(t, "TSBENCH_ES", "scripts/elasticsearch start", "./cmd/bench")
		exportToES(t, "http://"+host+":"+port)
	})
	t.Run("OpenSearch", func(t *testing.T) {
		host, port := adaptertest.Server(t, "TSBENCH_OPENSEARCH", "ES_PORT=9201 scripts/opensearch start", "./cmd/bench")
		exportToES(t, "http://"+host+":"+port)
	})
}

func exportToES(t *testing.T, base string) {
	dir := t.TempDir()
	recs := nullWeeks(t, dir, "master-w01", "master-w02", "pr-1")
	index := fmt.Sprintf("tsbench-export-%d", time.Now().UnixNano()%1e9)
	defer esDo(t, http.MethodDelete, base+"/"+index, nil)
	for range 2 {
		if r := bench(t, "export", "master-*", "pr-1", "--results", dir, "--to", base+"/"+index); r.code != 0 || !strings.Contains(r.stdout, "exported 3 runs") {
			t.Fatalf("export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	var res struct {
		Hits struct {
			Hits []struct {
				Source map[string]any `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	esDo(t, http.MethodGet, base+"/"+index+"/_search?size=1000", &res)
	if n := len(res.Hits.Hits); n != 3*23 {
		t.Fatalf("%d documents after two exports of 3 runs, want %d", n, 3*23)
	}
	byID := map[string]*record.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	checked := 0
	for _, h := range res.Hits.Hits {
		d := h.Source
		rec := byID[d["run_id"].(string)]
		if rec == nil || d["label"] != rec.Label || d["@timestamp"] != rec.StartedAt.UTC().Format(time.RFC3339Nano) {
			t.Fatalf("document %v", d)
		}
		for k, v := range valuesByField(rec) {
			if k[0] != d["phase"] || k[1] != d["operation"] {
				continue
			}
			if got, ok := d[k[2]].(float64); !ok || got != v {
				t.Errorf("%s of %s in %s: %v, the record says %v", k[2], k[1], k[0], d[k[2]], v)
			}
			checked++
		}
	}
	total := 0
	for _, rec := range recs {
		total += len(valuesByField(rec))
	}
	if checked != total {
		t.Errorf("%d values checked, the records have %d", checked, total)
	}
	dashboardPanels(t, base, index, recs)
}

// dashboardPanels runs each panel of the shipped dashboard as Grafana's
// Elasticsearch data source would (its Lucene query with the variables
// set, its buckets, its metric) and checks that it charts the runs.
func dashboardPanels(t *testing.T, base, index string, recs []*record.Record) {
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "tsbench-elasticsearch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct {
				Query      string
				TimeField  string
				Metrics    []struct{ Type, Field string }
				BucketAggs []struct{ Type, Field string }
			}
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil || len(dash.Panels) == 0 {
		t.Fatalf("the dashboard: %v", err)
	}
	// Grafana escapes a variable's value for Lucene; the pattern is the
	// label variable's, kept as a pattern.
	vars := map[string]string{"$label": "master-*", "$db": "Null", "$phase": `query\ round\ 2`}
	for _, p := range dash.Panels {
		if len(p.Targets) != 1 || len(p.Targets[0].Metrics) != 1 {
			t.Fatalf("panel %q: %d targets", p.Title, len(p.Targets))
		}
		tg := p.Targets[0]
		q := tg.Query
		for k, v := range vars {
			q = strings.ReplaceAll(q, k, v)
		}
		if strings.Contains(q, "$") {
			t.Fatalf("panel %q: a variable the test does not set: %s", p.Title, q)
		}
		aggs := map[string]any{"v": map[string]any{tg.Metrics[0].Type: map[string]any{"field": tg.Metrics[0].Field}}}
		for i := len(tg.BucketAggs) - 1; i >= 0; i-- {
			b := tg.BucketAggs[i]
			var agg map[string]any
			switch b.Type {
			case "terms":
				agg = map[string]any{"terms": map[string]any{"field": b.Field, "size": 100}}
			case "date_histogram":
				agg = map[string]any{"date_histogram": map[string]any{"field": b.Field, "fixed_interval": "100ms", "min_doc_count": 1}}
			default:
				t.Fatalf("panel %q: bucket %s", p.Title, b.Type)
			}
			agg["aggs"] = aggs
			aggs = map[string]any{"b": agg}
		}
		body, _ := json.Marshal(map[string]any{"size": 0, "query": map[string]any{"query_string": map[string]any{"query": q, "analyze_wildcard": true}}, "aggs": aggs})
		var res map[string]any
		esPost(t, base+"/"+index+"/_search", body, &res)
		values := leaves(res["aggregations"])
		if len(values) == 0 {
			t.Errorf("panel %q (%s, %s of %s) charts nothing", p.Title, q, tg.Metrics[0].Type, tg.Metrics[0].Field)
			continue
		}
		if tg.Metrics[0].Field == "throughput" {
			want := 0
			for _, rec := range recs {
				if !strings.HasPrefix(rec.Label, "master-") {
					continue
				}
				v := valuesByField(rec)[[3]string{"ingest", "INGESTION", "throughput"}]
				for _, got := range values {
					if math.Abs(got-v) <= 1e-9*v {
						want++
					}
				}
			}
			if want != 2 || len(values) != 2 {
				t.Errorf("panel %q: points %v, want the two master runs' throughputs", p.Title, values)
			}
		}
	}
}

// leaves are the values of the innermost aggregation "v" of a search.
func leaves(a any) []float64 {
	var out []float64
	switch x := a.(type) {
	case map[string]any:
		if v, ok := x["v"].(map[string]any); ok {
			if f, ok := v["value"].(float64); ok {
				out = append(out, f)
			}
		}
		for k, y := range x {
			if k != "v" {
				out = append(out, leaves(y)...)
			}
		}
	case []any:
		for _, y := range x {
			out = append(out, leaves(y)...)
		}
	}
	return out
}

func esDo(t *testing.T, method, url string, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	esSend(t, req, out)
}

func esPost(t *testing.T, url string, body []byte, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	esSend(t, req, out)
}

func esSend(t *testing.T, req *http.Request, out any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
}
