package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
	"github.com/tsbench/tsbench/telemetry"
)

// latencyRuns makes one run per mean: 50 operations of Q1 at that latency.
func latencyRuns(label string, means ...float64) Side {
	s := Side{Label: label}
	for i, m := range means {
		rec := metrics.NewRecorder(time.Now())
		o := rec.Op("Q1")
		for j := 0; j < 50; j++ {
			o.Record(time.Now(), time.Duration(m*float64(time.Millisecond)), 1, nil)
		}
		s.Runs = append(s.Runs, &record.Record{ID: fmt.Sprintf("%s%d", label, i), Phases: []record.Phase{{Name: "main", Seconds: 1, Operations: rec.Snapshots()}}})
	}
	return s
}

// TestIntervalMatchesTheTest: the interval is Welch's on log values, made
// by hand here, and in pairs the paired t interval of the log-ratios.
func TestIntervalMatchesTheTest(t *testing.T) {
	b := []float64{10, 10.5, 9.5, 10.2, 9.8}
	c := []float64{11.2, 11.7, 10.7, 11.4, 11.0}
	cmp := New(latencyRuns("a", b...), []Side{latencyRuns("b", c...)}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS})
	ch := row(t, cmp, "mean latency", "Q1").Contender[0]
	lb, lc := logs(b), logs(c)
	mb, vb := stats.MeanVar(lb)
	mc, vc := stats.MeanVar(lc)
	se := math.Sqrt(vb/5 + vc/5)
	df := (vb/5 + vc/5) * (vb/5 + vc/5) / ((vb/5)*(vb/5)/4 + (vc/5)*(vc/5)/4)
	h := stats.TQuantile(0.95, df) * se
	want := [2]float64{100 * (math.Exp(mc-mb-h) - 1), 100 * (math.Exp(mc-mb+h) - 1)}
	iv := ch.Interval
	if iv == nil || iv.Abs || iv.Level != 0.90 || math.Abs(iv.Lo-want[0]) > 1e-9 || math.Abs(iv.Hi-want[1]) > 1e-9 {
		t.Fatalf("interval %+v, want %v", iv, want)
	}
	if !(iv.Lo < 12 && 12 < iv.Hi) || iv.Text() != fmt.Sprintf("[%s, %s]", Pct(want[0]), Pct(want[1])) {
		t.Fatalf("+12%% outside %s", iv.Text())
	}

	base, slow := blocks(6, 1.3)
	p := New(base, []Side{slow}, Options{Alpha: 0.01, Paired: true})
	pc := row(t, p, "mean latency", "Q1").Contender[0]
	b2, c2 := row(t, p, "mean latency", "Q1").Baseline, pc.Cell
	d, _ := logRatios(b2, c2)
	m, v := stats.MeanVar(d)
	h = stats.TQuantile(0.95, 5) * math.Sqrt(v/6)
	if pc.Interval == nil || math.Abs(pc.Interval.Lo-100*math.Expm1(m-h)) > 1e-9 || math.Abs(pc.Interval.Hi-100*math.Expm1(m+h)) > 1e-9 {
		t.Fatalf("paired interval %+v, want the paired t's around %v", pc.Interval, 100*math.Expm1(m))
	}
}

