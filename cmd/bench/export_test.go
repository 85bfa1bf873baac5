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
	// Timestamps in fixed-point seconds: Python's Prometheus client reads
	// 1.796393844597e+09 as 1.8 s after the epoch.
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && !strings.HasPrefix(l, "#") && strings.ContainsAny(f[len(f)-1], "eE") {
			t.Fatalf("a timestamp with an exponent: %s", l)
		}
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
