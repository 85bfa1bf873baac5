package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

var aggregateSQL = map[string]string{"count": "count", "sum": "sum", "avg": "avg", "max_value": "max", "min_value": "min"}

// emitFunc receives one result value: device, index into q.Sensors, time
// (row timestamp, window start, or 0 for whole-range aggregates) and value.
type emitFunc func(d *generator.Device, sensor int, ts int64, v any)

// SQL returns the statement and arguments of q, for logs and tests. The
// latest-point family runs this statement once per device, with that
// device's id as the only argument.
func (a *Adapter) SQL(q *queries.Query) (string, []any) {
	t := a.tables[q.Devices[0].Group]
	cols := make([]string, len(q.Sensors))
	for i, s := range q.Sensors {
		cols[i] = quote(s.Name)
	}
	var b strings.Builder
	var args []any
	f := q.Family
	if f == queries.LatestPoint {
		fmt.Fprintf(&b, "SELECT device, ts, %s FROM %s WHERE device = ? ORDER BY ts DESC LIMIT 1", strings.Join(cols, ", "), quote(t.name))
		return b.String(), nil
	}
	b.WriteString("SELECT device")
	if f.IsGroupBy() {
		b.WriteString(", (ts - ?) / ? AS w")
		args = append(args, q.Start, q.GroupBy)
	} else if !f.IsAggregate() {
		b.WriteString(", ts")
	}
	for _, c := range cols {
		if f.IsAggregate() {
			fmt.Fprintf(&b, ", %s(%s)", aggregateSQL[q.Aggregate], c)
		} else {
			b.WriteString(", " + c)
		}
	}
	fmt.Fprintf(&b, " FROM %s WHERE device IN (%s)", quote(t.name), strings.TrimSuffix(strings.Repeat("?, ", len(q.Devices)), ", "))
	for _, d := range q.Devices {
		args = append(args, d.ID)
	}
	switch {
	case f == queries.PrecisePoint:
		b.WriteString(" AND ts = ?")
		args = append(args, q.Start)
	case f.IsGroupBy():
		b.WriteString(" AND ts >= ? AND ts < ?")
		args = append(args, q.Start, q.End)
	case f.HasTimeRange():
		b.WriteString(" AND ts >= ? AND ts <= ?")
		args = append(args, q.Start, q.End)
	}
	if f.HasValueFilter() {
		for _, c := range cols {
			fmt.Fprintf(&b, " AND %s > ?", c)
			args = append(args, q.ValueBound)
		}
	}
	switch {
	case f.IsGroupBy():
		b.WriteString(" GROUP BY device, w")
		if f.Desc() {
			b.WriteString(" ORDER BY w DESC, device")
		}
	case f.IsAggregate():
		b.WriteString(" GROUP BY device")
	default:
		if f.Desc() {
			b.WriteString(" ORDER BY ts DESC, device")
		} else if q.Limit >= 0 {
			b.WriteString(" ORDER BY ts, device")
		}
		if q.Limit >= 0 {
			b.WriteString(" LIMIT ?")
			args = append(args, q.Limit)
		}
	}
	return b.String(), args
}

// run executes q and hands every value of the result to emit.
func (a *Adapter) run(ctx context.Context, q *queries.Query, emit emitFunc) error {
	if len(q.Devices) == 0 || len(q.Sensors) == 0 {
		return fmt.Errorf("%s query without devices or sensors", q.Family.ID())
	}
	stmt, args := a.SQL(q)
	if q.Family == queries.LatestPoint {
		for _, d := range q.Devices {
			if err := a.scan(ctx, q, stmt, []any{d.ID}, emit); err != nil {
				return err
			}
		}
		return nil
	}
	return a.scan(ctx, q, stmt, args, emit)
}

func (a *Adapter) scan(ctx context.Context, q *queries.Query, stmt string, args []any, emit emitFunc) error {
	rows, err := a.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		if isNoTable(err) {
			return nil // nothing written yet: an empty result, as from a server
		}
		return fmt.Errorf("%s query: %w", q.Family.ID(), err)
	}
	defer rows.Close()
	f := q.Family
	lead := 2 // device, ts or window
	if f.IsAggregate() && !f.IsGroupBy() {
		lead = 1
	}
	vals := make([]any, lead+len(q.Sensors))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("%s query: read result: %w", f.ID(), err)
		}
		id, _ := vals[0].(int64)
		d := deviceOf(q, id)
		var ts int64
		if lead == 2 {
			ts, _ = vals[1].(int64)
			if f.IsGroupBy() {
				ts = q.Start + ts*q.GroupBy
			}
		}
		for i := range q.Sensors {
			emit(d, i, ts, vals[lead+i])
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s query: %w", f.ID(), err)
	}
	return nil
}

func deviceOf(q *queries.Query, id int64) *generator.Device {
	for _, d := range q.Devices {
		if int64(d.ID) == id {
			return d
		}
	}
	return &generator.Device{ID: int(id), Name: fmt.Sprintf("device#%d", id)}
}
