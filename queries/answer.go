package queries

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

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

// Sort puts an answer in canonical order: by device, sensor and time.
// A large answer is sorted by small keys (the ranks of its device and
// sensor names, and the time) rather than by moving cells, whose strings
// and values make every swap a write the garbage collector watches: this
// is what CHECK_ANSWERS pays per checked query, after its latency.
func (a Answer) Sort() {
	if slices.IsSortedFunc(a, compareCells) {
		return
	}
	if len(a) < 256 {
		slices.SortFunc(a, compareCells)
		return
	}
	devs, sens := map[string]uint32{}, map[string]uint32{}
	for _, c := range a {
		devs[c.Device] = 0
		sens[c.Sensor] = 0
	}
	rank(devs)
	rank(sens)
	type key struct {
		ds   uint64 // device rank, then sensor rank
		time int64
		at   int
	}
	keys := make([]key, len(a))
	for i, c := range a {
		keys[i] = key{uint64(devs[c.Device])<<32 | uint64(sens[c.Sensor]), c.Time, i}
	}
	slices.SortFunc(keys, func(x, y key) int {
		if c := cmp.Compare(x.ds, y.ds); c != 0 {
			return c
		}
		return cmp.Compare(x.time, y.time)
	})
	sorted := make(Answer, len(a))
	for i, k := range keys {
		sorted[i] = a[k.at]
	}
	copy(a, sorted)
}

// rank numbers the names of m in their sorted order.
func rank(m map[string]uint32) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		m[n] = uint32(i)
	}
}

func compareCells(x, y Cell) int {
	if c := strings.Compare(x.Device, y.Device); c != 0 {
		return c
	}
	if c := strings.Compare(x.Sensor, y.Sensor); c != 0 {
		return c
	}
	return cmp.Compare(x.Time, y.Time)
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
	// Only the rows that can be in range are read: timestamps grow with
	// the row (generator.RowsBetween), and a device's newest point is its
	// last row.
	first, last := int64(0), g.RowsPerDevice()
	switch f := q.Family; {
	case f == PrecisePoint:
		first, last = g.RowsBetween(q.Start, q.Start)
	case f.HasTimeRange():
		first, last = g.RowsBetween(q.Start, q.End)
	case f == LatestPoint:
		first = max(last-1, 0)
	}
	if q.Family.IsAggregate() {
		return expectedAggregates(g, q, first, last)
	}
	// Raw rows: their values live in one slab, a row's at vals[at:at+n].
	type row struct {
		dev *generator.Device
		ts  int64
		at  int
	}
	var raw []row
	var vals []any
	n := len(q.Sensors)
	for _, d := range q.Devices {
		if !d.Written {
			continue
		}
		for r := first; r < last; r++ {
			ts := g.Timestamp(d, r)
			if !inRange(q, ts) {
				continue
			}
			at := len(vals)
			if vals = appendRow(vals, g, d, q, r); len(vals) == at {
				continue // the value filter dropped it
			}
			raw = append(raw, row{d, ts, at})
		}
	}
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
	// Cells in canonical order as they are made: devices by name, then
	// sensors by name, then rows by time.
	if q.Limit >= 0 && q.Desc() {
		slices.Reverse(raw) // the limit kept the newest rows first
	}
	slices.SortStableFunc(raw, func(x, y row) int { return strings.Compare(x.dev.Name, y.dev.Name) })
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return strings.Compare(q.Sensors[i].Name, q.Sensors[j].Name) })
	out := make(Answer, 0, len(raw)*n)
	for start := 0; start < len(raw); {
		end := start
		for end < len(raw) && raw[end].dev == raw[start].dev {
			end++
		}
		for _, i := range order {
			for _, r := range raw[start:end] {
				out = append(out, Cell{Device: r.dev.Name, Sensor: q.Sensors[i].Name, Time: r.ts, Value: normalise(vals[r.at+i])})
			}
		}
		start = end
	}
	return out
}

