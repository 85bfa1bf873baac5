package queries

import (
	"fmt"
	"math"
	"sort"

	"github.com/tsbench/tsbench/generator"
)

// Cell is one value of a query result. Time is the row's timestamp for raw
// queries and the latest point, the window start for group-by queries, and 0
// for whole-range aggregates. Value is a float64 (booleans are 1 and 0, a
// TIMESTAMP its number) or a string (TEXT, STRING, BLOB's bytes, and a DATE
// as 2006-01-02).
type Cell struct {
	Device string
	Sensor string
	Time   int64
	Value  any
}

// Answer is a query result in adapter-neutral form, sorted by device,
// sensor, time. len(Answer) is the query's points.
type Answer []Cell

// Sort puts an answer in canonical order.
func (a Answer) Sort() {
	sort.Slice(a, func(i, j int) bool {
		x, y := a[i], a[j]
		if x.Device != y.Device {
			return x.Device < y.Device
		}
		if x.Sensor != y.Sensor {
			return x.Sensor < y.Sensor
		}
		return x.Time < y.Time
	})
}

// Diff describes the first difference between two sorted answers, or ""
// when they are equal. Numbers are compared with a relative tolerance,
// since sums and averages depend on summation order.
func Diff(got, want Answer) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := got[i], want[i]
		if g.Device != w.Device || g.Sensor != w.Sensor || g.Time != w.Time || !sameValue(g.Value, w.Value) {
			return fmt.Sprintf("cell %d: got %+v, want %+v", i, g, w)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %d cells, want %d", len(got), len(want))
	}
	return ""
}

func sameValue(a, b any) bool {
	fa, aok := a.(float64)
	fb, bok := b.(float64)
	if aok && bok {
		if fa == fb {
			return true
		}
		return math.Abs(fa-fb) <= 1e-9*math.Max(math.Abs(fa), math.Abs(fb))
	}
	return a == b
}

// Expected computes the answer to q from the generator's model of the data,
// assuming every written device holds all its rows. It is the reference
// semantics of each family that adapters are tested against:
//
//   - raw queries (Q1 Q2 Q3 Q9 Q10): every selected sensor of every row in
//     range; with a value filter only rows where all selected sensors exceed
//     the bound; RESULT_ROW_LIMIT keeps the first rows by (time, device),
//     newest first for descending families;
//   - aggregates (Q4 Q5 Q6): one cell per device and sensor over the rows in
//     range (and passing the filter); none for a device without such rows;
//   - group-by (Q7 Q11): one cell per device, sensor and window with rows;
//   - latest point (Q8): each selected sensor of each device's newest row.
func Expected(g *generator.Generator, q *Query) Answer {
	var out Answer
	rows := g.RowsPerDevice()
	type row struct {
		dev  *generator.Device
		ts   int64
		vals []any
	}
	var raw []row
	for _, d := range q.Devices {
		if !d.Written {
			continue
		}
		var devRows []row
		for r := int64(0); r < rows; r++ {
			ts := g.Timestamp(d, r)
			if !inRange(q, ts) {
				continue
			}
			vals := make([]any, len(q.Sensors))
			keep := true
			for i, s := range q.Sensors {
				vals[i] = g.Value(d, s.Index, r)
				if q.Family.HasValueFilter() {
					if n, ok := generator.Number(vals[i]); !ok || !(n > q.ValueBound) {
						keep = false
					}
				}
			}
			if keep {
				devRows = append(devRows, row{d, ts, vals})
			}
		}
		if q.Family == LatestPoint && len(devRows) > 0 {
			devRows = devRows[len(devRows)-1:]
		}
		raw = append(raw, devRows...)
	}
	switch {
	case q.Family.IsAggregate():
		type key struct {
			dev    string
			sensor int
			window int64
		}
		acc := map[key]*aggregator{}
		var order []key
		for _, r := range raw {
			w := int64(0)
			if q.Family.IsGroupBy() {
				w = q.Start + (r.ts-q.Start)/q.GroupBy*q.GroupBy
			}
			for i := range q.Sensors {
				k := key{r.dev.Name, i, w}
				a, ok := acc[k]
				if !ok {
					a = &aggregator{}
					acc[k] = a
					order = append(order, k)
				}
				a.add(r.vals[i])
			}
		}
		for _, k := range order {
			out = append(out, Cell{Device: k.dev, Sensor: q.Sensors[k.sensor].Name, Time: k.window, Value: acc[k].result(q.Aggregate)})
		}
	default:
		if q.Limit >= 0 {
			sort.SliceStable(raw, func(i, j int) bool {
				if raw[i].ts != raw[j].ts {
					if q.Desc() {
						return raw[i].ts > raw[j].ts
					}
					return raw[i].ts < raw[j].ts
				}
				return raw[i].dev.Name < raw[j].dev.Name
			})
			if int64(len(raw)) > q.Limit {
				raw = raw[:q.Limit]
			}
		}
		for _, r := range raw {
			for i, s := range q.Sensors {
				out = append(out, Cell{Device: r.dev.Name, Sensor: s.Name, Time: r.ts, Value: normalise(r.vals[i])})
			}
		}
	}
	out.Sort()
	return out
}

// inRange applies the family's time condition.
func inRange(q *Query, ts int64) bool {
	switch {
	case q.Family == PrecisePoint:
		return ts == q.Start
	case q.Family.IsGroupBy():
		return ts >= q.Start && ts < q.End
	case q.Family.HasTimeRange():
		return ts >= q.Start && ts <= q.End
	}
	return true
}

func normalise(v any) any {
	if n, ok := generator.Number(v); ok {
		return n
	}
	if d, ok := v.(generator.Day); ok {
		return d.String()
	}
	return v
}

type aggregator struct {
	n        int64
	sum      float64
	min, max float64
}

func (a *aggregator) add(v any) {
	f, _ := generator.Number(v)
	if a.n == 0 || f < a.min {
		a.min = f
	}
	if a.n == 0 || f > a.max {
		a.max = f
	}
	a.n++
	a.sum += f
}

func (a *aggregator) result(agg string) any {
	switch agg {
	case "sum":
		return a.sum
	case "avg":
		return a.sum / float64(a.n)
	case "max_value":
		return a.max
	case "min_value":
		return a.min
	}
	return float64(a.n)
}