// TestThreeWayVerdict: the same runs are within a wide limit, beyond a
// narrow one, and inconclusive in between, with the bound they could prove
// and the runs a side that would likely settle it.
func TestThreeWayVerdict(t *testing.T) {
	base := latencyRuns("a", 10, 10.5, 9.5, 10.2, 9.8)
	slow := latencyRuns("b", 11.2, 11.7, 10.7, 11.4, 11.0) // +12% ± 5%
	cmp := New(base, []Side{slow}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS})
	for _, tc := range []struct {
		limit  float64
		want   Decision
		status string
	}{{30, Within, Passed}, {2, Worse, Regression}, {10, Inconclusive, Undetermined}, {14, Inconclusive, Undetermined}} {
		v := cmp.Decide(tc.limit, UntestedFail)
		var mean Judgement
		for _, j := range v.Rows {
			if j.Metric == "mean latency" {
				mean = j
			}
		}
		if mean.Decision != tc.want || v.Status != tc.status {
			t.Errorf("--fail-above %g: %s, status %s; want %s, %s\n%s", tc.limit, mean.Decision, v.Status, tc.want, tc.status, strings.Join(v.Lines(), "\n"))
		}
		if tc.want == Inconclusive {
			if mean.Bound <= tc.limit || mean.Bound > 30 || !strings.Contains(mean.Line(), fmt.Sprintf("proven within %.1f%% at most", mean.Bound)) {
				t.Errorf("--fail-above %g: bound %v: %s", tc.limit, mean.Bound, mean.Line())
			}
			if mean.Runs == 0 && tc.limit == 14 || mean.Runs != 0 && mean.Runs <= 5 {
				t.Errorf("--fail-above %g: runs needed %d: %s", tc.limit, mean.Runs, mean.Line())
			}
			if !strings.HasPrefix(v.Headline, "Gate inconclusive:") || !strings.Contains(v.Headline, "no regression was found") {
				t.Errorf("headline %q", v.Headline)
			}
		}
	}
	// The projection holds: with the runs it asked for, the same spread
	// and change settle the row.
	j := cmp.Decide(14, UntestedFail).Of(Inconclusive)[0]
	bs, cs := []float64{}, []float64{}
	for k := 0; k < j.Runs; k++ {
		bs = append(bs, []float64{10, 10.5, 9.5, 10.2, 9.8}[k%5])
		cs = append(cs, []float64{11.2, 11.7, 10.7, 11.4, 11.0}[k%5])
	}
	more := New(latencyRuns("a", bs...), []Side{latencyRuns("b", cs...)}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS}).Decide(14, UntestedFail)
	if more.Status == Undetermined {
		t.Errorf("%d runs a side, as projected, still inconclusive: %v", j.Runs, more.Lines())
	}
	// Identical values are within any limit, even 0.
	if v := New(latencyRuns("a", 10, 10, 10), []Side{latencyRuns("b", 10, 10, 10)}, Options{Alpha: 0.01}).Decide(0, UntestedFail); v.Status != Passed {
		t.Errorf("identical runs: %v", v.Lines())
	}
}

// TestBeyondAtTheIntervalComesFirst: a row whose whole interval lies
// beyond the limit, though the gate's test at α does not show it worse, is
// named so in its line and in the headline, which then does not say "no
// regression was found", and such rows come before the other open rows.
func TestBeyondAtTheIntervalComesFirst(t *testing.T) {
	base := latencyRuns("a", 10, 10.5, 9.5, 10.2, 9.8)
	slow := latencyRuns("b", 11.2, 11.7, 10.7, 11.4, 11.0) // +12% ± 5%
	cmp := New(base, []Side{slow}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS})
	v := cmp.Decide(6, UntestedFail)
	if v.Status != Undetermined {
		t.Fatalf("status %s:\n%s", v.Status, strings.Join(v.Lines(), "\n"))
	}
	open := v.Open()
	if len(open) == 0 || !open[0].Beyond || open[0].Interval == nil || open[0].Interval.Lo <= 6 {
		t.Fatalf("first open row %+v, want one whose interval lies beyond 6%%", open)
	}
	if l := open[0].Line(); !strings.Contains(l, "its interval lies beyond 6%, but the gate's test, corrected for every gated row, does not show it worse (p(Holm)=") {
		t.Errorf("line %q", l)
	}
	if h := v.Headline; strings.Contains(h, "no regression was found") || !strings.Contains(h, " beyond the limit at the intervals' confidence but are not shown worse by the gate's test ("+open[0].Where()+": "+Pct(open[0].Interval.Est)+" "+open[0].Interval.Text()+")") {
		t.Errorf("headline %q", h)
	}
	// A row beyond the limit is not said to sit near it.
	far := Judgement{Metric: "m", Decision: Inconclusive, Beyond: true, Limit: 3, P: 0.0076}
	if l := far.Line(); !strings.HasSuffix(l, "; more than 100 runs a side to show it worse") || strings.Contains(l, "near the limit") {
		t.Errorf("line %q", l)
	}
	// Past the interval's reach the row is inconclusive as before.
	v = cmp.Decide(10, UntestedFail)
	for _, j := range v.Open() {
		if j.Beyond {
			t.Errorf("--fail-above 10: %s", j.Line())
		}
	}
	// Open rows that are not beyond come by their p-value.
	v = &Verdict{Rows: []Judgement{{Metric: "c", Decision: NotTested}, {Metric: "b", Decision: Inconclusive, P: 0.5}, {Metric: "a", Decision: Inconclusive, P: 0.2}, {Metric: "d", Decision: Within}, {Metric: "e", Decision: Inconclusive, P: 0.9, Beyond: true}}}
	var got []string
	for _, j := range v.Open() {
		got = append(got, j.Metric)
	}
	if strings.Join(got, "") != "eabc" {
		t.Errorf("open rows in the order %v, want e a b c", got)
	}
}