// appendRow appends the selected sensors' values of row r of d, or
// nothing when the family's value filter drops the row (every selected
// sensor must exceed the bound).
func appendRow(vals []any, g *generator.Generator, d *generator.Device, q *Query, r int64) []any {
	at := len(vals)
	for _, s := range q.Sensors {
		v := g.Value(d, s.Index, r)
		if q.Family.HasValueFilter() {
			if n, ok := generator.Number(v); !ok || !(n > q.ValueBound) {
				return vals[:at]
			}
		}
		vals = append(vals, v)
	}
	return vals
}

// numbersOf fills nums with the selected sensors' numbers at row r of d
// (0 for a text or DATE sensor, which an aggregate counts); false when the
// family's value filter drops the row.
func numbersOf(nums []float64, g *generator.Generator, d *generator.Device, q *Query, r int64) bool {
	for i, s := range q.Sensors {
		f, ok := g.NumberAt(d, s.Index, r)
		if q.Family.HasValueFilter() && (!ok || !(f > q.ValueBound)) {
			return false
		}
		nums[i] = f
	}
	return true
}

// expectedAggregates is Expected for the aggregate families: a device's
// rows come in time order, so its windows do too, and each is summed up
// as its rows pass, with no row kept.
func expectedAggregates(g *generator.Generator, q *Query, first, last int64) Answer {
	var out Answer
	acc := make([]aggregator, len(q.Sensors))
	nums := make([]float64, len(q.Sensors))
	for _, d := range q.Devices {
		if !d.Written {
			continue
		}
		window, open := int64(0), false
		emit := func() {
			for i := range acc {
				if acc[i].n > 0 {
					out = append(out, Cell{Device: d.Name, Sensor: q.Sensors[i].Name, Time: window, Value: acc[i].result(q.Aggregate)})
				}
				acc[i] = aggregator{}
			}
		}
		for r := first; r < last; r++ {
			ts := g.Timestamp(d, r)
			if !inRange(q, ts) {
				continue
			}
			if !numbersOf(nums, g, d, q, r) {
				continue
			}
			w := int64(0)
			if q.Family.IsGroupBy() {
				w = q.Start + (ts-q.Start)/q.GroupBy*q.GroupBy
			}
			if open && w != window {
				emit()
			}
			window, open = w, true
			for i, f := range nums {
				acc[i].add(f)
			}
		}
		emit()
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
	if _, ok := v.(float64); ok {
		return v // boxed already: no second allocation
	}
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

func (a *aggregator) add(f float64) {
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

// Mismatch says how an answer to q differs from the model's, in words a
// reader of a failed run can act on ("GROUP_BY d_3 s_7: 4 windows,
// expected 5 (window 1640995320000 missing)"), or "" when they agree. Both
// answers are sorted. Numbers agree within Diff's relative tolerance.
func Mismatch(q *Query, got, want Answer) string {
	unit := "rows"
	switch {
	case q.Family.IsGroupBy():
		unit = "windows"
	case q.Family.IsAggregate():
		unit = "values"
	case q.Family == LatestPoint:
		unit = "points"
	}
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		gi, wj := series(got, i), series(want, j)
		var gs, ws Answer
		switch {
		case j >= len(want) || i < len(got) && before(got[i], want[j]):
			gs = got[i:gi]
		case i >= len(got) || before(want[j], got[i]):
			ws = want[j:wj]
		default:
			gs, ws = got[i:gi], want[j:wj]
		}
		if m := seriesMismatch(q, unit, gs, ws); m != "" {
			return m
		}
		i += len(gs)
		j += len(ws)
	}
	return ""
}

// series is the end of the run of cells of got[i]'s device and sensor.
func series(a Answer, i int) int {
	k := i
	for k < len(a) && a[k].Device == a[i].Device && a[k].Sensor == a[i].Sensor {
		k++
	}
	return k
}

// before orders cells by device, then sensor.
func before(x, y Cell) bool {
	if x.Device != y.Device {
		return x.Device < y.Device
	}
	return x.Sensor < y.Sensor
}

func seriesMismatch(q *Query, unit string, got, want Answer) string {
	c := got
	if len(c) == 0 {
		c = want
	}
	name := fmt.Sprintf("%s %s %s", q.Family, c[0].Device, c[0].Sensor)
	if len(got) != len(want) {
		m := fmt.Sprintf("%s: %d %s, expected %d", name, len(got), unit, len(want))
		if t, ok := firstOnlyIn(want, got); ok {
			return fmt.Sprintf("%s (%s %d missing)", m, strings.TrimSuffix(unit, "s"), t)
		}
		if t, ok := firstOnlyIn(got, want); ok {
			return fmt.Sprintf("%s (%s %d not in the data)", m, strings.TrimSuffix(unit, "s"), t)
		}
		return m
	}
	for k := range got {
		g, w := got[k], want[k]
		switch {
		case g.Time != w.Time:
			return fmt.Sprintf("%s: %s %d, expected %d", name, strings.TrimSuffix(unit, "s"), g.Time, w.Time)
		case !sameValue(g.Value, w.Value):
			what := fmt.Sprintf("at %d", g.Time)
			if q.Family.IsAggregate() && !q.Family.IsGroupBy() {
				what = q.Aggregate
			} else if q.Family.IsGroupBy() {
				what = fmt.Sprintf("%s of window %d", q.Aggregate, g.Time)
			}
			return fmt.Sprintf("%s: %s %v, expected %v", name, what, g.Value, w.Value)
		}
	}
	return ""
}

// firstOnlyIn is the first time of a that b lacks.
func firstOnlyIn(a, b Answer) (int64, bool) {
	have := make(map[int64]bool, len(b))
	for _, c := range b {
		have[c.Time] = true
	}
	for _, c := range a {
		if !have[c.Time] {
			return c.Time, true
		}
	}
	return 0, false
}

// Describe names a query's parameters, to find it again: family, devices,
// sensors, time range, aggregate and limit.
func Describe(q *Query) string {
	devs := make([]string, len(q.Devices))
	for i, d := range q.Devices {
		devs[i] = d.Name
	}
	sens := make([]string, len(q.Sensors))
	for i, s := range q.Sensors {
		sens[i] = s.Name
	}
	return fmt.Sprintf("%s (%s) devices %v sensors %v [%d, %d] aggregate %q limit %d", q.Family.ID(), q.Family, devs, sens, q.Start, q.End, q.Aggregate, q.Limit)
}

// Matches reports whether got, in any order, holds exactly the cells of
// want, which is in canonical order (as Expected makes it): the check of
// CHECK_ANSWERS, which orders small keys instead of moving cells. Only a
// mismatch, which Mismatch then explains, needs got sorted.
func Matches(got, want Answer) bool {
	if len(got) != len(want) {
		return false
	}
	devs, sens := map[string]uint32{}, map[string]uint32{}
	for _, c := range want {
		if _, ok := devs[c.Device]; !ok {
			devs[c.Device] = uint32(len(devs))
		}
		if _, ok := sens[c.Sensor]; !ok {
			sens[c.Sensor] = 0
		}
	}
	rank(sens)
	type key struct {
		ds   uint64
		time int64
		at   int
	}
	keys := make([]key, len(got))
	for i, c := range got {
		d, ok := devs[c.Device]
		s, ok2 := sens[c.Sensor]
		if !ok || !ok2 {
			return false
		}
		keys[i] = key{uint64(d)<<32 | uint64(s), c.Time, i}
	}
	slices.SortFunc(keys, func(x, y key) int {
		if c := cmp.Compare(x.ds, y.ds); c != 0 {
			return c
		}
		return cmp.Compare(x.time, y.time)
	})
	for i, k := range keys {
		g, w := &got[k.at], &want[i]
		if g.Device != w.Device || g.Sensor != w.Sensor || g.Time != w.Time || !sameValue(g.Value, w.Value) {
			return false
		}
	}
	return true
}
