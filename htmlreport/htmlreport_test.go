package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
)

// The records are the charts package's: real SQLite runs of the shipped
// config through the bench binary, two labelled "base" and two "pr".
const records = "../charts/testdata/records"

func load(t *testing.T, label string) []*record.Record {
	t.Helper()
	recs, _, err := record.Store{Dir: records}.Find(label)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func comparisonPage(t *testing.T) ([]byte, charts.Set) {
	t.Helper()
	base := compare.Side{Label: "base", Runs: load(t, "base")}
	pr := compare.Side{Label: "pr", Runs: load(t, "pr")}
	cmp := compare.New(base, []compare.Side{pr}, compare.Options{Alpha: compare.DefaultAlpha, MinEffect: 5, MinAbsMS: compare.DefaultMinAbsMS})
	var buf bytes.Buffer
	if err := Comparison(&buf, "test", cmp, report.PRTables(cmp)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), charts.ForComparison(cmp)
}

func runsPage(t *testing.T) ([]byte, charts.Set) {
	t.Helper()
	runs := load(t, "base")
	var buf bytes.Buffer
	if err := Runs(&buf, "test", runs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), charts.ForRuns(runs)
}

func TestPagesAreSelfContained(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) ([]byte, charts.Set){"comparison": comparisonPage, "runs": runsPage} {
		page, set := mk(t)
		if ref := External(page); ref != "" {
			t.Errorf("%s page refers outside itself: %q", name, ref)
		}
		figs := regexp.MustCompile(`<figure id="chart-([^"]+)"`).FindAllSubmatch(page, -1)
		if len(figs) != len(set.Charts) || len(figs) == 0 {
			t.Errorf("%s page has %d figures for %d charts", name, len(figs), len(set.Charts))
		}
		for i, f := range figs {
			if i < len(set.Charts) && string(f[1]) != set.Charts[i].Name {
				t.Errorf("%s figure %d is %s, chart %s", name, i, f[1], set.Charts[i].Name)
			}
		}
		if bytes.Count(page, []byte(`style="`)) > 0 {
			t.Errorf("%s page: inline styles left in the charts (%d)", name, bytes.Count(page, []byte(`style="`)))
		}
	}
	// The check itself finds what it is for.
	for _, bad := range []string{`<img src="x.png">`, `<script>`, `<a href="https://example.org/">`, `<style>@import "x.css";</style>`, `fill:url(http://x/y)`} {
		if External([]byte(bad)) == "" {
			t.Errorf("selfContained misses %q", bad)
		}
	}
	for _, ok := range []string{`<a href="#chart-x">`, `xmlns="http://www.w3.org/2000/svg"`, `clip-path="url(#c1)"`} {
		if r := External([]byte(ok)); r != "" {
			t.Errorf("selfContained refuses %q (%q)", ok, r)
		}
	}
}

func TestPageContent(t *testing.T) {
	page, _ := comparisonPage(t)
	s := strings.ToLower(string(page))
	for _, want := range []string{
		"tsbench comparison: base vs pr",  // in the order of the tables
		"baseline: base", "contender: pr", // the sides' facts
		"workload fingerprint",
		"sqlite",            // the database
		"INGESTION, ingest", // a ratio bar's label
		"No throughput-over-time chart for PRECISE_POINT", // the note on short phases
		"<h3>", // the tables
	} {
		if !strings.Contains(s, strings.ToLower(want)) {
			t.Errorf("comparison page lacks %q", want)
		}
	}
	if size := len(page); size > 600<<10 {
		t.Errorf("comparison page is %d KB; a page to attach should stay a few hundred KB", size>>10)
	}
	runs, _ := runsPage(t)
	for _, want := range []string{"Result Matrix", "Latency (ms) Matrix", "latency by percentile", "Verify"} {
		if !strings.Contains(string(runs), want) {
			t.Errorf("runs page lacks %q", want)
		}
	}
}

func TestWritePNGs(t *testing.T) {
	_, set := comparisonPage(t)
	dir := filepath.Join(t.TempDir(), "png")
	paths, err := WritePNGs(dir, set.Charts)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(set.Charts) {
		t.Fatalf("%d files for %d charts", len(paths), len(set.Charts))
	}
	for _, want := range []string{"ratio-throughput.png", "latency-ingestion.png", "throughput-ingestion.png", "cold-warm.png"} {
		b, err := os.ReadFile(filepath.Join(dir, want))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not a PNG file (%v)", want, err)
		}
	}
}
