package iotdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/iotdb-client-go/v2/client"
	"github.com/apache/iotdb-client-go/v2/common"
	"github.com/apache/iotdb-client-go/v2/rpc"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// IoTDB's table model (IOTDB_DIALECT_MODE=table), laid out as iot-benchmark
// lays it out: a database <DB_NAME>_<group> per group, tables
// <IOTDB_TABLE_NAME_PREFIX><n> in it, one row per (device, time) with the
// device in the TAG column device_id and every sensor a FIELD column.

// deviceColumn is the TAG column that names a row's device.
const deviceColumn = "device_id"

// tableModel is what the adapter needs in the table model.
type tableModel struct {
	dbs        []string // database by group index
	pools      []*pool  // per group: sessions whose database is that group's
	tc         string   // the time column
	cols       []string // tablet columns: the sensors, then device_id
	types      []int32
	categories []int8
	encodings  []int8 // encoded tablets: the time's, then each column's
}

func (a *Adapter) openTables(pc poolConfig) {
	tm := &tableModel{tc: a.cfg.TimeColumn, encodings: []int8{encTS2Diff}}
	for _, g := range a.schema.Groups {
		db := a.cfg.DBName + "_" + g.Name
		tm.dbs = append(tm.dbs, db)
		gc := pc
		gc.database = db
		tm.pools = append(tm.pools, newPool(gc))
	}
	for _, s := range a.schema.Sensors {
		tm.cols = append(tm.cols, s.Name)
		tm.types = append(tm.types, tsType[s.Type])
		tm.categories = append(tm.categories, client.FIELD)
		tm.encodings = append(tm.encodings, encodingOf(s.Type))
	}
	for _, tag := range append([]string{deviceColumn}, a.schema.TagKeys...) {
		tm.cols = append(tm.cols, tag)
		tm.types = append(tm.types, int32(client.STRING))
		tm.categories = append(tm.categories, client.TAG)
		tm.encodings = append(tm.encodings, encPlain)
	}
	a.tm = tm
}

// qualified is the database-qualified name of schema table t.
func (a *Adapter) qualified(t int) string {
	tb := &a.schema.Tables[t]
	return a.tm.dbs[tb.Group] + "." + tb.Name
}

func (a *Adapter) closeTables() {
	for _, p := range a.tm.pools {
		p.close()
	}
}

// createTables creates every database and table. ENCODING_* and COMPRESSOR
// do not apply: IoTDB 2.0's CREATE TABLE takes neither, and iot-benchmark's
// table DDL names only types and categories.
func (a *Adapter) createTables(ctx context.Context) error {
	for _, db := range a.tm.dbs {
		if err := a.pool.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db); err != nil {
			return err
		}
	}
	var defs []string
	if a.tm.tc != "time" {
		defs = append(defs, a.tm.tc+" TIMESTAMP TIME")
	}
	defs = append(defs, deviceColumn+" STRING TAG")
	for _, tag := range a.schema.TagKeys {
		defs = append(defs, tag+" STRING TAG")
	}
	for _, s := range a.schema.Sensors {
		defs = append(defs, s.Name+" "+s.Type.String()+" FIELD")
	}
	for t := range a.schema.Tables {
		if err := a.pool.exec(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", a.qualified(t), strings.Join(defs, ", "))); err != nil {
			return err
		}
	}
	return nil
}

// dropTables drops the run's databases.
func (a *Adapter) dropTables(ctx context.Context) error {
	for _, db := range a.tm.dbs {
		if err := a.pool.exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil && !notFound(err) {
			return err
		}
	}
	return nil
}

