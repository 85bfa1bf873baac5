package report

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/metrics"
)

// Direction says which way a metric is better.
type Direction int

// Metric directions.
const (
	Neutral Direction = iota
	HigherIsBetter
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "neutral"
}

// Metric is one compared quantity. The list below is the single source of
// the metrics compare reports and of their directions.
type Metric struct {
	Name      string
	Unit      string
	Direction Direction
	// Latency marks metrics the noise floor (--min-abs) applies to.
	Latency bool
	// Quantile is the percentile a latency metric reads (100 for the
	// maximum), 0 for the others: the gate's sample rule depends on it.
	Quantile float64
	value    func(op *metrics.Snapshot, seconds float64) (float64, bool)
}

func latency(q float64) func(*metrics.Snapshot, float64) (float64, bool) {
	return func(op *metrics.Snapshot, _ float64) (float64, bool) {
		if op.OKOps == 0 {
			return 0, false // not reported, which is not zero
		}
		return op.Percentile(q), true
	}
}

func serviceTime(q float64) func(*metrics.Snapshot, float64) (float64, bool) {
	return func(op *metrics.Snapshot, _ float64) (float64, bool) { return op.ServicePercentile(q) }
}

// CompareMetrics are the metrics of the Rally layout, in order.
var CompareMetrics = []Metric{
	{Name: "throughput", Unit: "point/s", Direction: HigherIsBetter, value: func(op *metrics.Snapshot, secs float64) (float64, bool) {
		if secs <= 0 {
			return 0, false
		}
		return float64(op.OKPoints) / secs, true
	}},
	{Name: "mean latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, value: func(op *metrics.Snapshot, _ float64) (float64, bool) {
		if op.OKOps == 0 {
			return 0, false
		}
		return op.Latency().Avg, true
	}},
	{Name: "50th percentile latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 50, value: latency(50)},
	{Name: "90th percentile latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 90, value: latency(90)},
	{Name: "99th percentile latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99, value: latency(99)},
	{Name: "99.9th percentile latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99.9, value: latency(99.9)},
	{Name: "max latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 100, value: latency(100)},
	// Service time, reported only by runs with a schedule (TARGET_THROUGHPUT),
	// where latency also holds the wait behind it.
	{Name: "50th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 50, value: serviceTime(50)},
	{Name: "90th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 90, value: serviceTime(90)},
	{Name: "99th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99, value: serviceTime(99)},
	{Name: "99.9th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99.9, value: serviceTime(99.9)},
	{Name: "error rate", Unit: "%", Direction: LowerIsBetter, value: func(op *metrics.Snapshot, _ float64) (float64, bool) {
		n := op.OKOps + op.FailOps
		if n == 0 {
			return 0, false
		}
		return 100 * float64(op.FailOps) / float64(n), true
	}},
	{Name: "ok operations", Unit: "ops", Direction: Neutral, value: func(op *metrics.Snapshot, _ float64) (float64, bool) {
		return float64(op.OKOps), true
	}},
}

// CompareOptions tune the verdicts.
type CompareOptions struct {
	Alpha     float64 // family-wise significance level (Holm), DefaultAlpha
	MinEffect float64 // percent; smaller significant changes are "~"
	MinAbsMS  float64 // latency noise floor in ms: a change of the median smaller than this is not judged
}

// Side is one column group: a label and its runs (repeats).
type Side struct {
	Label string
	Runs  []*Record
}

// Key identifies a compared row: metric, phase group and operation.
type Key struct {
	Metric string
	Phase  string // "main", "ingest", "query round 1", ...
	Round  int
	Op     string
}

// Cell is one side's value of a row: the per-run values and their median.
type Cell struct {
	Values []float64 `json:"values,omitempty"`
	Median float64   `json:"median"`
	OK     bool      `json:"reported"`
	// Fewest is the smallest number of successful operations behind a
	// value, over the runs: the percentile sample rule reads it.
	Fewest int64 `json:"fewest_samples,omitempty"`
}

// Change is a contender cell against the baseline.
type Change struct {
	Cell
	Diff    float64 `json:"diff"`
	DiffPct float64 `json:"diff_pct"` // ±Inf from a zero baseline, NaN when both are 0
	Ratio   float64 `json:"ratio"`    // as DiffPct
	P       float64 `json:"p,omitempty"`
	AdjP    float64 `json:"p_holm,omitempty"` // P adjusted over every tested row of this contender
	Verdict string  `json:"verdict"`          // better, worse, ~, or "" when there is nothing to judge
	Note    string  `json:"note,omitempty"`
	Tested  bool    `json:"tested"`
	// Untestable says why a gated row could not be tested; the gate
	// reports it rather than passing it in silence.
	Untestable string `json:"untestable,omitempty"`
}

// Row is one metric of one operation in one phase.
type Row struct {
	Key       Key
	Metric    Metric
	Baseline  Cell
	Contender []Change
}

// Comparison is the result of comparing a baseline with contenders.
type Comparison struct {
	Baseline   Side
	Contenders []Side
	Rows       []Row
	// ServerRows compare the database's own figures (Rally's node-level
	// metrics): reported with their differences, never judged or gated,
	// since a count or a size that changes is information, not a regression.
	ServerRows []Row
	Options    CompareOptions
	Warnings   []string
}

func phaseKey(p *Phase) string {
	if p.Round > 0 {
		return fmt.Sprintf("%s round %d", p.Name, p.Round)
	}
	return p.Name
}

// sample is one run's value of a row and the successful operations behind it.
type sample struct {
	v float64
	n int64
}

// values extracts every metric of every operation of a record.
func values(rec *Record) (map[Key]sample, []Key) {
	out := map[Key]sample{}
	var order []Key
	for i := range rec.Phases {
		p := &rec.Phases[i]
		for _, op := range p.Operations {
			for _, m := range CompareMetrics {
				v, ok := m.value(op, p.Seconds)
				if !ok {
					continue
				}
				k := Key{Metric: m.Name, Phase: phaseKey(p), Round: p.Round, Op: op.Operation}
				if _, seen := out[k]; !seen {
					order = append(order, k)
				}
				out[k] = sample{v, op.OKOps}
			}
		}
	}
	return out, order
}

// Compare builds the comparison. Runs within a side must share a workload
// fingerprint with the baseline; mismatches are the caller's to refuse.
func Compare(base Side, contenders []Side, opt CompareOptions) *Comparison {
	cmp := &Comparison{Baseline: base, Contenders: contenders, Options: opt}
	type sideVals struct {
		per []map[Key]sample
	}
	collect := func(s Side) (sideVals, []Key) {
		var sv sideVals
		var order []Key
		for _, r := range s.Runs {
			v, o := values(r)
			sv.per = append(sv.per, v)
			order = append(order, o...)
		}
		return sv, order
	}
	bv, order := collect(base)
	var cvs []sideVals
	for _, c := range contenders {
		cv, o := collect(c)
		cvs = append(cvs, cv)
		order = append(order, o...)
	}
	seen := map[Key]bool{}
	var keys []Key
	for _, k := range order {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	metricOf := map[string]Metric{}
	for _, m := range CompareMetrics {
		metricOf[m.Name] = m
	}
	cell := func(sv sideVals, k Key) Cell {
		var c Cell
		for _, per := range sv.per {
			if v, ok := per[k]; ok {
				if len(c.Values) == 0 || v.n < c.Fewest {
					c.Fewest = v.n
				}
				c.Values = append(c.Values, v.v)
			}
		}
		if len(c.Values) > 0 {
			c.OK = true
			c.Median = median(c.Values)
		}
		return c
	}
	mixed := mixedPhases(append([]Side{base}, contenders...))
	for _, k := range keys {
		m := metricOf[k.Metric]
		row := Row{Key: k, Metric: m, Baseline: cell(bv, k)}
		why := ""
		if mixed[k.Phase] && m.Name == "throughput" && k.Op != ingestion {
			why = "not gated: in a phase that also writes, the points a query returns depend on how far the writers got"
		}
		for i := range contenders {
			row.Contender = append(row.Contender, judge(m, row.Baseline, cell(cvs[i], k), opt, why))
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	for i := range contenders {
		decide(cmp.Rows, i, opt)
	}
	// Rows in metric order, then phase, then operation as first seen.
	rank := map[string]int{}
	for i, m := range CompareMetrics {
		rank[m.Name] = i
	}
	sort.SliceStable(cmp.Rows, func(i, j int) bool { return rank[cmp.Rows[i].Key.Metric] < rank[cmp.Rows[j].Key.Metric] })
	cmp.ServerRows = serverRows(base, contenders, opt)
	return cmp
}

// serverRows compares the server metrics of the sides, in the order the
// records list them. A metric a side does not report is "not reported",
// not zero.
func serverRows(base Side, contenders []Side, opt CompareOptions) []Row {
	var order []string
	units := map[string]string{}
	cell := func(s Side, name string) Cell {
		var c Cell
		for _, r := range s.Runs {
			for _, m := range r.ServerMetrics {
				if m.Name == name {
					c.Values = append(c.Values, m.Value)
				}
			}
		}
		if len(c.Values) > 0 {
			c.OK, c.Median = true, median(c.Values)
		}
		return c
	}
	for _, s := range append([]Side{base}, contenders...) {
		for _, r := range s.Runs {
			for _, m := range r.ServerMetrics {
				if _, seen := units[m.Name]; !seen {
					order = append(order, m.Name)
				}
				units[m.Name] = m.Unit
			}
		}
	}
	var rows []Row
	for _, name := range order {
		m := Metric{Name: name, Unit: units[name], Direction: Neutral}
		row := Row{Key: Key{Metric: name, Phase: "server"}, Metric: m, Baseline: cell(base, name)}
		for _, c := range contenders {
			row.Contender = append(row.Contender, judge(m, row.Baseline, cell(c, name), opt, ""))
		}
		rows = append(rows, row)
	}
	return rows
}

// judge compares one contender cell with the baseline: the difference, and
// for a gated row either a decision that needs no test (below the noise
// floor, nothing to compare), a reason it cannot be tested, or Tested with
// the raw p-value, which decide turns into a verdict once every row's p is
// known.
func judge(m Metric, b, c Cell, opt CompareOptions, notGated string) Change {
	ch := Change{Cell: c, DiffPct: math.NaN(), Ratio: math.NaN()}
	// A side without a value has no samples: the rule reads the other
	// side's, so that a contender whose every operation failed is untested,
	// not "too few samples".
	fewest := min(b.Fewest, c.Fewest)
	switch {
	case !b.OK:
		fewest = c.Fewest
	case !c.OK:
		fewest = b.Fewest
	}
	gate, why := gated(m, fewest)
	if notGated != "" {
		gate, why = false, notGated
	}
	switch {
	case !b.OK && !c.OK:
		ch.Note = "not reported"
		return ch
	case !b.OK:
		ch.Note = "missing in the baseline"
		if gate {
			ch.Untestable = "no successful operation in the baseline"
		}
		return ch
	case !c.OK:
		ch.Note = "missing in the contender"
		if gate {
			ch.Untestable = "no successful operation in the contender"
		}
		return ch
	}
	ch.Diff = c.Median - b.Median
	switch {
	case b.Median != 0:
		ch.DiffPct = 100 * ch.Diff / b.Median
		ch.Ratio = c.Median / b.Median
	case ch.Diff != 0:
		// From nothing to something (errors where there were none): an
		// unbounded change, not an unknown one.
		ch.DiffPct = math.Copysign(math.Inf(1), ch.Diff)
		ch.Ratio = math.Inf(1)
	}
	if !gate {
		ch.Note = why
		return ch
	}
	nb, nc := len(b.Values), len(c.Values)
	switch {
	case m.Name == "error rate" && b.Median == 100 && c.Median == 100:
		ch.Untestable = "every operation failed on both sides"
	case m.Latency && opt.MinAbsMS > 0 && math.Abs(ch.Diff) < opt.MinAbsMS:
		ch.Verdict = "~"
		ch.Note = fmt.Sprintf("change below the noise floor (--min-abs %g ms)", opt.MinAbsMS)
	case ch.Diff == 0 && allEqual(b.Values, c.Values):
		ch.Verdict = "~"
		ch.Note = "identical"
	case nb < MinRuns || nc < MinRuns:
		ch.Untestable = fmt.Sprintf("n=%d+%d: a test needs %d runs a side", nb, nc, MinRuns)
	default:
		ch.Tested, ch.P = true, Welch(b.Values, c.Values)
	}
	if ch.Untestable != "" {
		ch.Verdict = Untested
		ch.Note = ch.Untestable
	}
	return ch
}

// Untested is the verdict of a gated row that could not be tested.
const Untested = "untested"

func allEqual(a, b []float64) bool {
	for _, xs := range [][]float64{a, b} {
		for _, x := range xs {
			if x != a[0] {
				return false
			}
		}
	}
	return true
}

// geomeans returns, per metric and contender, the geometric mean of the
// ratios over rows both sides report with positive values.
func (c *Comparison) geomeans() map[string][]struct {
	g float64
	n int
} {
	out := map[string][]struct {
		g float64
		n int
	}{}
	for _, r := range c.Rows {
		if _, ok := out[r.Key.Metric]; !ok {
			out[r.Key.Metric] = make([]struct {
				g float64
				n int
			}, len(c.Contenders))
		}
		for i, ch := range r.Contender {
			if r.Baseline.OK && ch.OK && r.Baseline.Median > 0 && ch.Median > 0 {
				e := &out[r.Key.Metric][i]
				e.g += math.Log(ch.Median / r.Baseline.Median)
				e.n++
			}
		}
	}
	for _, es := range out {
		for i := range es {
			if es[i].n > 0 {
				es[i].g = math.Exp(es[i].g / float64(es[i].n))
			}
		}
	}
	return out
}

// opLabel names an operation with its phase when the phase is not the
// run's only one.
func opLabel(k Key) string {
	if k.Phase == "main" {
		return k.Op
	}
	return k.Op + " [" + k.Phase + "]"
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	a := math.Abs(x)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func pct(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return fmt.Sprintf("%cinf%%", "+-"[boolInt(x < 0)])
	}
	return fmt.Sprintf("%+.2f%%", x)
}

func ratio(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return "inf"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cellText(c Cell) string {
	if !c.OK {
		return "-"
	}
	return num(c.Median)
}

// RallyTables renders the comparison in Rally's layout (Metric, Operation,
// Baseline, Contender, Diff, Unit, Diff %), plus Ratio, Verdict and a note,
// with one column group per contender and a geomean row per metric.
func (c *Comparison) RallyTables() []Table {
	header := []string{"Metric", "Operation", "Baseline (" + c.Baseline.Label + ")"}
	for _, s := range c.Contenders {
		l := s.Label
		header = append(header, "Contender ("+l+")", "Diff", "Unit", "Diff %", "Ratio", "Verdict", "Note")
	}
	t := Table{Title: fmt.Sprintf("Comparison: %s vs %s", c.Baseline.Label, contenderLabels(c.Contenders)), Header: header, LeftColumns: 2}
	g := c.geomeans()
	last := ""
	for _, r := range c.Rows {
		if last != "" && r.Key.Metric != last {
			t.Rows = append(t.Rows, c.geomeanRow(last, g))
		}
		last = r.Key.Metric
		row := []string{r.Key.Metric, opLabel(r.Key), cellText(r.Baseline)}
		for _, ch := range r.Contender {
			diff := "-"
			if r.Baseline.OK && ch.OK {
				diff = num(ch.Diff)
			}
			row = append(row, cellText(ch.Cell), diff, r.Metric.Unit, pct(ch.DiffPct), ratio(ch.Ratio), ch.Verdict, ch.Note)
		}
		t.Rows = append(t.Rows, row)
	}
	if last != "" {
		t.Rows = append(t.Rows, c.geomeanRow(last, g))
	}
	t.Notes = c.notes()
	t.Lead = c.Differences()
	out := []Table{t}
	if len(c.ServerRows) > 0 {
		sh := []string{"Metric", "Baseline (" + c.Baseline.Label + ")"}
		for _, s := range c.Contenders {
			sh = append(sh, "Contender ("+s.Label+")", "Diff", "Unit", "Diff %", "Ratio", "Note")
		}
		st := Table{Title: fmt.Sprintf("Server metrics: %s vs %s", c.Baseline.Label, contenderLabels(c.Contenders)), Header: sh,
			Notes: []string{"Server metrics are the database's own figures (medians over the runs), shown for reading, not judged."}}
		for _, r := range c.ServerRows {
			row := []string{r.Key.Metric, cellText(r.Baseline)}
			for _, ch := range r.Contender {
				diff := "-"
				if r.Baseline.OK && ch.OK {
					diff = num(ch.Diff)
				}
				row = append(row, cellText(ch.Cell), diff, r.Metric.Unit, pct(ch.DiffPct), ratio(ch.Ratio), ch.Note)
			}
			st.Rows = append(st.Rows, row)
		}
		out = append(out, st)
	}
	return out
}

func (c *Comparison) geomeanRow(metric string, g map[string][]struct {
	g float64
	n int
}) []string {
	row := []string{metric, "geomean", ""}
	unit := ""
	for _, m := range CompareMetrics {
		if m.Name == metric {
			unit = m.Unit
		}
	}
	for i := range c.Contenders {
		e := g[metric][i]
		if e.n == 0 {
			row = append(row, "", "", unit, "n/a", "n/a", "", "no rows on both sides")
			continue
		}
		row = append(row, "", "", unit, pct(100*(e.g-1)), ratio(e.g), "", fmt.Sprintf("over %d rows; a summary, not a test", e.n))
	}
	return row
}

func (c *Comparison) notes() []string {
	n := []string{
		fmt.Sprintf("Verdicts: Welch's t-test, two-sided, on the per-run values of each side (medians shown); p(Holm) adjusts p over every tested row of a contender (Holm–Bonferroni: the chance of any false alarm stays below α=%g); ~ = no significant change, a change below --min-effect %g%%, or a latency change below the noise floor (--min-abs %g ms); Ratio = contender / baseline.", c.Options.Alpha, c.Options.MinEffect, c.Options.MinAbsMS),
		GateRules,
		"Directions: throughput higher is better; latency and error rate lower is better; ok operations neutral.",
	}
	for _, r := range c.Rows {
		for _, ch := range r.Contender {
			if ch.Untestable != "" {
				n = append(n, "\""+Untested+"\": a gated row that could not be tested (the reason is in the note); bench compare --fail-above then exits 4 rather than pass in silence, unless --untested=ratio judges such rows by their ratio.")
				return append(n, c.Warnings...)
			}
		}
	}
	return append(n, c.Warnings...)
}

// GateRules says which rows the gate judges, in the words of the reports
// and of bench compare --help.
var GateRules = fmt.Sprintf("Gated rows: throughput (of queries only in phases that do not also write), mean latency and error rate of every operation and round; latency only where every run of both sides has at least 10/(1−q) successful operations: %d for the mean, %d for the median (latency and service time), %d for P90, %d for P99, %d for P99.9; the maximum never; a test needs %d runs a side (5 recommended).",
	tailSamples, neededSamples(50), neededSamples(90), neededSamples(99), neededSamples(99.9), MinRuns)

func contenderLabels(ss []Side) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label)
	}
	return strings.Join(out, ", ")
}

var shortLabelRE = regexp.MustCompile(`^(.+)-[0-9a-f]{6,40}$`)

// ShortLabel drops a trailing commit hash: master-a2b704d -> master.
func ShortLabel(l string) string {
	if m := shortLabelRE.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	return l
}

// PRTables renders the PR-report layout of the IoTDB weekly report: one row
// per operation or query variant (mean latency, ms; ingestion throughput
// first), and per round the columns baseline, contender, contender/baseline.
func (c *Comparison) PRTables() []Table {
	// Column groups: the query rounds, or the run's phases when it has none.
	var groups []string
	seenG := map[string]bool{}
	hasRounds := false
	for _, r := range c.Rows {
		if r.Key.Round > 0 {
			hasRounds = true
		}
	}
	for _, r := range c.Rows {
		g := r.Key.Phase
		if hasRounds && r.Key.Round == 0 {
			continue
		}
		if !seenG[g] {
			seenG[g] = true
			groups = append(groups, g)
		}
	}
	bl := c.Baseline.Label
	header := []string{"Operation"}
	title := func(g string) string { return strings.TrimPrefix(g, "query ") }
	for _, g := range groups {
		for _, s := range c.Contenders {
			if len(c.Contenders) == 1 || s.Label == c.Contenders[0].Label {
				header = append(header, title(g)+" "+bl)
			}
			header = append(header, title(g)+" "+s.Label, title(g)+" "+ShortLabel(s.Label)+"/"+ShortLabel(bl))
		}
	}
	header = append(header, "Note")
	t := Table{Title: fmt.Sprintf("PR report: %s vs %s (mean latency in ms unless the row says otherwise)", bl, contenderLabels(c.Contenders)), Header: header, Lead: c.Differences()}
	// Row order: ingestion throughput, INGESTION latency, then operations as first seen.
	var ops []string
	seenOp := map[string]bool{}
	for _, r := range c.Rows {
		if r.Key.Metric == "mean latency" && !seenOp[r.Key.Op] {
			seenOp[r.Key.Op] = true
			ops = append(ops, r.Key.Op)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i] == "INGESTION" && ops[j] != "INGESTION" })
	type line struct {
		label, metric, op string
	}
	var lines []line
	if seenOp["INGESTION"] {
		lines = append(lines, line{"throughput (point/s)", "throughput", "INGESTION"})
	}
	for _, op := range ops {
		lines = append(lines, line{op, "mean latency", op})
	}
	untested := map[string]bool{}
	for _, ln := range lines {
		row := []string{ln.label}
		var notes []string
		for gi, g := range groups {
			r, ok := findRow(ln.metric, ln.op, g, c.Rows)
			if !ok && gi == 0 {
				// Ingestion lives in its own phase before the query rounds.
				r, ok = findRowAnyPhase(ln.metric, ln.op, c.Rows)
			}
			for ci := range c.Contenders {
				if ci == 0 {
					row = append(row, cellOr(r, ok, -1))
				}
				row = append(row, cellOr(r, ok, ci))
				if ok && r.Baseline.OK && r.Contender[ci].OK {
					ch := r.Contender[ci]
					row = append(row, ratio(ch.Ratio)+verdictMark(ch))
					switch {
					case ch.Untestable != "":
						untested[ch.Untestable] = true
					case ch.Tested || ch.Verdict != "":
						notes = append(notes, fmt.Sprintf("%s: %s", title(g), noteOf(ch)))
					}
				} else {
					row = append(row, "n/a")
				}
			}
		}
		row = append(row, strings.Join(dedupe(notes), "; "))
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Ratios are contender/baseline; marked ↑ significantly better, ↓ significantly worse, ~ no significant change " +
		fmt.Sprintf("(Welch's t-test with Holm's correction over every tested row, family-wise α=%g; --min-effect %g%%; latency changes below --min-abs %g ms not judged).", c.Options.Alpha, c.Options.MinEffect, c.Options.MinAbsMS), GateRules}
	if hasRounds && seenOp["INGESTION"] {
		t.Notes[0] += " The ingestion rows come from the ingest phase before the query rounds."
	}
	if len(untested) > 0 {
		var ns []string
		for n := range untested {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		t.Notes = append(t.Notes, fmt.Sprintf("Unmarked ratios are untested (%s): until each side has %d or more runs (bench run --repeat 5), a ratio is one sample, not a verdict.", strings.Join(ns, "; "), MinRuns))
	}
	t.Notes = append(t.Notes, c.Warnings...)
	return []Table{t}
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func noteOf(ch Change) string {
	if ch.Verdict == "" || ch.Verdict == "~" || ch.Verdict == Untested {
		return ch.Note
	}
	return ch.Verdict + " (" + ch.Note + ")"
}

func verdictMark(ch Change) string {
	switch ch.Verdict {
	case "better":
		return " ↑"
	case "worse":
		return " ↓"
	case "~":
		return " ~"
	}
	return ""
}

func findRow(metric, op, phase string, rows []Row) (Row, bool) {
	for _, r := range rows {
		if r.Key.Metric == metric && r.Key.Op == op && r.Key.Phase == phase {
			return r, true
		}
	}
	return Row{}, false
}

func findRowAnyPhase(metric, op string, rows []Row) (Row, bool) {
	for _, r := range rows {
		if r.Key.Metric == metric && r.Key.Op == op {
			return r, true
		}
	}
	return Row{}, false
}

func cellOr(r Row, ok bool, contender int) string {
	if !ok {
		return "-"
	}
	if contender < 0 {
		return cellText(r.Baseline)
	}
	return cellText(r.Contender[contender].Cell)
}

// JSON is the comparison in machine-readable form.
type comparisonJSON struct {
	Baseline   sideJSON   `json:"baseline"`
	Contenders []sideJSON `json:"contenders"`
	Alpha      float64    `json:"alpha"`
	MinEffect  float64    `json:"min_effect_pct"`
	MinAbsMS   float64    `json:"min_abs_ms,omitempty"`
	// Differences are what differs between the sides besides the build
	// under test (database, tsbench build, workload, host).
	Differences []string  `json:"differences,omitempty"`
	Rows        []rowJSON `json:"rows"`
	Warnings    []string  `json:"warnings,omitempty"`
}

type sideJSON struct {
	Label string   `json:"label"`
	Runs  []string `json:"runs"`
}

type rowJSON struct {
	Metric     string       `json:"metric"`
	Unit       string       `json:"unit"`
	Direction  string       `json:"direction"`
	Phase      string       `json:"phase"`
	Operation  string       `json:"operation"`
	Baseline   Cell         `json:"baseline"`
	Contenders []changeJSON `json:"contenders"`
}

type changeJSON struct {
	Cell
	Diff    *float64 `json:"diff,omitempty"`
	DiffPct *float64 `json:"diff_pct,omitempty"`
	Ratio   *float64 `json:"ratio,omitempty"`
	P       *float64 `json:"p,omitempty"`
	AdjP    *float64 `json:"p_holm,omitempty"`
	Verdict string   `json:"verdict,omitempty"`
	Note    string   `json:"note,omitempty"`
	// Untestable is why a gated row could not be tested.
	Untestable string `json:"untestable,omitempty"`
}

func finite(x float64, ok bool) *float64 {
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// JSON returns the comparison as a JSON-encodable value (n/a values are
// omitted rather than encoded as 0).
func (c *Comparison) JSON() any {
	side := func(s Side) sideJSON {
		j := sideJSON{Label: s.Label}
		for _, r := range s.Runs {
			j.Runs = append(j.Runs, r.ID)
		}
		return j
	}
	out := comparisonJSON{Baseline: side(c.Baseline), Alpha: c.Options.Alpha, MinEffect: c.Options.MinEffect, MinAbsMS: c.Options.MinAbsMS, Differences: c.Differences(), Warnings: c.Warnings}
	for _, s := range c.Contenders {
		out.Contenders = append(out.Contenders, side(s))
	}
	for _, r := range append(append([]Row(nil), c.Rows...), c.ServerRows...) {
		rj := rowJSON{Metric: r.Key.Metric, Unit: r.Metric.Unit, Direction: r.Metric.Direction.String(), Phase: r.Key.Phase, Operation: r.Key.Op, Baseline: r.Baseline}
		for _, ch := range r.Contender {
			both := r.Baseline.OK && ch.OK
			rj.Contenders = append(rj.Contenders, changeJSON{Cell: ch.Cell, Diff: finite(ch.Diff, both), DiffPct: finite(ch.DiffPct, both), Ratio: finite(ch.Ratio, both), P: finite(ch.P, ch.Tested), AdjP: finite(ch.AdjP, ch.Tested), Verdict: ch.Verdict, Note: ch.Note, Untestable: ch.Untestable})
		}
		out.Rows = append(out.Rows, rj)
	}
	return out
}

// ingestion is the runner's name of the write operation.
const ingestion = "INGESTION"

// mixedPhases are the phases (by key) in which some run both wrote and
// queried: there a query's result, and so its points per second, depends
// on how much the writers had written when it ran, not only on the database.
func mixedPhases(sides []Side) map[string]bool {
	out := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.Runs {
			for i := range r.Phases {
				p := &r.Phases[i]
				writes, queries := false, false
				for _, op := range p.Operations {
					if op.OKOps+op.FailOps == 0 {
						continue
					}
					if op.Operation == ingestion {
						writes = true
					} else {
						queries = true
					}
				}
				if writes && queries {
					out[phaseKey(p)] = true
				}
			}
		}
	}
	return out
}
