package compare

import (
	"fmt"
	"slices"

	"github.com/tsbench/tsbench/record"
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
		for _, src := range p.Server {
			for _, se := range src.Series {
				if len(se.Values) == 0 {
					continue
				}
				k := telemetryKey{p.Group(), telemetry.Kind(src.Name), se.Name}
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
			c.OK, c.Median = true, median(c.Values)
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

// gateServer is the gate of GateServer: a chosen server metric or
// telemetry figure fails when the contender's median is above the
// baseline's by more than failAbove percent (a larger footprint, more CPU,
// more time: more is worse for what one would gate). A name that no row
// has is said, so that a typo gates nothing in silence.
func (c *Comparison) gateServer(failAbove float64, g *GateResult) {
	for _, name := range c.Options.GateServer {
		found := false
		for _, row := range append(slices.Clone(c.ServerRows), c.TelemetryRows...) {
			if row.Key.Metric != name {
				continue
			}
			found = true
			for i, ch := range row.Contender {
				where := fmt.Sprintf("%s: server %s", c.Contenders[i].Label, name)
				if row.Key.Phase != "server" {
					where += fmt.Sprintf(" of %s (%s)", row.Key.Op, row.Key.Phase)
				}
				switch {
				case !row.Baseline.OK || !ch.OK:
					g.Untested = append(g.Untested, where+": not reported by both sides")
				case ch.DiffPct > failAbove:
					g.Regressions = append(g.Regressions, fmt.Sprintf("%s is %s (--gate-server; more by more than %g%%)", where, Pct(ch.DiffPct), failAbove))
				}
			}
		}
		if !found {
			g.Untested = append(g.Untested, fmt.Sprintf("--gate-server %q: no server metric or telemetry figure of that name in these runs", name))
		}
	}
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
	for _, m := range rec.ServerMetrics {
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
