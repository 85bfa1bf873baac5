// Package compare judges runs against runs: each metric's per-run values
// and medians, Welch's test with Holm's correction over every tested row,
// every row's confidence interval, the samples a row needs to be judged,
// the gate's verdict on --fail-above (worse, within or inconclusive, row by
// row and overall), and the refusals of runs that do not compare. It reads
// records and writes nothing; package report lays its results out.
package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
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
	// service marks a service-time metric, which a document database's
	// run without a schedule reports as its latency (Rally's rule).
	service bool
	// info says why a metric is shown and never gated.
	info string
	// Stat says what a server telemetry row's value is: a counter's
	// "total" over the phases, a gauge's "mean".
	Stat string
}

const windowsInfo = "not gated: a one-second window is one second of a shared machine"

// docWindows reads a figure of the one-second windows of a document
// database's writes in documents/s: each document holds the same number
// of points.
func docWindows(pick func(metrics.Throughput) float64) func(*metrics.Snapshot, float64) (float64, bool) {
	return func(op *metrics.Snapshot, secs float64) (float64, bool) {
		if secs <= 0 || op.OKDocs == 0 || op.OKPoints == 0 {
			return 0, false
		}
		w := op.WindowThroughput(time.Duration(secs * float64(time.Second)))
		if w.Windows == 0 {
			return 0, false
		}
		return pick(w) * float64(op.OKDocs) / float64(op.OKPoints), true
	}
}

// equalToLatency is the note of a service time that is the latency: the
// run had no schedule, so no request waited behind one.
const equalToLatency = "not gated: equal to latency (no TARGET_THROUGHPUT schedule, so no wait)"

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