// TestNoiseFloorWidensTheLimit: a latency of 0.1 ms that moves by 0.05 ms
// is +50%, but below the 0.25 ms noise floor: within.
func TestNoiseFloorWidensTheLimit(t *testing.T) {
	base := latencyRuns("a", 0.10, 0.11, 0.09, 0.10)
	fast := latencyRuns("b", 0.15, 0.16, 0.14, 0.15)
	v := New(base, []Side{fast}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS}).Decide(10, UntestedFail)
	if v.Status != Passed {
		t.Fatalf("0.1 → 0.15 ms under a 0.25 ms floor: %v", v.Lines())
	}
	if v := New(base, []Side{fast}, Options{Alpha: 0.01}).Decide(10, UntestedFail); v.Status != Regression {
		t.Fatalf("without the floor, +50%% in tight runs: %v", v.Lines())
	}
}

// TestUnmeasuredPhase: a warm-up that took the whole phase leaves rows
// "not measured", never 0, and the gate inconclusive, never passed.
func TestUnmeasuredPhase(t *testing.T) {
	mk := func(label string) Side {
		s := Side{Label: label}
		for i := 0; i < 3; i++ {
			rec := metrics.NewRecorder(time.Now())
			o := rec.Op("INGESTION")
			o.Record(time.Now(), time.Millisecond, 100, nil)
			warm := rec.Snapshots()
			empty := metrics.NewRecorder(time.Now())
			empty.Op("INGESTION")
			s.Runs = append(s.Runs, &record.Record{ID: fmt.Sprintf("%s%d", label, i), Phases: []record.Phase{{Name: "main", Seconds: 0, Operations: empty.Snapshots(), Warmup: &record.Warmup{Seconds: 5, Operations: warm}}}})
		}
		return s
	}
	cmp := New(mk("a"), []Side{mk("b")}, Options{Alpha: 0.01})
	r := row(t, cmp, "throughput", "INGESTION")
	if ch := r.Contender[0]; ch.OK || r.Baseline.OK || ch.Verdict != NotMeasuredVerdict || !strings.Contains(ch.Note, "its warm-up (5.0 s) took all of it") {
		t.Fatalf("throughput of an unmeasured phase: %+v", ch)
	}
	v := cmp.Decide(10, UntestedFail)
	if v.Status != Undetermined || len(v.Of(NotMeasured)) == 0 {
		t.Fatalf("two unmeasured runs: %v", v.Lines())
	}
	if vals, _ := RunValues(mk("a").Runs[0]); len(vals) != 0 {
		t.Fatalf("history reads values of an unmeasured phase: %v", vals)
	}
}

// TestNothingGatedIsNotAPass: runs with no gated row are inconclusive.
func TestNothingGatedIsNotAPass(t *testing.T) {
	v := New(Side{Label: "a"}, []Side{{Label: "b"}}, Options{Alpha: 0.01}).Decide(10, UntestedFail)
	if v.Status != Undetermined || !strings.Contains(v.Headline, "nothing was tested") {
		t.Fatalf("%v", v.Lines())
	}
}

// TestNearZeroAndDust: a telemetry figure from ~0 has no ratio, and two
// sums that differ in their last bits are no change.
func TestNearZeroAndDust(t *testing.T) {
	m := Metric{Name: "WAL size", Direction: Neutral}
	mk := func(v ...float64) Cell { return Cell{Values: v, Median: stats.Median(v), OK: true} }
	ch := judge(m, mk(2.86e-5, 2.86e-5), mk(2.89, 2.9), Options{}, "")
	if !math.IsNaN(ch.DiffPct) || !math.IsNaN(ch.Ratio) || ch.Note != "from ~0" {
		t.Fatalf("from ~0: %+v", ch)
	}
	ch = judge(m, mk(0.1+0.2, 0.3), mk(0.3, 0.3), Options{}, "")
	if ch.Diff != 0 || ch.DiffPct != 0 || ch.Ratio != 1 {
		t.Fatalf("dust: %+v", ch)
	}
}

