package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

// side makes a side of n synthetic runs (recordtest.Runs).
func side(label string, seed uint64, n int, means map[string]float64, order []string) compare.Side {
	return compare.Side{Label: label, Runs: recordtest.Runs(label, seed, n, means, order)}
}

var opts = compare.Options{Alpha: 0.05, MinEffect: 5}

func TestCompareGolden(t *testing.T) {
	order := []string{"INGESTION", "TIME_RANGE", "LATEST_POINT"}
	base := side("master-a2b704d", 7, 5, map[string]float64{"INGESTION": 30, "TIME_RANGE": 10, "LATEST_POINT": 2}, order)
	pr := side("pr2689-7064536", 8, 5, map[string]float64{"INGESTION": 30, "TIME_RANGE": 13, "LATEST_POINT": 2}, order)
	c := compare.New(base, []compare.Side{pr}, opts)
	c.Decide(20, compare.UntestedFail)
	// Every layout in every format: a new format gets its golden files
	// from go test ./report -update.
	for _, layout := range Layouts {
		for _, f := range TableFormats.List {
			var buf bytes.Buffer
			if err := WriteComparison(&buf, f, layout, c); err != nil {
				t.Fatal(err)
			}
			golden(t, "compare."+string(layout)+"."+string(f)+".golden", buf.Bytes())
		}
	}
}

// TestMissingAndUnboundedPrinted: a change from 0 prints +inf%, a row one
// side lacks prints n/a.
func TestMissingAndUnboundedPrinted(t *testing.T) {
	base := side("a", 1, 1, map[string]float64{"Q1": 0, "Q2": 5}, []string{"Q1", "Q2"})
	cont := side("b", 2, 1, map[string]float64{"Q1": 3, "Q3": 5}, []string{"Q1", "Q3"})
	c := compare.New(base, []compare.Side{cont}, opts)
	c.Decide(10, compare.UntestedRatio)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ComparisonJSON(c)); err != nil || !strings.Contains(buf.String(), `"status": "inconclusive"`) || !strings.Contains(buf.String(), `"change_pct": null`) {
		t.Fatalf("JSON of a verdict on a change from 0: %v\n%s", err, buf.String())
	}
	buf.Reset()
	WriteTables(&buf, "text", RallyTables(c))
	if !strings.Contains(buf.String(), "+inf%") || !strings.Contains(buf.String(), "n/a") {
		t.Fatal("the table must print +inf% for a change from 0, n/a for a row missing on a side")
	}
}

func TestSeveralContendersLaidOut(t *testing.T) {
	order := []string{"Q1", "Q2"}
	base := side("master-a2b704d", 11, 4, map[string]float64{"Q1": 10, "Q2": 5}, order)
	pr1 := side("pr1-aaaaaaa", 12, 4, map[string]float64{"Q1": 10, "Q2": 8}, order)
	pr2 := side("pr2-bbbbbbb", 13, 4, map[string]float64{"Q1": 6, "Q2": 5}, order)
	c := compare.New(base, []compare.Side{pr1, pr2}, opts)
	for _, tables := range [][]Table{RallyTables(c), PRTables(c)} {
		for _, tb := range tables {
			for _, r := range tb.Rows {
				if len(r) != len(tb.Header) {
					t.Fatalf("%s: a row of %d cells under %d columns", tb.Title, len(r), len(tb.Header))
				}
			}
		}
	}
	var buf bytes.Buffer
	WriteTables(&buf, "text", PRTables(c))
	for _, h := range []string{"main pr1/master", "main pr2/master", "main master-a2b704d"} {
		if !strings.Contains(buf.String(), h) {
			t.Fatalf("PR layout with two contenders lacks column %q:\n%s", h, buf.String())
		}
	}
	if strings.Count(buf.String(), "main master-a2b704d") != 1 {
		t.Fatal("the baseline column must appear once per round")
	}
}

