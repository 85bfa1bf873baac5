package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
	"github.com/tsbench/tsbench/telemetry"
)

// telemetryKey names a figure of a source over a phase group.
type telemetryKey struct{ group, source, figure string }

type telemetryValue struct {
	sum     float64
	n       int
	counter bool
	unit    string
}

// runTelemetry is a run's server telemetry summed up per phase group (the
// ingest, each query round, the mixed phase), source and figure: a
// counter's total over the group's phases (the work the server did for the
// same workload), a gauge's mean over their samples.
func runTelemetry(rec *record.Record) (map[telemetryKey]telemetryValue, []telemetryKey) {
	out := map[telemetryKey]telemetryValue{}
	var order []telemetryKey
	for i := range rec.Phases {
		p := &rec.Phases[i]
		kinds := telemetry.Kinds(p.Server)
		for j, src := range p.Server {
			for _, se := range src.Series {
				if len(se.Values) == 0 {
					continue
				}
				k := telemetryKey{p.Group(), kinds[j], se.Name}
				v, seen := out[k]
				if !seen {
					order = append(order, k)
					v = telemetryValue{counter: se.Counter, unit: se.Unit}
				}
				for _, x := range se.Values {
					v.sum += x
				}
				v.n += len(se.Values)
				out[k] = v
			}
		}
	}
	return out, order
}

func (v telemetryValue) value() float64 {
	if v.counter {
		return v.sum
	}
	return v.sum / float64(v.n)
}

// TelemetryStat says what a telemetry row's value is: a counter's total
// over the phases, a gauge's mean.
func TelemetryStat(counter bool) string {
	if counter {
		return "total"
	}
	return "mean"
}

// telemetryRows compares the sides' server telemetry, row by row in the
// order the runs list them: medians over the runs of each side. A figure a
// side's runs did not sample is "not reported", never 0. Not judged: a
// server that works differently is information; GateServer gates chosen
// figures.
func telemetryRows(base Side, contenders []Side, opt Options) []Row {
	type side struct {
		runs []map[telemetryKey]telemetryValue
	}
	var order []telemetryKey
	seen := map[telemetryKey]telemetryValue{}
	read := func(s Side) side {
		var out side
		for _, r := range s.Runs {
			vals, o := runTelemetry(r)
			out.runs = append(out.runs, vals)
			for _, k := range o {
				if _, ok := seen[k]; !ok {
					order = append(order, k)
					seen[k] = vals[k]
				}
			}
		}
		return out
	}
	b := read(base)
	var cs []side
	for _, c := range contenders {
		cs = append(cs, read(c))
	}
	cell := func(s side, k telemetryKey) Cell {
		var c Cell
		for _, vals := range s.runs {
			if v, ok := vals[k]; ok {
				c.Values = append(c.Values, v.value())
			}
		}
		if len(c.Values) > 0 {
			c.OK, c.Median = true, stats.Median(c.Values)
		}
		return c
	}
	var rows []Row
	for _, k := range order {
		v := seen[k]
		m := Metric{Name: k.figure, Unit: v.unit, Direction: Neutral, Stat: TelemetryStat(v.counter)}
		row := Row{Key: Key{Metric: k.figure, Phase: k.group, Op: k.source}, Metric: m, Baseline: cell(b, k)}
		for _, c := range cs {
			row.Contender = append(row.Contender, judge(m, row.Baseline, cell(c, k), opt, ""))
		}
		rows = append(rows, row)
	}
	return rows
}

// Deterministic is a server figure that the same workload reproduces
// run after run (the data's size on disk, what the server counted), so that
// a change beyond its A/A spread is the build's, not the machine's: gated
// by default, by its median ratio against a threshold of its own.
type Deterministic struct {
	Name string
	// Threshold is the change in percent beyond which the figure fails
	// the gate: a margin over its largest A/A deviation, measured with
	// tools/deterministic-spread (docs/weekly-regression.md).
	Threshold float64
	// TwoSided fails a change either way (a count that must match);
	// otherwise only a larger figure fails.
	TwoSided bool
	// Except are the databases whose figure is not deterministic, and why:
	// there it is gated only when --gate-server names it.
	Except map[string]string
}

// merging is why a document database's size on disk is no deterministic
// figure.
const merging = "its segments merge in the background after the flush, which moved the size by up to a third within seconds in the tests"