// TestDeterministicFiguresGatedByDefault: a 5x footprint fails the gate
// with no --gate-server; an equal one is within; the server's count of
// what was written is compared with what the runs wrote.
func TestDeterministicFiguresGatedByDefault(t *testing.T) {
	mk := func(label string, bpp, counted float64) Side {
		s := latencyRuns(label, 10, 10, 10)
		for _, r := range s.Runs {
			r.ServerMetrics = []record.ServerMetric{{Name: "Bytes per point", Value: bpp, Unit: "bytes"}}
			p := &r.Phases[0]
			p.Operations[0].Operation = "INGESTION"
			p.Server = []telemetry.Source{{Name: "IoTDB DataNode", Series: []telemetry.Series{{Name: "points written", Counter: true, Written: true, Values: []float64{0, counted}}}}}
		}
		return s
	}
	for _, tc := range []struct {
		bpp, counted float64
		status       string
		want         string
	}{
		{0.69, 50, Passed, ""},
		{3.65, 50, Regression, "Gate failed: regression in b: Bytes per point: 0.69 → 3.65 bytes, +428.99%"},
		{0.69, 49, Regression, "Gate failed: regression in b: " + CountedName + ": 1 → 0.98 ratio, -2.00%"},
	} {
		v := New(mk("a", 0.69, 50), []Side{mk("b", tc.bpp, tc.counted)}, Options{Alpha: 0.01}).Decide(10, UntestedFail)
		if v.Status != tc.status || !strings.Contains(v.Headline, tc.want) {
			t.Errorf("%v: %s\n%s", tc, v.Status, strings.Join(v.Lines(), "\n"))
		}
	}
	// Elasticsearch's segments merge after the flush: its size on disk is
	// gated only when named.
	es := func(s Side) Side {
		for _, r := range s.Runs {
			r.Target.DB = "Elasticsearch"
		}
		return s
	}
	base, big := es(mk("a", 0.69, 50)), es(mk("b", 3.65, 50))
	if v := New(base, []Side{big}, Options{Alpha: 0.01}).Decide(10, UntestedFail); v.Status != Passed {
		t.Errorf("Elasticsearch's bytes per point gated by default: %v", v.Lines())
	}
	if v := New(base, []Side{big}, Options{Alpha: 0.01, GateServer: []string{"Bytes per point"}}).Decide(10, UntestedFail); v.Status != Regression {
		t.Errorf("Elasticsearch's bytes per point named: %v", v.Lines())
	}
}

// TestUnevenSidesHaveIntervals: a side with a run less (a damaged record
// left out) still gets its intervals, server and telemetry rows too.
func TestUnevenSidesHaveIntervals(t *testing.T) {
	b, c := latencyRuns("a", 10, 11, 12), latencyRuns("b", 10, 11)
	for _, s := range []Side{b, c} {
		for _, r := range s.Runs {
			r.ServerMetrics = []record.ServerMetric{{Name: "Segment count", Value: 3}}
			r.Phases[0].Server = []telemetry.Source{{Name: "machine", Series: []telemetry.Series{{Name: "CPU user", Counter: true, Values: []float64{0, 1}}}}}
		}
	}
	cmp := New(b, []Side{c}, Options{Alpha: 0.01, Paired: true})
	if cmp.Rows[0].Contender[0].Interval == nil || cmp.TelemetryRows[0].Contender[0].Interval == nil || cmp.ServerRows[0].Contender[0].Interval == nil {
		t.Fatalf("no intervals: %+v", cmp.Rows[0].Contender[0])
	}
}