// writeTable sends the write's batches as one table tablet: the sensor
// columns as the tree model's tablet holds them, then device_id and the
// tags (STRINGs: length and bytes), row by row. The batches' devices share
// a table (the plan checks DEVICE_NUM_PER_WRITE against the layout).
func (a *Adapter) writeTable(ctx context.Context, e *encoder) error {
	encoded := a.encodes(e.rowCount())
	e.encodeTablet(encoded)
	column := func(tag func(d *generator.Device) string) {
		for k, b := range e.bs {
			v := tag(b.Device)
			for range e.orders[k] {
				e.values = binary.BigEndian.AppendUint32(e.values, uint32(len(v)))
				e.values = append(e.values, v...)
			}
		}
	}
	column(func(d *generator.Device) string { return d.Name })
	for i := range a.schema.TagKeys {
		column(func(d *generator.Device) string { return d.Tags[i] })
	}
	dev := e.bs[0].Device
	t := &a.schema.Tables[dev.Table]
	what := func() string { return fmt.Sprintf("insert tablet of %s into %s", e.devices(), a.qualified(dev.Table)) }
	return a.send(ctx, e.key(a.qualified(dev.Table)+"."+dev.Name), a.tm.pools[t.Group], what, func(ctx context.Context, s *session) (*common.TSStatus, error) {
		req := &rpc.TSInsertTabletReq{SessionId: s.id, PrefixPath: t.Name, Measurements: a.tm.cols, Values: e.values, Timestamps: e.ts, Types: a.tm.types,
			Size: int32(e.rowCount()), IsAligned: &yes, WriteToTable: &yes, ColumnCategories: a.tm.categories}
		if encoded {
			req.IsCompressed, req.CompressType, req.EncodingTypes = &yes, &uncompressed, a.tm.encodings
		}
		return s.rpc.InsertTablet(ctx, req)
	})
}

// tableAggregate names the aggregates in the table dialect.
var tableAggregate = map[string]string{"count": "count", "sum": "sum", "avg": "avg", "max_value": "max", "min_value": "min"}

