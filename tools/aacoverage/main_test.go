package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/compare"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestSpreadBeyondTheIntervals: three A/As whose one row's intervals say a
// standard error of 1% but whose estimates are +5%, −5% and 0: two of the
// three exclude 0 where 0.3 would, the estimates spread 5 times as widely
// as the intervals say, and √(25−1) = 4.90% is what they leave out.
func TestSpreadBeyondTheIntervals(t *testing.T) {
	z := distuv.UnitNormal.Quantile(0.95)
	var dirs []string
	for _, est := range []float64{5, -5, 0} {
		dir := t.TempDir()
		v := compare.Verdict{Rows: []compare.Judgement{
			{Metric: "mean latency", Phase: "query round 1", Operation: "PRECISE_POINT", Interval: &compare.Interval{Lo: est - z, Hi: est + z, Level: 0.9, Est: est}},
			{Metric: "bytes per point", Phase: "ingest", Interval: &compare.Interval{Level: 0.9}}, // a point: no interval to judge
		}}
		b, err := json.Marshal(map[string]any{"verdict": v})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "report.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	var routines []routine
	for _, d := range dirs {
		r, err := load(d)
		if err != nil {
			t.Fatal(err)
		}
		routines = append(routines, r)
	}
	var b strings.Builder
	write(&b, routines)
	for _, want := range []string{
		"| all | 3 | | 2 (66.7%) | 0.3 |",
		"spread 5.00 [5.00, 5.00] times as widely",
		"in quadrature: 4.90 [4.90, 4.90]%",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in:\n%s", want, b.String())
		}
	}
	if _, err := load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "report.json") {
		t.Errorf("a folder without report.json: %v", err)
	}
}
