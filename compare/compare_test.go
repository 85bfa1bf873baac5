package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
)

// side makes a side of n synthetic runs (recordtest.Runs).
func side(label string, seed uint64, n int, means map[string]float64, order []string) Side {
	return Side{Label: label, Runs: recordtest.Runs(label, seed, n, means, order)}
}

var opts = Options{Alpha: 0.05, MinEffect: 5}

func row(t *testing.T, c *Comparison, metric, op string) Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Key.Metric == metric && r.Key.Op == op {
			return r
		}
	}
	t.Fatalf("no row %s / %s", metric, op)
	return Row{}
}

func TestClearRegression(t *testing.T) {
	order := []string{"TIME_RANGE", "LATEST_POINT"}
	base := side("master-a2b704d", 1, 5, map[string]float64{"TIME_RANGE": 10, "LATEST_POINT": 2}, order)
	pr := side("pr2689-7064536", 2, 5, map[string]float64{"TIME_RANGE": 13, "LATEST_POINT": 2}, order)
	c := New(base, []Side{pr}, opts)
	r := row(t, c, "mean latency", "TIME_RANGE")
	if ch := r.Contender[0]; ch.Verdict != "worse" || !ch.Tested || ch.P >= 0.05 || math.Abs(ch.DiffPct-30) > 5 {
		t.Fatalf("a 30%% slower TIME_RANGE: %+v", ch)
	}
	// Throughput is higher-is-better: the same slowdown does not show there
	// (fixed points per phase second), and LATEST_POINT did not change.
	if ch := row(t, c, "mean latency", "LATEST_POINT").Contender[0]; ch.Verdict != "~" {
		t.Fatalf("unchanged LATEST_POINT judged %q (%s)", ch.Verdict, ch.Note)
	}
	if v := c.Decide(20, UntestedFail); v.Status != Regression || !strings.Contains(v.Headline, "TIME_RANGE") || len(v.Of(NotTested)) != 0 {
		t.Fatalf("--fail-above 20 finds %+v", v.Lines())
	}
	if v := c.Decide(50, UntestedFail); len(v.Of(Worse)) != 0 {
		t.Fatalf("--fail-above 50 finds %v", v.Lines())
	}
	// An improvement is "better", in the direction of the metric.
	c = New(pr, []Side{base}, opts)
	if ch := row(t, c, "mean latency", "TIME_RANGE").Contender[0]; ch.Verdict != "better" {
		t.Fatalf("a faster TIME_RANGE judged %q", ch.Verdict)
	}
}

func TestAANoiseGivesNoVerdicts(t *testing.T) {
	order := []string{"Q1", "Q2", "Q3", "Q4"}
	means := map[string]float64{"Q1": 1, "Q2": 5, "Q3": 20, "Q4": 100}
	judged, alarmed, failed := 0, 0, 0
	for seed := uint64(1); seed <= 100; seed++ {
		c := New(side("a", seed*2, 5, means, order), []Side{side("b", seed*2+1, 5, means, order)}, opts)
		alarm := false
		for _, r := range c.Rows {
			ch := r.Contender[0]
			if ch.Tested {
				judged++
			}
			alarm = alarm || ch.Verdict == "better" || ch.Verdict == "worse"
		}
		if alarm {
			alarmed++
		}
		if v := c.Decide(10, UntestedFail); len(v.Of(Worse, NotTested)) > 0 {
			failed++
		}
	}
	if judged < 500 {
		t.Fatalf("only %d judged rows", judged)
	}
	// Holm bounds the chance of any verdict in a comparison by α.
	if alarmed > 5 || failed > 0 {
		t.Fatalf("A/A: %d of 100 comparisons had a verdict (want at most 5), %d failed --fail-above 10 (want 0)", alarmed, failed)
	}
}