// tableSQL is q in the table dialect. Columns: device_id, then the time
// (raw rows, the latest point) or the window start (group-by), then one
// column per sensor.
func (a *Adapter) tableSQL(q *queries.Query) string {
	f := q.Family
	tc := a.tm.tc
	sel := []string{deviceColumn}
	switch {
	case f == queries.LatestPoint:
		sel = append(sel, "last("+tc+")")
	case f.IsGroupBy():
		sel = append(sel, a.window(q))
	case !f.IsAggregate():
		sel = append(sel, tc)
	}
	for _, s := range q.Sensors {
		switch {
		case f == queries.LatestPoint:
			sel = append(sel, "last_by("+s.Name+", "+tc+")")
		case f.IsAggregate():
			sel = append(sel, tableAggregate[q.Aggregate]+"("+s.Name+")")
		default:
			sel = append(sel, s.Name)
		}
	}
	devs := make([]string, len(q.Devices))
	for i, d := range q.Devices {
		devs[i] = "'" + d.Name + "'"
	}
	where := []string{deviceColumn + " IN (" + strings.Join(devs, ", ") + ")"}
	switch {
	case f == queries.LatestPoint:
	case f == queries.PrecisePoint:
		where = append(where, tc+" = "+itoa(q.Start))
	case f.IsGroupBy():
		where = append(where, tc+" >= "+itoa(q.Start), tc+" < "+itoa(q.End))
	case f.HasTimeRange():
		where = append(where, tc+" >= "+itoa(q.Start), tc+" <= "+itoa(q.End))
	}
	if f.HasValueFilter() {
		bound := strconv.FormatFloat(q.ValueBound, 'f', -1, 64)
		for _, s := range q.Sensors {
			where = append(where, s.Name+" > "+bound)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s FROM %s WHERE %s", strings.Join(sel, ", "), a.qualified(q.Devices[0].Table), strings.Join(where, " AND "))
	switch {
	case f == queries.LatestPoint || f.IsAggregate() && !f.IsGroupBy():
		b.WriteString(" GROUP BY " + deviceColumn)
	case f.IsGroupBy():
		if f.Desc() {
			// Per device, newest window first, as for raw rows below; the
			// tags (one value per device) are grouped by too, so that the
			// order can follow the table's.
			b.WriteString(" GROUP BY " + a.deviceOrder() + ", 2 ORDER BY " + a.deviceOrder() + ", 2 DESC")
		} else {
			b.WriteString(" GROUP BY 1, 2")
		}
	case q.Limit >= 0:
		// The model limits (time, device) rows: order by both.
		if f.Desc() {
			b.WriteString(" ORDER BY " + tc + " DESC, " + deviceColumn)
		} else {
			b.WriteString(" ORDER BY " + tc + ", " + deviceColumn)
		}
		b.WriteString(" LIMIT " + itoa(q.Limit))
	case f.Desc():
		// Newest first within each device, as iot-benchmark asks: the
		// rows come from storage in that order, where newest first across
		// devices is a sort the server must hold in memory.
		b.WriteString(" ORDER BY " + a.deviceOrder() + ", " + tc + " DESC")
	}
	return b.String()
}

// deviceOrder orders rows by device as the table stores them: by every
// TAG column, device_id first. Ordering by device_id alone, when tags
// follow it, is a sort the server must hold in memory.
func (a *Adapter) deviceOrder() string {
	return strings.Join(append([]string{deviceColumn}, a.schema.TagKeys...), ", ")
}

// window is the group-by window of a row: date_bin with the query's start
// as origin, so windows are [Start + k×GROUP_BY_TIME_UNIT, …).
func (a *Adapter) window(q *queries.Query) string {
	return fmt.Sprintf("date_bin(%d%s, %s, %d)", q.GroupBy, a.cfg.TimestampPrecision, a.tm.tc, q.Start)
}

// runTable runs q in the table dialect and hands each value to emit.
func (a *Adapter) runTable(ctx context.Context, q *queries.Query, emit emitFunc) error {
	f := q.Family
	byName := map[string]*generator.Device{}
	for _, d := range q.Devices {
		byName[d.Name] = d
	}
	lead := int32(2) // device_id and a time
	if f.IsAggregate() && !f.IsGroupBy() {
		lead = 1
	}
	isCount := f.IsAggregate() && q.Aggregate == "count"
	sql := a.tableSQL(q)
	err := a.pool.query(ctx, sql, fetchSize, func(ds *client.SessionDataSet) error {
		name, err := ds.GetStringByIndex(1)
		if err != nil {
			return err
		}
		d := byName[name]
		if d == nil {
			return fmt.Errorf("a row of device %q, which the query did not ask for", name)
		}
		var ts int64
		if lead == 2 {
			if ts, err = ds.GetLongByIndex(2); err != nil {
				return err
			}
		}
		for i, s := range q.Sensors {
			val, ok, err := readValue(ds, lead+int32(i)+1, s.Type, f.IsAggregate())
			if err != nil {
				return err
			}
			if !ok || isCount && val == 0.0 {
				continue
			}
			emit(d, i, ts, val)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s query: %w", f.ID(), err)
	}
	return nil
}

// countSQL counts the values of device d, a count per sensor.
func (a *Adapter) countSQL(d *generator.Device) string {
	var sel []string
	for _, s := range a.schema.Sensors {
		sel = append(sel, "count("+s.Name+")")
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s = '%s'", strings.Join(sel, ", "), a.qualified(d.Table), deviceColumn, d.Name)
}

// checkTable is the table model's part of Check: iot-benchmark's rules
// where they apply to tsbench.
func checkTable(c *config.Config, o *Options) config.Errors {
	if !c.TableModel() {
		return nil
	}
	var errs config.Errors
	if m := insertMode(c.DBSwitch); m != ByTablet {
		errs = append(errs, &config.Error{Key: "DB_SWITCH", Value: c.DBSwitch, Msg: "writes records, but the IoTDB table model only takes tablets (IOTDB_DIALECT_MODE=table)", Valid: "IoTDB-200-SESSION_BY_TABLET"})
	}
	if o.Template {
		errs = append(errs, &config.Error{Key: "TEMPLATE", Value: "true", Msg: "is a tree-model device template; the table model has tables instead", Valid: "false with IOTDB_DIALECT_MODE=table"})
	}
	if o.AlignByDevice {
		errs = append(errs, &config.Error{Key: "ALIGN_BY_DEVICE", Value: "true", Msg: "is tree-model SQL; table-model rows always carry their device", Valid: "false with IOTDB_DIALECT_MODE=table"})
	}
	return errs
}