// DeterministicFigures are the server figures gated without --gate-server.
var DeterministicFigures = []Deterministic{
	{Name: "Bytes per point", Threshold: 5, Except: map[string]string{"Elasticsearch": merging, "OpenSearch": merging}},
	{Name: "Data size on disk", Threshold: 5, Except: map[string]string{"Elasticsearch": merging, "OpenSearch": merging}},
	{Name: CountedName, Threshold: 0.5, TwoSided: true},
}

// decideServer gates the deterministic server figures by their own
// thresholds and the figures GateServer names by failAbove: a figure fails
// when the contender's median is above the baseline's by more than the
// threshold (a larger footprint, more CPU, more time: more is worse for
// what one would gate). A named figure that no row has, or that one side
// does not report, is not tested: said, never passed in silence.
func (c *Comparison) decideServer(failAbove float64, v *Verdict) {
	type gate struct {
		name      string
		threshold float64
		twoSided  bool
		named     bool
	}
	var gates []gate
	db := ""
	if len(c.Baseline.Runs) > 0 {
		db = databaseOf(c.Baseline.Runs[0])
	}
	for _, d := range DeterministicFigures {
		if _, no := d.Except[db]; !no {
			gates = append(gates, gate{d.Name, d.Threshold, d.TwoSided, false})
		}
	}
	for _, name := range c.Options.GateServer {
		if i := slices.IndexFunc(gates, func(g gate) bool { return g.name == name }); i >= 0 {
			gates[i].named = true
			continue
		}
		gates = append(gates, gate{name, failAbove, false, true})
	}
	rows := slices.Concat(c.ServerRows, c.TelemetryRows)
	for _, g := range gates {
		found := false
		for _, row := range rows {
			if row.Key.Metric != g.name {
				continue
			}
			found = true
			for i, ch := range row.Contender {
				j := Judgement{Contender: c.Contenders[i].Label, Metric: g.name, Unit: row.Metric.Unit, Phase: row.Key.Phase, Server: true, Limit: g.threshold,
					Baseline: row.Baseline.Median, Value: ch.Median, Change: ch.DiffPct, Interval: ch.Interval}
				if row.Key.Phase != "server" {
					j.Operation = row.Key.Op
				}
				by := ch.DiffPct
				if g.twoSided {
					by = math.Abs(by)
				}
				switch {
				case !row.Baseline.OK && !ch.OK:
					continue
				case !row.Baseline.OK || !ch.OK:
					j.Decision, j.Why = NotTested, "not reported by both sides"
				case math.IsNaN(by):
					j.Decision, j.Why = NotTested, "no ratio: the baseline's is 0"
				case by > g.threshold:
					j.Decision = Worse
				default:
					j.Decision = Within
				}
				if !g.named {
					j.Why = strings.TrimPrefix(j.Why+"; deterministic, gated by default", "; ")
				}
				v.Rows = append(v.Rows, j)
			}
		}
		if !found && g.named {
			v.Rows = append(v.Rows, Judgement{Metric: g.name, Server: true, Phase: "server", Decision: NotTested, Why: fmt.Sprintf("--gate-server %q: no server metric or telemetry figure of that name in these runs", g.name)})
		}
	}
}

// num3 writes a median for a sentence: whole numbers from 1000 up, four
// significant digits below.
func num3(x float64) string {
	if math.Abs(x) >= 1000 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// ServerFigures are the names of the comparison's server metrics and
// telemetry figures, in table order: what --gate-server can name.
func (c *Comparison) ServerFigures() []string {
	var out []string
	for _, r := range slices.Concat(c.ServerRows, c.TelemetryRows) {
		if !slices.Contains(out, r.Key.Metric) {
			out = append(out, r.Key.Metric)
		}
	}
	return out
}

// ServerValue is a server figure of a run as compare's server tables read
// it: one of the server's metrics over the whole run (Source "server", no
// Group), or a telemetry figure of a source over a phase group (a
// counter's total, a gauge's mean: Stat).
type ServerValue struct {
	Group, Source, Figure, Unit, Stat string
	Value                             float64
}

// RunServerValues are a run's server values: its server metrics the
// server reported, then its telemetry, in the order the run lists them.
func RunServerValues(rec *record.Record) []ServerValue {
	var out []ServerValue
	for _, m := range serverMetrics(rec) {
		if !m.NotReported {
			out = append(out, ServerValue{Source: "server", Figure: m.Name, Unit: m.Unit, Value: m.Value})
		}
	}
	vals, order := runTelemetry(rec)
	for _, k := range order {
		v := vals[k]
		out = append(out, ServerValue{Group: k.group, Source: k.source, Figure: k.figure, Unit: v.unit, Stat: TelemetryStat(v.counter), Value: v.value()})
	}
	return out
}
