package charts

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/telemetry"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The records in testdata/records are real SQLite runs of the shipped
// config.properties through the bench binary (LOOP=200, QUERY_ROUNDS=2,
// QUERY_LOOP=10), two labelled "base" and two "pr".
func sides(t *testing.T) (compare.Side, compare.Side) {
	t.Helper()
	st := record.Store{Dir: "testdata/records"}
	var out [2]compare.Side
	for i, l := range []string{"base", "pr"} {
		recs, damaged, err := st.Find(l)
		if err != nil || len(damaged) > 0 || len(recs) != 2 {
			t.Fatalf("testdata runs %s: %d records, %v, %v", l, len(recs), err, damaged)
		}
		out[i] = compare.Side{Label: l, Runs: recs}
	}
	return out[0], out[1]
}

func comparison(t *testing.T) *compare.Comparison {
	b, c := sides(t)
	return compare.New(b, []compare.Side{c}, compare.Options{Alpha: compare.DefaultAlpha, MinEffect: 5, MinAbsMS: compare.DefaultMinAbsMS})
}

// golden compares a set's chart data with a file of one JSON line per
// chart (then the notes), so that a change shows as the charts it touched.
func golden(t *testing.T, name string, set Set) {
	t.Helper()
	var got []byte
	for _, c := range set.Charts {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(append(got, b...), '\n')
	}
	b, err := json.Marshal(set.Notes)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, b...)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./charts -update writes it)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("chart data of %s differ from %s (go test ./charts -update rewrites it after a deliberate change)", name, path)
	}
}

func TestGolden(t *testing.T) {
	b, _ := sides(t)
	golden(t, "comparison.golden.json", ForComparison(comparison(t)))
	golden(t, "run.golden.json", ForRuns(b.Runs[:1]))
}

func byName(set Set) map[string]Chart {
	m := map[string]Chart{}
	for _, c := range set.Charts {
		m[c.Name] = c
	}
	return m
}

func TestComparisonCharts(t *testing.T) {
	cmp := comparison(t)
	set := ForComparison(cmp)
	charts := byName(set)
	if len(charts) != len(set.Charts) {
		t.Fatalf("chart names are not unique: %d names for %d charts", len(charts), len(set.Charts))
	}
	// Ratio bars: one per row of the metric, the row's ratio, coloured by its verdict.
	thr, ok := charts["ratio-throughput"]
	if !ok || thr.Kind != HBars || thr.Reference != 1 || !thr.X.Log {
		t.Fatalf("no log-scale ratio chart of throughput from 1.0: %+v", thr)
	}
	rows := 0
	for _, r := range cmp.Rows {
		if r.Key.Metric != "throughput" {
			continue
		}
		rows++
		cat := slices.Index(thr.Categories, r.Key.Op+", "+r.Key.Phase)
		if cat < 0 {
			t.Fatalf("row %s %s has no bar", r.Key.Op, r.Key.Phase)
		}
		bars := 0
		for _, s := range thr.Series {
			if v := s.Values[cat]; !math.IsNaN(v) {
				bars++
				if s.Verdict != verdictOf(r.Contender[0]) || math.Abs(v-r.Contender[0].Ratio) > 0.0005 {
					t.Errorf("%s: bar %g in %q, row ratio %g verdict %q", thr.Categories[cat], v, s.Verdict, r.Contender[0].Ratio, r.Contender[0].Verdict)
				}
				if want := "2/2"; !strings.Contains(s.Labels[cat], want) {
					t.Errorf("%s: label %q does not give the runs %s", thr.Categories[cat], s.Labels[cat], want)
				}
			}
		}
		if bars != 1 {
			t.Errorf("%s: %d bars", thr.Categories[cat], bars)
		}
	}
	if rows != len(thr.Categories) || rows != 23 {
		t.Errorf("%d throughput rows, %d bars; the records have 23 (ingest + 11 classes x 2 rounds)", rows, len(thr.Categories))
	}
	// Throughput over time: only INGESTION lasted three windows; the
	// classes are named in a note.
	if _, ok := charts["throughput-ingestion"]; !ok {
		t.Error("no throughput chart for INGESTION")
	}
	if _, ok := charts["throughput-precise-point"]; ok {
		t.Error("a throughput-over-time chart for a class that ran for a fraction of a second")
	}
	if len(set.Notes) != 1 || !strings.Contains(set.Notes[0], "PRECISE_POINT") {
		t.Errorf("notes %q do not name the classes without a throughput chart", set.Notes)
	}
	// Spectra: a line per side and round, baseline in colour 0, pr in 1, round 2 dashed.
	sp := charts["latency-time-range"]
	if len(sp.Series) != 4 || !sp.Y.Log {
		t.Fatalf("TIME_RANGE spectrum: %d series (want 2 sides x 2 rounds), log %v", len(sp.Series), sp.Y.Log)
	}
	for i, want := range []struct {
		colour, dash int
		name         string
	}{{0, 0, "base, query round 1 (n=80)"}, {1, 0, "pr, query round 1 (n=80)"}, {0, 1, "base, query round 2 (n=80)"}, {1, 1, "pr, query round 2 (n=80)"}} {
		s := sp.Series[i]
		if s.Colour != want.colour || s.Dash != want.dash || s.Name != want.name {
			t.Errorf("spectrum series %d: %q colour %d dash %d, want %+v", i, s.Name, s.Colour, s.Dash, want)
		}
	}
	// Cold vs warm: the 11 classes, a dark and a light bar per side.
	cw := charts["cold-warm"]
	if len(cw.Categories) != 11 || len(cw.Series) != 4 || cw.Series[1].Light != true || cw.Series[0].Light {
		t.Errorf("cold-warm: %d classes, %d series", len(cw.Categories), len(cw.Series))
	}
	for _, c := range set.Charts {
		if c.X.Label == "" || c.Y.Label == "" || c.Title == "" {
			t.Errorf("chart %s lacks a title or an axis label", c.Name)
		}
		if (c.X.Log || c.Y.Log) && !strings.Contains(c.X.Label+c.Y.Label, "log scale") {
			t.Errorf("chart %s has a log axis its label does not name", c.Name)
		}
	}
}