// TestTailsNeedSamples models the false alarm the gate used to raise: the
// P90 of 4 queries a run is their maximum, noise by construction.
func TestTailsNeedSamples(t *testing.T) {
	few := func(label string, seed uint64) Side {
		s := Side{Label: label}
		for i := 0; i < 5; i++ {
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			rec := metrics.NewRecorder(time.Now())
			o := rec.Op("GROUP_BY_DESC")
			for j := 0; j < 4; j++ {
				o.Record(time.Now(), time.Duration((0.15+0.1*rng.Float64())*float64(time.Millisecond)), 1, nil)
			}
			s.Runs = append(s.Runs, &record.Record{ID: fmt.Sprintf("%s%d", label, i), Phases: []record.Phase{{Name: "main", Seconds: 1, Operations: rec.Snapshots()}}})
		}
		return s
	}
	c := New(few("a", 1), []Side{few("b", 2)}, Options{Alpha: 0.05, MinEffect: 5, MinAbsMS: DefaultMinAbsMS})
	p90 := row(t, c, "90th percentile latency", "GROUP_BY_DESC").Contender[0]
	if p90.Tested || p90.Verdict != "" || !strings.Contains(p90.Note, "too few samples for P90 (4 in the smallest run, needs 100)") {
		t.Fatalf("P90 of 4 samples: %+v", p90)
	}
	if mx := row(t, c, "max latency", "GROUP_BY_DESC").Contender[0]; mx.Tested || !strings.Contains(mx.Note, "the maximum is one operation") {
		t.Fatalf("max: %+v", mx)
	}
	if med := row(t, c, "50th percentile latency", "GROUP_BY_DESC").Contender[0]; med.Tested || !strings.Contains(med.Note, "too few samples for P50 (4 in the smallest run, needs 20)") {
		t.Fatalf("the median of 4: %+v", med)
	}
	if mean := row(t, c, "mean latency", "GROUP_BY_DESC").Contender[0]; mean.Tested || !strings.Contains(mean.Note, "too few samples for a mean (4 in the smallest run, needs 10)") {
		t.Fatalf("the mean of 4: %+v", mean)
	}
}

func TestTooFewRunsSaysSo(t *testing.T) {
	order := []string{"Q1"}
	for _, n := range [][2]int{{1, 1}, {2, 2}} {
		c := New(side("a", 1, n[0], map[string]float64{"Q1": 10}, order), []Side{side("b", 2, n[1], map[string]float64{"Q1": 30}, order)}, opts)
		if ch := row(t, c, "mean latency", "Q1").Contender[0]; ch.Verdict != Untested || ch.Tested || !strings.Contains(ch.Untestable, "a test needs 3 runs a side") {
			t.Fatalf("n=%v: %+v, want %q", n, ch, Untested)
		}
		// Never silent: the gate lists what it could not test ...
		if v := c.Decide(10, UntestedFail); len(v.Of(Worse)) != 0 || len(v.Of(NotTested)) == 0 || v.Status != Undetermined {
			t.Fatalf("n=%v: %+v", n, v.Lines())
		}
		// ... or, by the user's choice, judges it by its ratio (+200%).
		if v := c.Decide(10, UntestedRatio); len(v.Of(Worse)) == 0 || len(v.Of(NotTested)) != 0 || !strings.Contains(v.Of(Worse)[0].Line(), "by its ratio alone") {
			t.Fatalf("n=%v, --untested=ratio: %+v", n, v.Lines())
		}
	}
	// Three runs a side are tested: a threefold latency is found.
	c := New(side("a", 1, 3, map[string]float64{"Q1": 10}, order), []Side{side("b", 2, 3, map[string]float64{"Q1": 30}, order)}, opts)
	if ch := row(t, c, "mean latency", "Q1").Contender[0]; ch.Verdict != "worse" {
		t.Fatalf("n=3+3: %+v", ch)
	}
}

// TestEveryFailureIsCaught is the miss the gate used to make: one run a
// side, the contender's every operation failed. It must not pass.
func TestEveryFailureIsCaught(t *testing.T) {
	order := []string{"INGESTION"}
	for _, n := range []int{1, 3, 5} {
		c := New(side("a", 1, n, map[string]float64{"INGESTION": 10}, order), []Side{side("b", 2, n, map[string]float64{"INGESTION": 0}, order)}, opts)
		if v := c.Decide(10, UntestedFail); v.Status == Passed {
			t.Fatalf("n=%d+%d: throughput −100%% and every operation failed, and the gate passes", n, n)
		}
		if er := row(t, c, "error rate", "INGESTION").Contender[0]; !math.IsInf(er.DiffPct, 1) || strings.Contains(er.Note, "below --min-effect") {
			t.Fatalf("n=%d: error rate 0 → 100%%: %+v", n, er)
		}
		if v := c.Decide(10, UntestedRatio); len(v.Of(Worse)) == 0 {
			t.Fatalf("n=%d, --untested=ratio: %+v", n, v.Lines())
		}
	}
}

