package iotdb

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

const fetchSize = 10000

// alignByDevice reports whether q is sent with ALIGN BY DEVICE: when the
// user asks for it, and always for value filters over several devices,
// because a time-aligned filter would keep a timestamp only when every
// device passes, which is not what the family means.
func (a *Adapter) alignByDevice(q *queries.Query) bool {
	if q.Family == queries.LatestPoint {
		return false // LAST has no device alignment
	}
	return a.opts.AlignByDevice || q.Family.HasValueFilter() && len(q.Devices) > 1
}

// SQL returns the statement of q in IoTDB's SQL of the run's model.
func (a *Adapter) SQL(q *queries.Query) string {
	if a.tm != nil {
		return a.tableSQL(q)
	}
	f := q.Family
	var sel []string
	for _, s := range q.Sensors {
		if f.IsAggregate() {
			sel = append(sel, aggregateSQL[q.Aggregate]+"("+s.Name+")")
		} else {
			sel = append(sel, s.Name)
		}
	}
	var from []string
	for _, d := range q.Devices {
		from = append(from, a.paths[d.Index])
	}
	var b strings.Builder
	if f == queries.LatestPoint {
		fmt.Fprintf(&b, "SELECT LAST %s FROM %s", strings.Join(sel, ", "), strings.Join(from, ", "))
		return b.String()
	}
	fmt.Fprintf(&b, "SELECT %s FROM %s", strings.Join(sel, ", "), strings.Join(from, ", "))
	var where []string
	switch {
	case f == queries.PrecisePoint:
		where = append(where, "time = "+itoa(q.Start))
	case f.IsGroupBy():
		// the GROUP BY clause bounds time
	case f.HasTimeRange():
		where = append(where, "time >= "+itoa(q.Start), "time <= "+itoa(q.End))
	}
	if f.HasValueFilter() {
		bound := strconv.FormatFloat(q.ValueBound, 'f', -1, 64)
		for _, s := range q.Sensors {
			where = append(where, s.Name+" > "+bound)
		}
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if f.IsGroupBy() {
		fmt.Fprintf(&b, " GROUP BY ([%d, %d), %d%s)", q.Start, q.End, q.GroupBy, a.cfg.TimestampPrecision)
	}
	if f.Desc() {
		if a.alignByDevice(q) {
			// Newest first within each device. ORDER BY TIME DESC across
			// devices fails on IoTDB 2.0.10 for non-aligned series with a
			// value filter (error 301, "OutputColumTypes should not be
			// null/empty"); the per-device order answers the same question.
			b.WriteString(" ORDER BY DEVICE ASC, TIME DESC")
		} else {
			b.WriteString(" ORDER BY TIME DESC")
		}
	}
	if !f.IsAggregate() && q.Limit >= 0 {
		b.WriteString(" LIMIT " + itoa(q.Limit))
	}
	if a.alignByDevice(q) {
		b.WriteString(" ALIGN BY DEVICE")
	}
	return b.String()
}

type emitFunc func(d *generator.Device, sensor int, ts int64, v any)

// Query runs q and counts the value cells it returned.
func (a *Adapter) Query(ctx context.Context, q *queries.Query) (int64, error) {
	if q.Request != "" {
		return a.ownRequest(ctx, q)
	}
	var n int64
	err := a.run(ctx, q, func(*generator.Device, int, int64, any) { n++ })
	return n, err
}

// Answer runs q and returns its values.
func (a *Adapter) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	var out queries.Answer
	err := a.run(ctx, q, func(d *generator.Device, s int, ts int64, v any) {
		out = append(out, queries.Cell{Device: d.Name, Sensor: q.Sensors[s].Name, Time: ts, Value: v})
	})
	return out, err
}

type cellRef struct {
	dev    *generator.Device
	sensor int
}