// The spectrum reads the merged histograms of a side's runs: its points
// are the percentiles of the union, not averages of each run's.
func TestSpectrumIsTheMergedHistogram(t *testing.T) {
	b, _ := sides(t)
	set := ForRuns(nil)
	if len(set.Charts) != 0 {
		t.Fatalf("charts of no runs: %d", len(set.Charts))
	}
	c, ok := spectrumChart([]side{{label: "base", runs: b.Runs}}, "AGG_VALUE")
	if !ok {
		t.Fatal("no spectrum")
	}
	var parts [][]*metrics.Snapshot
	for _, r := range b.Runs {
		for _, p := range r.Phases {
			if p.Round == 1 {
				for _, o := range p.Operations {
					if o.Operation == "AGG_VALUE" {
						parts = append(parts, []*metrics.Snapshot{o})
					}
				}
			}
		}
	}
	m := metrics.Merge(parts...)[0]
	pts := c.Series[0].Segments[0]
	at := func(x float64) float64 {
		for i, p := range pts {
			if p.X > x+1e-9 {
				return pts[i-1].Y // the line is flat between kept points
			}
		}
		return pts[len(pts)-1].Y
	}
	if m.OKOps != 80 {
		t.Fatalf("merged %d operations, want 80", m.OKOps)
	}
	for _, q := range []struct{ x, p float64 }{{0, 0}, {1, 90}, {2, 99}, {4, 99.99}} {
		if got, want := at(q.x), m.Percentile(q.p); got != want {
			t.Errorf("P%g: chart %g, merged histogram %g", q.p, got, want)
		}
	}
	if pts[0].Y != float64(m.MinMicros)/1000 || pts[len(pts)-1].Y != float64(m.MaxMicros)/1000 {
		t.Errorf("spectrum runs %g..%g, the operations %d..%d µs", pts[0].Y, pts[len(pts)-1].Y, m.MinMicros, m.MaxMicros)
	}
}

func TestThroughputWindows(t *testing.T) {
	b, p := sides(t)
	var r *record.Record
	for _, x := range append(b.Runs, p.Runs...) {
		if len(x.Phases[0].Operations[0].Rates(x.Phases[0].Elapsed())) >= minWindows {
			r = x
		}
	}
	if r == nil {
		t.Fatal("no testdata run ingested for three windows")
	}
	c, ok := throughputChart([]side{{label: "base", runs: []*record.Record{r}}}, "INGESTION")
	if !ok || len(c.Series) != 1 || len(c.Series[0].Segments) != 1 {
		t.Fatalf("INGESTION throughput: %+v", c)
	}
	ingest := &r.Phases[0]
	o := ingest.Operations[0]
	seg := c.Series[0].Segments[0]
	rates := o.Rates(ingest.Elapsed())
	if len(seg) != len(rates) || len(seg) < minWindows {
		t.Fatalf("%d points for %d windows", len(seg), len(rates))
	}
	for i, p := range seg {
		if math.Abs(p.Y-rates[i]) > 0.001 || p.X <= 0 || p.X > ingest.Seconds {
			t.Errorf("window %d: point (%g, %g), rate %g in a phase of %g s", i, p.X, p.Y, rates[i], ingest.Seconds)
		}
	}
	if seg[0].Y != float64(o.PerSecond[0]) {
		t.Errorf("first window %g points/s, the record counted %d points in it", seg[0].Y, o.PerSecond[0])
	}
	// Phase and round boundaries of the run are marked.
	var marks []string
	for _, m := range c.Marks {
		marks = append(marks, m.Label)
	}
	if !slices.Equal(marks, []string{"ingest", "query round 1", "query round 2"}) {
		t.Errorf("marks %q", marks)
	}
}