func TestZeroBaselineAndMissingRows(t *testing.T) {
	base := side("a", 1, 1, map[string]float64{"Q1": 0, "Q2": 5}, []string{"Q1", "Q2"})
	cont := side("b", 2, 1, map[string]float64{"Q1": 3, "Q3": 5}, []string{"Q1", "Q3"})
	c := New(base, []Side{cont}, opts)
	tp := row(t, c, "throughput", "Q1").Contender[0]
	if !math.IsInf(tp.DiffPct, 1) || !math.IsInf(tp.Ratio, 1) {
		t.Fatalf("from 0 to something: Diff %% and Ratio are unbounded, got %v %v", tp.DiffPct, tp.Ratio)
	}
	if lat := row(t, c, "mean latency", "Q1"); lat.Baseline.OK || lat.Contender[0].Note != "missing in the baseline" {
		t.Fatalf("latency without successes is not reported, not zero: %+v", lat)
	}
	if r := row(t, c, "mean latency", "Q2"); r.Contender[0].Note != "missing in the contender" {
		t.Fatalf("Q2 only in the baseline: %+v", r.Contender[0])
	}
}

func TestNoiseFloor(t *testing.T) {
	order := []string{"Q1"}
	c := New(side("a", 1, 5, map[string]float64{"Q1": 0.2}, order), []Side{side("b", 2, 5, map[string]float64{"Q1": 0.6}, order)}, Options{Alpha: 0.05, MinEffect: 5, MinAbsMS: 1})
	if ch := row(t, c, "mean latency", "Q1").Contender[0]; ch.Verdict != "~" || !strings.Contains(ch.Note, "noise floor") {
		t.Fatalf("0.2 vs 0.6 ms under a 1 ms floor: %q %q", ch.Verdict, ch.Note)
	}
}

func TestSeveralContenders(t *testing.T) {
	order := []string{"Q1", "Q2"}
	base := side("master-a2b704d", 11, 4, map[string]float64{"Q1": 10, "Q2": 5}, order)
	pr1 := side("pr1-aaaaaaa", 12, 4, map[string]float64{"Q1": 10, "Q2": 8}, order)
	pr2 := side("pr2-bbbbbbb", 13, 4, map[string]float64{"Q1": 6, "Q2": 5}, order)
	c := New(base, []Side{pr1, pr2}, opts)
	if v := row(t, c, "mean latency", "Q2").Contender; v[0].Verdict != "worse" || v[1].Verdict != "~" {
		t.Fatalf("Q2: %q / %q, want worse / ~", v[0].Verdict, v[1].Verdict)
	}
	if v := row(t, c, "mean latency", "Q1").Contender; v[0].Verdict != "~" || v[1].Verdict != "better" {
		t.Fatalf("Q1: %q / %q, want ~ / better", v[0].Verdict, v[1].Verdict)
	}
}

// TestServerMetricsCompared: node metrics are compared by their medians,
// never judged, and a metric one side does not report is said so, not 0.
func TestServerMetricsCompared(t *testing.T) {
	b, c := recordtest.ServerMetricRuns()
	cmp := New(Side{Label: "base", Runs: b}, []Side{{Label: "cont", Runs: c}}, opts)
	if len(cmp.ServerRows) != 2 {
		t.Fatalf("server rows %+v", cmp.ServerRows)
	}
	it := cmp.ServerRows[0]
	if it.Baseline.Median != 3 || it.Contender[0].Median != 6 || it.Contender[0].Ratio != 2 || it.Contender[0].Verdict != "" {
		t.Fatalf("indexing time row %+v", it)
	}
	if seg := cmp.ServerRows[1]; seg.Contender[0].OK || seg.Contender[0].Note != "missing in the contender" {
		t.Fatalf("segment count row %+v", seg)
	}
	if v := cmp.Decide(1, UntestedFail); len(v.Of(Worse)) != 0 {
		t.Fatal("a server metric must never fail the gate")
	}
}