func (a *Adapter) run(ctx context.Context, q *queries.Query, emit emitFunc) error {
	if len(q.Devices) == 0 || len(q.Sensors) == 0 {
		return fmt.Errorf("%s query without devices or sensors", q.Family.ID())
	}
	if a.tm != nil {
		return a.runTable(ctx, q, emit)
	}
	sql := a.SQL(q)
	f := q.Family
	byDevice := a.alignByDevice(q)
	// Column names of a time-aligned result: <path>.<sensor> or agg(<path>.<sensor>).
	// With ALIGN BY DEVICE: Device, then <sensor> or agg(<sensor>).
	lookup := map[string]cellRef{}
	devByPath := map[string]*generator.Device{}
	for _, d := range q.Devices {
		devByPath[a.paths[d.Index]] = d
		for i, s := range q.Sensors {
			name := a.paths[d.Index] + "." + s.Name
			if byDevice {
				name = s.Name
			}
			if f.IsAggregate() {
				name = aggregateSQL[q.Aggregate] + "(" + name + ")"
			}
			lookup[name] = cellRef{d, i}
		}
	}
	isCount := f.IsAggregate() && q.Aggregate == "count"
	var cols []string
	var devCol int32 = -1
	err := a.pool.query(ctx, sql, fetchSize, func(ds *client.SessionDataSet) error {
		if cols == nil {
			cols = ds.GetColumnNames()
			for i, c := range cols {
				if c == "Device" {
					devCol = int32(i + 1)
				}
			}
		}
		var ts int64
		if !f.IsAggregate() || f.IsGroupBy() {
			t, err := ds.GetLongByIndex(1)
			if err != nil {
				return err
			}
			ts = t
		}
		if f == queries.LatestPoint {
			return a.emitLast(ds, cols, ts, lookup, emit)
		}
		var dev *generator.Device
		if devCol > 0 {
			p, err := ds.GetStringByIndex(devCol)
			if err != nil {
				return err
			}
			dev = devByPath[p]
		}
		for i, c := range cols {
			ref, ok := lookup[c]
			if !ok {
				continue
			}
			val, ok, err := readValue(ds, int32(i+1), q.Sensors[ref.sensor].Type, f.IsAggregate())
			if err != nil {
				return err
			}
			if !ok || isCount && val == 0.0 {
				continue // IoTDB counts an empty series as 0; no rows means no cell
			}
			d := ref.dev
			if dev != nil {
				d = dev
			}
			emit(d, ref.sensor, ts, val)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s query: %w", f.ID(), err)
	}
	return nil
}

// emitLast reads one row of a LAST query: Time, Timeseries, Value, DataType.
func (a *Adapter) emitLast(ds *client.SessionDataSet, cols []string, ts int64, lookup map[string]cellRef, emit emitFunc) error {
	var series, value, typ string
	for i, c := range cols {
		s, err := ds.GetStringByIndex(int32(i + 1))
		if err != nil {
			continue
		}
		switch c {
		case "Timeseries", "timeseries":
			series = s
		case "Value", "value":
			value = s
		case "DataType", "dataType":
			typ = s
		}
	}
	ref, ok := lookup[series]
	if !ok {
		return nil
	}
	var v any = value
	switch strings.ToUpper(typ) {
	case "BOOLEAN":
		if value == "true" {
			v = 1.0
		} else {
			v = 0.0
		}
	case "TEXT", "STRING":
	case "BLOB":
		// LAST prints a BLOB as 0x and hexadecimal digits.
		b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(value, "0x"), "0X"))
		if err != nil {
			return fmt.Errorf("last value %q of %s: %w", value, series, err)
		}
		v = string(b)
	case "DATE":
		// LAST prints a DATE as yyyyMMdd (2.0.10); the ISO form is taken too.
		d, err := time.Parse("20060102", value)
		if err != nil {
			d, err = time.Parse(time.DateOnly, value)
		}
		if err != nil {
			return fmt.Errorf("last value %q of %s: %w", value, series, err)
		}
		v = d.Format(time.DateOnly)
	default:
		// LAST prints a FLOAT in its shortest decimal form: parse it back
		// at 32 bits to get the stored float32, as the model holds it.
		bits := 64
		if strings.EqualFold(typ, "FLOAT") {
			bits = 32
		}
		f, err := strconv.ParseFloat(value, bits)
		if err != nil {
			return fmt.Errorf("last value %q of %s: %w", value, series, err)
		}
		v = f
	}
	emit(ref.dev, ref.sensor, ts, v)
	return nil
}

// readValue reads column idx of the current row in the form of
// queries.Cell; ok is false for a null. typ is the sensor's type, which an
// aggregate's column does not have.
func readValue(ds *client.SessionDataSet, idx int32, typ generator.DataType, aggregate bool) (v any, ok bool, err error) {
	null, err := ds.IsNullByIndex(idx)
	if err != nil || null {
		return nil, false, err
	}
	if typ == generator.Timestamp && !aggregate {
		// The object of a TIMESTAMP is a time.Time, read through the
		// session's precision: the stored number is the value.
		v, err = ds.GetLongByIndex(idx)
	} else {
		v, err = ds.GetObjectByIndex(idx)
	}
	if err != nil {
		return nil, false, err
	}
	return normalise(v), true, nil
}

// normalise turns a result value into the form of queries.Cell.
func normalise(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return 1.0
		}
		return 0.0
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	case *client.Binary:
		return x.GetStringValue()
	case time.Time:
		return x.Format(time.DateOnly) // a DATE: the client makes it midnight UTC
	case []byte:
		return string(x)
	}
	return v
}