// TestServerMetricsTable: the server's figures get a table of their own,
// and a metric one side lacks is "-", not 0.
func TestServerMetricsTable(t *testing.T) {
	b, c := recordtest.ServerMetricRuns()
	tables := RallyTables(compare.New(compare.Side{Label: "base", Runs: b}, []compare.Side{{Label: "cont", Runs: c}}, opts))
	if len(tables) != 2 || tables[1].Rows[0][0] != "Cumulative indexing time of primary shards" || tables[1].Rows[1][2] != "-" {
		t.Fatalf("tables %+v", tables[len(tables)-1])
	}
}

// TestTelemetryTable: the server telemetry gets a table of its own in both
// layouts, bytes in MiB, a figure one side lacks "-"; the JSON form has its
// rows with their stat.
func TestTelemetryTable(t *testing.T) {
	b, c := recordtest.TelemetryRuns()
	cmp := compare.New(compare.Side{Label: "base", Runs: b}, []compare.Side{{Label: "cont", Runs: c}}, opts)
	for _, tables := range [][]Table{RallyTables(cmp), PRTables(cmp)} {
		tt := tables[len(tables)-1]
		if !strings.HasPrefix(tt.Title, "Server telemetry: base vs cont") || len(tt.Rows) != 4 {
			t.Fatalf("last table %q with %d rows, want the telemetry's 4", tt.Title, len(tt.Rows))
		}
		mem, th := tt.Rows[2], tt.Rows[3]
		if got := strings.Join(mem[:9], "|"); got != "main|process (java)|resident memory|mean|200|200|0|MiB|+0.00%" {
			t.Errorf("memory row %s", got)
		}
		if th[5] != "-" || th[11] != "missing in the contender" {
			t.Errorf("threads, the baseline's only: %q", th)
		}
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ComparisonJSON(cmp)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"operation": "process (java)"`) || !strings.Contains(buf.String(), `"stat": "total"`) {
		t.Errorf("the JSON form lacks the telemetry rows:\n%s", buf.String())
	}
}

// TestDifferencesLead: runs of different databases or tsbench builds are
// named before anything else, in every format.
func TestDifferencesLead(t *testing.T) {
	order := []string{"Q1"}
	base := side("a", 1, 3, map[string]float64{"Q1": 5}, order)
	cont := side("b", 2, 3, map[string]float64{"Q1": 5}, order)
	for _, r := range cont.Runs {
		r.Target.DB = "Null"
	}
	c := compare.New(base, []compare.Side{cont}, opts)
	for _, f := range TableFormats.List {
		if f == JSON {
			continue // below
		}
		for _, tables := range [][]Table{RallyTables(c), PRTables(c)} {
			var buf bytes.Buffer
			if err := WriteTables(&buf, f, tables); err != nil {
				t.Fatal(err)
			}
			if f == CSV {
				// One table in the CSV; the prose, the difference in its lead, is the command's stderr.
				if p := strings.Join(Prose(tables)[:len(tables[0].Lead)], "\n"); !strings.Contains(p, "Different database") || strings.Contains(buf.String(), "Different database") {
					t.Fatalf("csv: the difference is not in the prose's lead, or is in the table: %q\n%s", p, buf.String())
				}
				continue
			}
			if i := strings.Index(buf.String(), "Different database"); i < 0 || i > strings.Index(buf.String(), tables[0].Title) {
				t.Fatalf("%s: the difference is not said before the table:\n%s", f, buf.String())
			}
		}
	}
	var buf bytes.Buffer
	WriteJSON(&buf, ComparisonJSON(c))
	if !strings.Contains(buf.String(), `"differences": [`) {
		t.Fatal("the JSON lacks the differences")
	}
}

// TestReadableCells: a metric that drops to 0 says so beside its −100%; a
// metric of one row has no geomean row repeating it; counts print whole.
func TestReadableCells(t *testing.T) {
	base := side("a", 1, 1, map[string]float64{"Q1": 4}, []string{"Q1"})
	cont := side("b", 2, 1, map[string]float64{"Q1": 0}, []string{"Q1"})
	c := compare.New(base, []compare.Side{cont}, opts)
	var buf bytes.Buffer
	if err := WriteTables(&buf, "text", RallyTables(c)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"-100.00%", "0 on the contender"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "geomean") {
		t.Errorf("a geomean row over one row:\n%s", out)
	}
	for x, want := range map[float64]string{29: "29", 500: "500", 29.5: "29.50", 0.25: "0.25", 1234.5: "1234", 0: "0"} {
		if got := num(x); got != want {
			t.Errorf("num(%g) = %q, want %q", x, got, want)
		}
	}
}

// TestEstimateBesideItsInterval: a table cell whose change of the medians
// lies outside its interval gives the interval's own estimate ("est.")
// and the table explains it; a change inside, or outside only before
// rounding, is printed as before.
func TestEstimateBesideItsInterval(t *testing.T) {
	iv := &compare.Interval{Lo: -6.96, Hi: 13.66, Level: 0.9, Est: 2.84}
	for _, tc := range []struct {
		name         string
		ratio        float64
		pr, interval string
	}{
		{"outside", 0.9228, " (est. 1.03) [0.93, 1.14]", "est. +2.84% [-6.96%, +13.66%]"},
		{"inside", 1.05, " [0.93, 1.14]", "[-6.96%, +13.66%]"},
		{"outside before rounding", 0.93035, " [0.93, 1.14]", "[-6.96%, +13.66%]"},
	} {
		ch := compare.Change{Ratio: tc.ratio, DiffPct: 100 * (tc.ratio - 1), Interval: iv}
		if got := ratioInterval(ch); got != tc.pr {
			t.Errorf("%s: ratio cell %q, want %q", tc.name, got, tc.pr)
		}
		if got := intervalCell(ch); got != tc.interval {
			t.Errorf("%s: interval cell %q, want %q", tc.name, got, tc.interval)
		}
	}
	ts := estNoted([]Table{{Rows: [][]string{{"x", "0.92 (est. 1.03) [0.93, 1.14] ~"}}}, {Rows: [][]string{{"y", "1.05 [0.93, 1.14] ~"}}}})
	if len(ts[0].Notes) != 1 || ts[0].Notes[0] != EstNote || len(ts[1].Notes) != 0 {
		t.Errorf("notes %q and %q, want EstNote on the first table alone", ts[0].Notes, ts[1].Notes)
	}
}

// TestGroupedByProcessSaid: runs of a routine that restarted its servers
// are tested by process; the JSON says so on each row and the notes
// explain it, and runs of one process say nothing of it.
func TestGroupedByProcessSaid(t *testing.T) {
	order := []string{"Q1"}
	mk := func(label string, seed uint64, procs bool) compare.Side {
		s := side(label, seed, 6, map[string]float64{"Q1": 10}, order)
		for i, r := range s.Runs {
			r.Routine = &record.Routine{Side: label, Block: i + 1, Position: 1}
			if procs {
				r.Routine.Process = 1 + i/3
			}
		}
		return s
	}
	p := opts
	p.Paired = true
	for _, procs := range []bool{true, false} {
		c := compare.New(mk("master", 1, procs), []compare.Side{mk("pr", 2, procs)}, p)
		c.Decide(10, compare.UntestedFail)
		var js, txt bytes.Buffer
		if err := WriteJSON(&js, ComparisonJSON(c)); err != nil {
			t.Fatal(err)
		}
		if err := WriteComparison(&txt, "text", PR, c); err != nil {
			t.Fatal(err)
		}
		grouped := strings.Contains(js.String(), `"processes": 2`) && strings.Contains(js.String(), `"paired": true`)
		noted := strings.Contains(txt.String(), "By server processes") && strings.Contains(txt.String(), "paired by 2 server processes")
		if grouped != procs || noted != procs {
			t.Fatalf("processes recorded %t: JSON grouped %t, text noted %t\n%s", procs, grouped, noted, txt.String())
		}
	}
}