func TestDraw(t *testing.T) {
	set := ForComparison(comparison(t))
	for _, c := range set.Charts {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(svg, []byte(c.Title)) {
			t.Errorf("%s: the SVG does not start with <svg or lacks its title", c.Name)
		}
		b, err := c.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		w, h := c.Size()
		// gonum/plot draws PNGs at 96 dots per inch.
		if dx, dy := img.Bounds().Dx(), img.Bounds().Dy(); math.Abs(float64(dx)-w.Points()*96/72) > 1 || math.Abs(float64(dy)-h.Points()*96/72) > 1 {
			t.Errorf("%s: PNG %dx%d, chart %gx%g pt", c.Name, dx, dy, w.Points(), h.Points())
		}
	}
}

func TestTicks(t *testing.T) {
	labels := func(ts []plotTick) []string {
		var out []string
		for _, t := range ts {
			if t.Label != "" {
				out = append(out, t.Label)
			}
		}
		return out
	}
	if got := labels(ticksOf(logTicks{}, 1.5, 30)); !slices.Equal(got, []string{"2", "5", "10", "20"}) {
		t.Errorf("log ticks 1.5..30: %q", got)
	}
	if got := labels(ticksOf(logTicks{}, 0.01, 500)); !slices.Equal(got, []string{"0.01", "0.1", "1", "10", "100"}) {
		t.Errorf("log ticks over 4.7 decades: %q", got)
	}
	// A thin band: medians of 1.5 ms within a few per cent, padded by a
	// ninth of a decade, held one label ("2") at the top and none below.
	if got := labels(ticksOf(logTicks{}, 1.153, 1.95)); !slices.Equal(got, []string{"1.2", "1.5", "1.8"}) {
		t.Errorf("log ticks of a thin band 1.153..1.95: %q", got)
	}
	if got := labels(ticksOf(logTicks{}, 2.5, 9.5)); !slices.Equal(got, []string{"3", "4", "5", "6", "7", "8", "9"}) {
		t.Errorf("log ticks 2.5..9.5: %q", got)
	}
	if got := labels(ticksOf(ratioTicks{}, 0.6, 1.7)); !slices.Equal(got, []string{"0.67×", "0.8×", "1×", "1.25×", "1.5×"}) {
		t.Errorf("ratio ticks 0.6..1.7: %q", got)
	}
	if got := labels(ticksOf(ratioTicks{}, 0.05, 3)); !slices.Equal(got, []string{"0.05×", "0.1×", "0.2×", "0.5×", "1×", "2×"}) {
		t.Errorf("ratio ticks 0.05..3: %q", got)
	}
	for v, want := range map[float64]string{2.5e6: "2.5M", 0: "0", 1500: "1.5k", 999: "999", 3e9: "3G"} {
		if got := si(v); got != want {
			t.Errorf("si(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestSlugAndFlat(t *testing.T) {
	for in, want := range map[string]string{"INGESTION": "ingestion", "99.9th percentile latency": "99-9th-percentile-latency", "Q4a1": "q4a1", " a--b ": "a-b"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	got := flat([]Point{{0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 2}, {6, 3}})
	if !slices.Equal(got, []Point{{0, 1}, {2, 1}, {3, 2}, {5, 2}, {6, 3}}) {
		t.Errorf("flat: %v", got)
	}
}

type plotTick = plot.Tick

func ticksOf(tk plot.Ticker, lo, hi float64) []plot.Tick { return tk.Ticks(lo, hi) }

// Elasticsearch records carry the node's own metrics: a comparison draws
// them as ratio bars that are never judged. The records are real runs of
// tools/es-compare (Elasticsearch 6.8.6 and 8.9.2, one run each).
func TestServerMetricsChart(t *testing.T) {
	var sides []compare.Side
	for _, l := range []string{"elasticsearch-6.8.6", "elasticsearch-8.9.2"} {
		recs, _, err := record.Store{Dir: "testdata/es"}.Find(l)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %v", l, err)
		}
		sides = append(sides, compare.Side{Label: l, Runs: recs})
	}
	cmp := compare.New(sides[0], sides[1:], compare.Options{Alpha: compare.DefaultAlpha, MinEffect: 5})
	c, ok := byName(ForComparison(cmp))["server-metrics"]
	if !ok || len(cmp.ServerRows) == 0 {
		t.Fatalf("no server-metrics chart for %d server rows", len(cmp.ServerRows))
	}
	bars := 0
	for _, r := range cmp.ServerRows {
		name := r.Key.Metric
		if r.Metric.Unit != "" {
			name += " (" + r.Metric.Unit + ")"
		}
		i := slices.Index(c.Categories, name)
		ratio := r.Contender[0].Ratio
		if !(ratio > 0) || math.IsInf(ratio, 0) {
			if i >= 0 {
				t.Errorf("%s has a bar without a finite ratio", name)
			}
			continue
		}
		if i < 0 {
			t.Errorf("no bar for server metric %q in %q", name, c.Categories)
			continue
		}
		bars++
		for _, s := range c.Series {
			if v := s.Values[i]; !math.IsNaN(v) && (s.Verdict != VerdictNotJudged || math.Abs(v-ratio) > 0.0005) {
				t.Errorf("%s: bar %g %q, ratio %g", name, v, s.Verdict, ratio)
			}
		}
	}
	if bars == 0 || bars != len(c.Categories) {
		t.Errorf("%d bars, %d categories", bars, len(c.Categories))
	}
}

// TestServerSeriesCharts: the server's CPU is drawn as its rate between
// samples, its memory as read; a process keeps its line across phases
// although a restart gave it another pid; the machine is not a process.
func TestServerSeriesCharts(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	src := func(pid int, start time.Time, cpu, rss []float64) telemetry.Source {
		return telemetry.Source{Name: fmt.Sprintf("process %d (java, port 6667)", pid), Started: start, At: []int64{0, 500, 1500},
			Series: []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: cpu}, {Name: "CPU system", Unit: "s", Counter: true, Values: []float64{0, 0, 0.5}},
				{Name: "resident memory", Unit: "bytes", Values: rss}}}
	}
	machine := telemetry.Source{Name: "machine", Started: t0, At: []int64{0, 1000}, Series: []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Values: []float64{0, 9}}}}
	rec := &record.Record{ID: "r", Label: "main", Phases: []record.Phase{
		{Name: "ingest", StartedAt: t0, Seconds: 1.5, Server: []telemetry.Source{machine, src(10, t0, []float64{0, 0.5, 1}, []float64{1 << 20, 2 << 20, 3 << 20})}},
		{Name: "query", Round: 1, StartedAt: t0.Add(10 * time.Second), Seconds: 1.5, Server: []telemetry.Source{src(11, t0.Add(10*time.Second), []float64{0, 1, 0}, []float64{5 << 20, 5 << 20, 5 << 20})}},
	}}
	set := ForRuns([]*record.Record{rec})
	var cpu, mem *Chart
	for i := range set.Charts {
		switch set.Charts[i].Name {
		case "server-cpu":
			cpu = &set.Charts[i]
		case "server-memory":
			mem = &set.Charts[i]
		}
	}
	if cpu == nil || mem == nil {
		t.Fatalf("charts %v", func() (n []string) {
			for _, c := range set.Charts {
				n = append(n, c.Name)
			}
			return
		}())
	}
	if len(cpu.Series) != 1 || len(cpu.Series[0].Segments) != 2 {
		t.Fatalf("CPU: %d lines, want one process line of two phases: %+v", len(cpu.Series), cpu.Series)
	}
	// 0.5 s of CPU in 0.5 s at 0.25 s; 1 + 0.5 s in 1 s at 1 s.
	want := []Point{{X: 0.25, Y: 1}, {X: 1, Y: 1.5}}
	if got := cpu.Series[0].Segments[0]; !slices.Equal(got, want) {
		t.Errorf("CPU of the ingest %v, want %v", got, want)
	}
	if got := cpu.Series[0].Segments[1][0]; got != (Point{X: 10.25, Y: 2}) {
		t.Errorf("CPU after the restart starts at %v, want 2 s/s at 10.25 s", got)
	}
	if got := mem.Series[0].Segments[0]; !slices.Equal(got, []Point{{X: 0, Y: 1}, {X: 0.5, Y: 2}, {X: 1.5, Y: 3}}) {
		t.Errorf("memory %v, want 1, 2, 3 MiB as read", got)
	}
	if len(cpu.Marks) != 2 || cpu.Marks[1].X != 10 {
		t.Errorf("marks %+v", cpu.Marks)
	}
	for _, c := range []*Chart{cpu, mem} {
		if svg, err := c.SVG(); err != nil || !bytes.Contains(svg, []byte(c.Title)) {
			t.Errorf("%s: SVG %v", c.Name, err)
		}
	}
	if c, ok := serverSeriesChart([]side{{label: "x", runs: []*record.Record{{Phases: []record.Phase{{Server: []telemetry.Source{machine}}}}}}}, serverFigures[0]); ok {
		t.Errorf("a chart of the machine alone: %+v", c)
	}
}