// TestDifferences: runs of different databases or tsbench builds are named
// (package report says them before anything else).
func TestDifferences(t *testing.T) {
	order := []string{"Q1"}
	base := side("a", 1, 3, map[string]float64{"Q1": 5}, order)
	cont := side("b", 2, 3, map[string]float64{"Q1": 5}, order)
	for _, r := range cont.Runs {
		r.Target.DB = "Null"
		r.Tool.Version = "v0.9.0"
	}
	c := New(base, []Side{cont}, opts)
	want := []string{`Different database: "SQLite" in a; "Null" in b.`, `Different tsbench build: "" in a; "v0.9.0" in b.`}
	if d := c.Differences(); strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Fatalf("differences %q, want %q", d, want)
	}
	if d := New(base, []Side{side("c", 3, 3, map[string]float64{"Q1": 5}, order)}, opts).Differences(); len(d) != 0 {
		t.Fatalf("same database and build: %q", d)
	}
	// One driver, two distributions: the server's own name tells them apart;
	// two versions of one distribution are the build under test, not a difference.
	es, opensearch := side("es", 4, 3, map[string]float64{"Q1": 5}, order), side("os", 5, 3, map[string]float64{"Q1": 5}, order)
	for _, r := range es.Runs {
		r.Target = record.Target{DB: "Elasticsearch", Version: "Elasticsearch 8.19.21"}
	}
	for _, r := range opensearch.Runs {
		r.Target = record.Target{DB: "Elasticsearch", Version: "OpenSearch 2.19.6"}
	}
	if d := New(es, []Side{opensearch}, opts).Differences(); len(d) != 1 || d[0] != `Different database: "Elasticsearch" in es; "OpenSearch" in os.` {
		t.Fatalf("Elasticsearch vs OpenSearch: %q", d)
	}
	for _, r := range opensearch.Runs {
		r.Target.Version = "Elasticsearch 6.8.6"
	}
	if d := New(es, []Side{opensearch}, opts).Differences(); len(d) != 0 {
		t.Fatalf("two Elasticsearch versions: %q", d)
	}
}

// TestDocumentDatabaseRows: runs of a document database (Elasticsearch)
// get Rally's rows beside points/s: documents/s and MB/s of the bulk
// bodies, gated like throughput, and service time without a schedule,
// equal to latency and said so, not gated (it would test the latency's
// samples twice). Other databases get none of them.
func TestDocumentDatabaseRows(t *testing.T) {
	order := []string{"INGESTION"}
	mk := func(label string, seed uint64, docs bool) Side {
		s := side(label, seed, 5, map[string]float64{"INGESTION": 10}, order)
		for _, r := range s.Runs {
			r.Target.Documents = docs
			if docs {
				op := r.Phases[0].Operations[0]
				op.OKDocs, op.OKBytes = op.OKPoints/10, 3<<20
			}
		}
		return s
	}
	c := New(mk("base", 1, true), []Side{mk("cont", 2, true)}, opts)
	if r := row(t, c, "document throughput", "INGESTION"); r.Baseline.Median != 500 || strings.HasPrefix(r.Contender[0].Note, "not gated") {
		t.Errorf("documents/s: %+v, want 500 (5000 points, 500 documents in 1 s), gated", r)
	}
	if r := row(t, c, "data throughput", "INGESTION"); r.Baseline.Median != 3 || r.Metric.Unit != "MB/s" {
		t.Errorf("MB/s: %+v, want 3", r)
	}
	if r := row(t, c, "median document throughput", "INGESTION"); !r.Baseline.OK || r.Contender[0].Note != windowsInfo {
		t.Errorf("median of the one-second windows: %+v, want reported, not gated", r)
	}
	st, lat := row(t, c, "50th percentile service time", "INGESTION"), row(t, c, "50th percentile latency", "INGESTION")
	if st.Baseline.Median != lat.Baseline.Median || st.Contender[0].Note != equalToLatency || st.Contender[0].Tested {
		t.Errorf("service time without a schedule: %+v, want the latency %g, not gated", st, lat.Baseline.Median)
	}
	c = New(mk("base", 1, false), []Side{mk("cont", 2, false)}, opts)
	for _, r := range c.Rows {
		if strings.Contains(r.Key.Metric, "service time") || strings.Contains(r.Key.Metric, "document") || strings.Contains(r.Key.Metric, "data throughput") {
			t.Errorf("a run of a database of points has the row %s", r.Key.Metric)
		}
	}
}