// TestCannotTellIsNotNoChange: a gated row the test finds no significant
// change in is "~" while the gate proves it within the limit, and "?"
// (cannot tell) where the gate leaves it inconclusive; a row that is
// worse keeps "worse".
func TestCannotTellIsNotNoChange(t *testing.T) {
	base := latencyRuns("a", 10, 12, 8, 11, 9)
	same := latencyRuns("b", 10.2, 12.1, 8.3, 10.8, 9.1) // about +1% ± 15%
	verdict := func(limit float64) string {
		cmp := New(base, []Side{same}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS})
		cmp.Decide(limit, UntestedFail)
		for _, r := range cmp.Rows {
			if r.Key.Metric == "mean latency" {
				return r.Contender[0].Verdict
			}
		}
		return ""
	}
	if got := verdict(10); got != CannotTell {
		t.Errorf("inconclusive at --fail-above 10: verdict %q, want %q", got, CannotTell)
	}
	if got := verdict(60); got != "~" {
		t.Errorf("within at --fail-above 60: verdict %q, want ~", got)
	}
	slow := latencyRuns("b", 20, 21, 19, 20.5, 19.5)
	cmp := New(base, []Side{slow}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS})
	cmp.Decide(10, UntestedFail)
	for _, r := range cmp.Rows {
		if r.Key.Metric == "mean latency" && r.Contender[0].Verdict != "worse" {
			t.Errorf("twice as slow: verdict %q, want worse", r.Contender[0].Verdict)
		}
	}
}

// TestSettleHint: an inconclusive headline ends in the runs a side that
// would likely settle its rows, the most any needs; rows near the limit
// are counted apart, and rows more runs cannot settle (untested) get none.
func TestSettleHint(t *testing.T) {
	open := func(runs ...int) []Judgement {
		var js []Judgement
		for _, r := range runs {
			js = append(js, Judgement{Decision: Inconclusive, Runs: r})
		}
		return js
	}
	for _, tc := range []struct {
		open []Judgement
		want string
	}{
		{open(12, 42, 18), "; about 42 runs a side would likely settle them"},
		{open(12, 0, 18, 0), "; about 18 runs a side would likely settle all but 2, which need more than 100"},
		{open(0), "; more than 100 runs a side would be needed to settle them"},
		{append(open(12), Judgement{Decision: NotTested}), ""},
	} {
		if got := settleHint(tc.open); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.open, got, tc.want)
		}
	}
	v := New(latencyRuns("a", 10, 10.5, 9.5, 10.2, 9.8), []Side{latencyRuns("b", 11.2, 11.7, 10.7, 11.4, 11.0)}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS}).Decide(14, UntestedFail)
	if !strings.Contains(v.Headline, "no regression was found; about ") || !strings.HasSuffix(v.Headline, " runs a side would likely settle them.") {
		t.Errorf("headline %q", v.Headline)
	}
}

// TestWhyMoreRunsWouldNotSettle: a row beyond MaxRunsNeeded says why: a
// change near the limit (12% against 10%, runs steady), or runs that
// spread too widely to be proven within the limit even with no change.
func TestWhyMoreRunsWouldNotSettle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, cont Side
		want       string
	}{
		{"near", latencyRuns("a", 10, 10.5, 9.5, 10.2, 9.8), latencyRuns("b", 11.0, 11.6, 10.4, 11.3, 10.8), "(the change sits near the limit)"},
		{"wide", latencyRuns("a", 10, 40, 5, 25, 8), latencyRuns("b", 30, 6, 12, 45, 9), "(its runs spread too widely for this limit even with no change)"},
	} {
		v := New(tc.base, []Side{tc.cont}, Options{Alpha: 0.01, MinAbsMS: DefaultMinAbsMS}).Decide(10, UntestedFail)
		var line string
		for _, j := range v.Of(Inconclusive) {
			if j.Metric == "mean latency" {
				line = j.Line()
			}
		}
		if !strings.Contains(line, "more than 100 runs a side "+tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, line, tc.want)
		}
	}
}

// TestNoSignForNothing: a change that rounds to zero is +0.00% whatever
// its sign, so that the medians' change and the interval's estimate of a
// deterministic figure read as one.
func TestNoSignForNothing(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-9, 0.004, -0.004} {
		if got := Pct(x); got != "+0.00%" {
			t.Errorf("Pct(%g) = %q, want +0.00%%", x, got)
		}
	}
	if got := Pct(-0.006); got != "-0.01%" {
		t.Errorf("Pct(-0.006) = %q", got)
	}
	if got := ChangeWords(0, &Interval{Lo: -1e-9, Hi: 1e-9, Est: -1e-10}); got != ", +0.00% [+0.00%, +0.00%]" {
		t.Errorf("ChangeWords of nothing: %q", got)
	}
}