// TestDatabaseSeriesCharts: each key series a database's source marks
// (telemetry.Series' Chart) gets a chart over time, a line a node, a
// counter as its rate and bytes in MiB; an unmarked series and the
// machine's get none.
func TestDatabaseSeriesCharts(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	node := func(name string, flushes []float64) telemetry.Source {
		return telemetry.Source{Name: name, Started: t0, At: []int64{0, 1000, 3000}, Series: []telemetry.Series{
			{Name: "flushes", Unit: "flushes", Counter: true, Chart: true, Values: flushes},
			{Name: "WAL size", Unit: "bytes", Chart: true, Values: []float64{0, 2 << 20, 4 << 20}},
			{Name: "WAL files", Unit: "files", Values: []float64{1, 2, 3}},
		}}
	}
	machine := telemetry.Source{Name: "machine", Started: t0, At: []int64{0, 1000}, Series: []telemetry.Series{{Name: "CPU user", Unit: "s", Counter: true, Chart: true, Values: []float64{0, 9}}}}
	rec := &record.Record{ID: "r", Phases: []record.Phase{{Name: "ingest", StartedAt: t0, Seconds: 3,
		Server: []telemetry.Source{machine, node("IoTDB DataNode 127.0.0.1:9191", []float64{0, 2, 4}), node("IoTDB DataNode 127.0.0.1:9192", []float64{0, 0, 1})}}}}
	charts := map[string]Chart{}
	for _, c := range ForRuns([]*record.Record{rec}).Charts {
		if strings.HasPrefix(c.Name, "server-") {
			charts[c.Name] = c
		}
	}
	if len(charts) != 2 {
		t.Fatalf("server charts %v, want flushes and WAL size only", slices.Collect(maps.Keys(charts)))
	}
	fl, wal := charts["server-flushes"], charts["server-wal-size"]
	if fl.Y.Label != "flushes (flushes per s)" || len(fl.Series) != 2 {
		t.Fatalf("flushes: axis %q, %d lines; want a rate, one line a node", fl.Y.Label, len(fl.Series))
	}
	if got := fl.Series[0].Segments[0]; !slices.Equal(got, []Point{{X: 0.5, Y: 2}, {X: 2, Y: 2}}) {
		t.Errorf("flushes of the first node %v, want 2 per s at 0.5 s and at 2 s", got)
	}
	if got := wal.Series[1].Segments[0]; wal.Y.Label != "WAL size (MiB)" || !slices.Equal(got, []Point{{X: 0, Y: 0}, {X: 1, Y: 2}, {X: 3, Y: 4}}) {
		t.Errorf("WAL size: axis %q, %v; want MiB as read", wal.Y.Label, got)
	}
	if svg, err := fl.SVG(); err != nil || !bytes.Contains(svg, []byte(fl.Title)) {
		t.Errorf("SVG: %v", err)
	}
}

// TestBarsThatCannotBeDrawn: a ratio of 0 or an infinite one on a log
// axis (a server figure that fell to nothing, or rose from it) is left out
// like a missing value, and the chart is drawn: such a bar's infinite
// coordinates once kept a routine's report drawing for good.
func TestBarsThatCannotBeDrawn(t *testing.T) {
	for _, c := range []struct {
		name   string
		log    bool
		values []float64
	}{
		{"zero on a log axis", true, []float64{0, 1.2, 0.8}},
		{"infinite on a log axis", true, []float64{math.Inf(1), 1.1, math.NaN()}},
		{"nothing drawable on a log axis", true, []float64{0, math.Inf(1)}},
		{"infinite on a linear axis", false, []float64{math.Inf(1), 3, math.Inf(-1)}},
	} {
		cats := make([]string, len(c.values))
		for i := range cats {
			cats[i] = fmt.Sprint("row ", i)
		}
		ch := Chart{Name: "ratios", Title: c.name, Kind: HBars, X: Axis{Label: "ratio", Log: c.log}, Categories: cats,
			Reference: 1, Series: []Series{{Name: "pr", Values: c.values, Labels: make([]string, len(c.values))}}}
		b, err := ch.PNG()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