// Metrics are the compared metrics, in the order reports list them.
var Metrics = []Metric{
	{Name: "throughput", Unit: "point/s", Direction: HigherIsBetter, value: func(op *metrics.Snapshot, secs float64) (float64, bool) {
		if secs <= 0 {
			return 0, false
		}
		return float64(op.OKPoints) / secs, true
	}},
	// Document databases (Elasticsearch) count their rows as documents and
	// the bytes of their bulk bodies: Rally's units, beside points/s.
	{Name: "document throughput", Unit: "docs/s", Direction: HigherIsBetter, value: func(op *metrics.Snapshot, secs float64) (float64, bool) {
		if secs <= 0 || op.OKDocs == 0 {
			return 0, false
		}
		return float64(op.OKDocs) / secs, true
	}},
	{Name: "data throughput", Unit: "MB/s", Direction: HigherIsBetter, value: func(op *metrics.Snapshot, secs float64) (float64, bool) {
		if secs <= 0 || op.OKBytes == 0 {
			return 0, false
		}
		return float64(op.OKBytes) / (1 << 20) / secs, true
	}},
	// Rally's min, median and max throughput of a task, over its
	// one-second windows: information, not gated (one window is one
	// second of a shared machine).
	{Name: "min document throughput", Unit: "docs/s", Direction: HigherIsBetter, value: docWindows(func(w metrics.Throughput) float64 { return w.Min }), info: windowsInfo},
	{Name: "median document throughput", Unit: "docs/s", Direction: HigherIsBetter, value: docWindows(func(w metrics.Throughput) float64 { return w.Median }), info: windowsInfo},
	{Name: "max document throughput", Unit: "docs/s", Direction: HigherIsBetter, value: docWindows(func(w metrics.Throughput) float64 { return w.Max }), info: windowsInfo},
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
	{Name: "99.99th percentile latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99.99, value: latency(99.99)},
	{Name: "max latency", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 100, value: latency(100)},
	// Service time, reported by runs with a schedule (TARGET_THROUGHPUT),
	// where latency also holds the wait behind it; for document databases
	// always, as Rally reports it, equal to latency without a schedule.
	{Name: "50th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 50, value: serviceTime(50), service: true},
	{Name: "90th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 90, value: serviceTime(90), service: true},
	{Name: "99th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99, value: serviceTime(99), service: true},
	{Name: "99.9th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99.9, value: serviceTime(99.9), service: true},
	{Name: "99.99th percentile service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 99.99, value: serviceTime(99.99), service: true},
	{Name: "max service time", Unit: "ms", Direction: LowerIsBetter, Latency: true, Quantile: 100, value: serviceTime(100), service: true},
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

// Options tune the verdicts.
type Options struct {
	Alpha     float64 // family-wise significance level (Holm), DefaultAlpha
	MinEffect float64 // percent; smaller significant changes are "~"
	MinAbsMS  float64 // latency noise floor in ms: a change of the median smaller than this is not judged
	// Paired tests each contender run against the baseline run of its
	// block (runs of bench routine) on log-ratios; rows whose runs do not
	// pair are tested unpaired.
	Paired bool
	// GateServer names server metrics or telemetry figures (process CPU)
	// that the gate fails when the contender's is larger by more than
	// --fail-above; DeterministicFigures are gated without being named.
	GateServer []string
	// Confidence is the two-sided level of the intervals (DefaultConfidence
	// when 0); their worse end is the bound a row is proven within.
	Confidence float64
}

// Side is one column group: a label and its runs (repeats).
type Side struct {
	Label string
	Runs  []*record.Record
}

// Key identifies a compared row: metric, phase group and operation.
type Key struct {
	Metric string `json:"metric"`
	Phase  string `json:"phase"` // "main", "ingest", "query round 1", ...
	Round  int    `json:"round"`
	Op     string `json:"operation"`
}

// Cell is one side's value of a row: the per-run values and their median.
type Cell struct {
	Values []float64 `json:"values,omitempty"`
	Median float64   `json:"median"`
	OK     bool      `json:"reported"`
	// Fewest is the smallest number of successful operations behind a
	// value, over the runs: the percentile sample rule reads it.
	Fewest int64 `json:"fewest_samples,omitempty"`
	// runs are the positions in the side's runs of Values, for pairing.
	runs []int
	// procs are the server processes Values were measured on
	// (record.Routine.Process, 0 where not recorded): a routine that
	// restarted its servers is tested process by process.
	procs []int
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
	// Paired says P is a paired test's, within the routine's blocks.
	Paired bool `json:"paired,omitempty"`
	// Processes is the server processes a side's runs were grouped by,
	// each process's mean one sample of the test and the interval, where
	// the routine restarted its servers (--restart-every); 0 where every
	// run was a sample of its own.
	Processes int `json:"processes,omitempty"`
	// Gated says the gate judges this row (Decide).
	Gated bool `json:"gated,omitempty"`
	// Interval is the change's confidence interval, where each side has
	// two values or more.
	Interval *Interval `json:"interval,omitempty"`
	// Unmeasured says why a row's phase was not measured on a side (its
	// warm-up took all of it): never 0, and never a pass.
	Unmeasured string `json:"not_measured,omitempty"`
	est        estimate
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
	// TelemetryRows compare the server telemetry sampled over the phases
	// (the machine, the server's processes, the database's own sources),
	// per phase group, source and figure; never judged either.
	TelemetryRows []Row
	Options       Options
	Warnings      []string
	// Unpaired says why --paired runs could not be tested in pairs (they
	// are tested unpaired): the method's fact for the report, the
	// warning for the command's stderr.
	Unpaired string
	// Verdict is the gate's, once Decide has run (--fail-above).
	Verdict *Verdict
	// Sequential says, for a routine that stopped when it knew (bench
	// routine --budget), where it stopped, why, and the levels it spent
	// (Options.AtLook); a note of every report.
	Sequential string
}

// sample is one run's value of a row and the successful operations behind it.
type sample struct {
	v float64
	n int64
}

// values extracts every metric of every operation of a record; asLatency
// gets the service-time keys a document database's run without a schedule
// reported as the latency.
func values(rec *record.Record, asLatency map[Key]bool, unmeasured map[Key]string) (map[Key]sample, []Key) {
	out := map[Key]sample{}
	var order []Key
	for i := range rec.Phases {
		p := &rec.Phases[i]
		if p.Unmeasured() {
			// Its rows are there, with no value: not measured, not 0.
			for _, op := range p.Warmup.Operations {
				for _, m := range Metrics {
					if _, ok := m.value(op, p.Warmup.Seconds); !ok || !unmeasurable(m) {
						continue
					}
					k := Key{Metric: m.Name, Phase: p.Group(), Round: p.Round, Op: op.Operation}
					if unmeasured != nil {
						unmeasured[k] = fmt.Sprintf("%s was not measured in run %s: its warm-up (%.1f s) took all of it", p.Group(), rec.ID, p.Warmup.Seconds)
						order = append(order, k)
					}
				}
			}
			continue
		}
		for _, op := range p.Operations {
			for _, m := range Metrics {
				v, ok := m.value(op, p.Seconds)
				if !ok && m.service && rec.Target.Documents && op.OKOps > 0 && op.ServiceHistogram == "" {
					v, ok = op.Percentile(m.Quantile), true
					asLatency[Key{Metric: m.Name, Phase: p.Group(), Round: p.Round, Op: op.Operation}] = true
				}
				if !ok {
					continue
				}
				k := Key{Metric: m.Name, Phase: p.Group(), Round: p.Round, Op: op.Operation}
				if _, seen := out[k]; !seen {
					order = append(order, k)
				}
				out[k] = sample{v, op.OKOps}
			}
		}
	}
	return out, order
}

// unmeasurable are the metrics a phase that was not measured gates: those
// the gate reads without a sample rule.
func unmeasurable(m Metric) bool {
	return m.Direction != Neutral && m.Quantile == 0 && m.info == "" && !m.service
}

// New builds the comparison. Runs within a side must share a workload
// fingerprint with the baseline; Admit refuses those that do not.
func New(base Side, contenders []Side, opt Options) *Comparison {
	var unpaired string
	if opt.Paired {
		sides, why := pairable(append([]Side{base}, contenders...))
		if why != "" {
			opt.Paired, unpaired = false, why
		} else {
			base, contenders = sides[0], sides[1:]
		}
	}
	cmp := &Comparison{Baseline: base, Contenders: contenders, Options: opt, Unpaired: unpaired}
	type sideVals struct {
		per   []map[Key]sample
		procs []int
	}
	asLatency := map[Key]bool{}
	unmeasured := map[Key]string{}
	collect := func(s Side) (sideVals, []Key) {
		var sv sideVals
		var order []Key
		for _, r := range s.Runs {
			v, o := values(r, asLatency, unmeasured)
			sv.per = append(sv.per, v)
			proc := 0
			if r.Routine != nil {
				proc = r.Routine.Process
			}
			sv.procs = append(sv.procs, proc)
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
	for _, m := range Metrics {
		metricOf[m.Name] = m
	}
	cell := func(sv sideVals, k Key) Cell {
		var c Cell
		for i, per := range sv.per {
			if v, ok := per[k]; ok {
				c.runs = append(c.runs, i)
				c.procs = append(c.procs, sv.procs[i])
				if len(c.Values) == 0 || v.n < c.Fewest {
					c.Fewest = v.n
				}
				c.Values = append(c.Values, v.v)
			}
		}
		if len(c.Values) > 0 {
			c.OK = true
			c.Median = stats.Median(c.Values)
		}
		return c
	}
	mixed := mixedPhases(append([]Side{base}, contenders...))
	for _, k := range keys {
		m := metricOf[k.Metric]
		row := Row{Key: k, Metric: m, Baseline: cell(bv, k)}
		why := ""
		if mixed[k.Phase] && m.Name == "throughput" && k.Op != config.Ingestion {
			why = "not gated: in a phase that also writes, the points a query returns depend on how far the writers got"
		}
		if m.info != "" {
			why = m.info
		}
		if asLatency[k] {
			// Gated, it would test the latency row's samples twice.
			why = equalToLatency
		}
		for i := range contenders {
			ch := judge(m, row.Baseline, cell(cvs[i], k), opt, why)
			if u, ok := unmeasured[k]; ok {
				ch.Unmeasured, ch.Gated = u, true
				ch.Verdict, ch.Note = NotMeasuredVerdict, u
			}
			row.Contender = append(row.Contender, ch)
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	for i := range contenders {
		decide(cmp.Rows, i, opt)
	}
	// Rows in metric order, then phase, then operation as first seen.
	rank := map[string]int{}
	for i, m := range Metrics {
		rank[m.Name] = i
	}
	sort.SliceStable(cmp.Rows, func(i, j int) bool { return rank[cmp.Rows[i].Key.Metric] < rank[cmp.Rows[j].Key.Metric] })
	cmp.ServerRows = serverRows(base, contenders, opt)
	cmp.TelemetryRows = telemetryRows(base, contenders, opt)
	return cmp
}

// serverRows compares the server metrics of the sides, in the order the
// records list them. A metric a side does not report is "not reported",
// not zero.
func serverRows(base Side, contenders []Side, opt Options) []Row {
	var order []string
	units := map[string]string{}
	cell := func(s Side, name string) Cell {
		var c Cell
		for _, r := range s.Runs {
			for _, m := range serverMetrics(r) {
				if m.Name == name && !m.NotReported {
					c.Values = append(c.Values, m.Value)
				}
			}
		}
		if len(c.Values) > 0 {
			c.OK, c.Median = true, stats.Median(c.Values)
		}
		return c
	}
	for _, s := range append([]Side{base}, contenders...) {
		for _, r := range s.Runs {
			for _, m := range serverMetrics(r) {
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

// CountedName is the server figure of what the server counted as written
// (IoTDB's points in, Elasticsearch's documents indexed: telemetry series
// marked Written) per point or document the run wrote: 1 on a single node
// that stored every write once, the replication factor on a cluster.
const CountedName = "Counted by the server per point written"

// serverMetrics are a run's server metrics and the figures compare derives
// from its telemetry (CountedName).
func serverMetrics(r *record.Record) []record.ServerMetric {
	var counted, written float64
	seen := false
	for i := range r.Phases {
		p := &r.Phases[i]
		for _, src := range p.Server {
			for _, se := range src.Series {
				if se.Written && se.Counter {
					seen = true
					for _, v := range se.Values {
						counted += v
					}
				}
			}
		}
		for _, op := range p.AllOperations() {
			if op.Operation != config.Ingestion {
				continue
			}
			if r.Target.Documents {
				written += float64(op.OKDocs)
			} else {
				written += float64(op.OKPoints)
			}
		}
	}
	if !seen || written == 0 {
		return r.ServerMetrics
	}
	return append(slices.Clone(r.ServerMetrics), record.ServerMetric{Name: CountedName, Value: counted / written, Unit: "ratio"})
}

// judge compares one contender cell with the baseline: the difference, and
// for a gated row either a decision that needs no test (below the noise
// floor, nothing to compare), a reason it cannot be tested, or Tested with
// the raw p-value, which decide turns into a verdict once every row's p is
// known.
func judge(m Metric, b, c Cell, opt Options, notGated string) Change {
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
	ch.Gated = gate
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
	scale := math.Max(math.Abs(b.Median), math.Abs(c.Median))
	switch {
	case math.Abs(ch.Diff) <= 1e-9*scale:
		// Floating-point dust (3.47e-18 s between two sums of one
		// figure): no change.
		ch.Diff, ch.DiffPct, ch.Ratio = 0, 0, 1
		if b.Median == 0 {
			ch.DiffPct, ch.Ratio = math.NaN(), math.NaN()
		}
	case b.Median != 0 && (m.Direction != Neutral || math.Abs(b.Median) > nearZero*scale):
		ch.DiffPct = 100 * ch.Diff / b.Median
		ch.Ratio = c.Median / b.Median
	case m.Direction == Neutral:
		// From ~0 (a WAL of 2.86e-05 MiB to 2.89 MiB): a ratio of 10^5
		// says nothing the two values do not.
		ch.Note = "from ~0"
	default:
		// From nothing to something (errors where there were none): an
		// unbounded change, not an unknown one.
		ch.DiffPct = math.Copysign(math.Inf(1), ch.Diff)
		ch.Ratio = math.Inf(1)
	}
	ch.est = estimateOf(b, c, opt.Paired)
	ch.Interval = ch.est.interval(opt.confidence())
	ch.Processes = ch.est.processes
	if !gate {
		if ch.Note == "" {
			ch.Note = why
		}
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
		ch.Tested, ch.P = true, stats.Welch(b.Values, c.Values)
		if d, ok := logRatios(b, c); ok && opt.Paired {
			ch.P, ch.Paired = stats.PairedP(d), true
		}
		if ch.est.processes > 0 {
			// The same units as the interval: a process's mean.
			ch.P = ch.est.p()
		}
	}
	if ch.Untestable != "" {
		ch.Verdict = Untested
		ch.Note = ch.Untestable
	}
	return ch
}

// nearZero is how small a baseline may be, against the larger of the two
// values, before a ratio from it means nothing: "from ~0".
const nearZero = 1e-3

// Untested is the verdict of a gated row that could not be tested.
const Untested = "untested"

// CannotTell is the verdict of a gated row the gate left inconclusive
// that the test found no significant change in ("~" before the gate):
// "no significant change" would say the runs saw none, when they could
// not tell.
const CannotTell = "?"

// NotMeasuredVerdict is the verdict of a row whose phase a side did not
// measure.
const NotMeasuredVerdict = "not measured"

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

// Geomean is the geometric mean of a metric's ratios (contender /
// baseline) over the Rows that both sides report with positive values.
type Geomean struct {
	Ratio float64
	Rows  int
}

// Geomeans returns, per metric and contender, the geometric mean of the
// ratios over the rows both sides report with positive values: a summary,
// not a test.
func (c *Comparison) Geomeans() map[string][]Geomean {
	out := map[string][]Geomean{}
	for _, r := range c.Rows {
		if _, ok := out[r.Key.Metric]; !ok {
			out[r.Key.Metric] = make([]Geomean, len(c.Contenders))
		}
		for i, ch := range r.Contender {
			if r.Baseline.OK && ch.OK && r.Baseline.Median > 0 && ch.Median > 0 {
				e := &out[r.Key.Metric][i]
				e.Ratio += math.Log(ch.Median / r.Baseline.Median)
				e.Rows++
			}
		}
	}
	for _, es := range out {
		for i := range es {
			if es[i].Rows > 0 {
				es[i].Ratio = math.Exp(es[i].Ratio / float64(es[i].Rows))
			}
		}
	}
	return out
}

// Pct writes a change in percent with its sign: +12.34%, -inf%, n/a.
func Pct(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return fmt.Sprintf("%cinf%%", "+-"[boolInt(x < 0)])
	case math.Abs(x) < 0.005:
		// What rounds to zero is +0.00%, never -0.00%: a sign printed for
		// nothing made a deterministic figure's line read "(medians:
		// +0.00%), estimated -0.00%" as if the two differed.
		return "+0.00%"
	}
	return fmt.Sprintf("%+.2f%%", x)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// GateRules says which rows the gate judges, in the words of the reports
// and of bench compare --help.
var GateRules = fmt.Sprintf("Gated rows: throughput (of queries only in phases that do not also write), mean latency and error rate of every operation and round; latency only where every run of both sides has at least 10/(1−q) successful operations: %d for the mean, %d for the median (latency and service time), %d for P90, %d for P99, %d for P99.9; the maximum never; a test needs %d runs a side (5 recommended).",
	tailSamples, neededSamples(50), neededSamples(90), neededSamples(99), neededSamples(99.9), MinRuns)

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
					if op.Operation == config.Ingestion {
						writes = true
					} else {
						queries = true
					}
				}
				if writes && queries {
					out[p.Group()] = true
				}
			}
		}
	}
	return out
}

// RunValues is a run's value of every compared metric of every operation
// and phase group, as compare reads them, in the order the run has them:
// what bench history lines up over runs.
func RunValues(rec *record.Record) (map[Key]float64, []Key) {
	vals, order := values(rec, map[Key]bool{}, nil)
	out := make(map[Key]float64, len(vals))
	for k, s := range vals {
		out[k] = s.v
	}
	return out, order
}

// MetricNamed is the compared metric of that name.
func MetricNamed(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}
