package iotdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/apache/iotdb-client-go/v2/rpc"

	"github.com/tsbench/tsbench/generator"
)

// encoder holds the buffers of one write; pooled, so steady-state writes
// allocate only what thrift itself allocates.
type encoder struct {
	values []byte
	ts     []byte
	order  []int // row order sorted by timestamp
	rows   [][]byte
	times  []int64
	paths  []string
	meas   [][]string
}

func (a *Adapter) encoder() *encoder {
	if e, ok := a.enc.Get().(*encoder); ok {
		return e
	}
	return &encoder{}
}

// Write sends one batch in the DB_SWITCH's insert mode.
func (a *Adapter) Write(ctx context.Context, b *generator.Batch) error {
	e := a.encoder()
	defer a.enc.Put(e)
	e.sortRows(b)
	if a.tm != nil {
		return a.writeTable(ctx, e, b)
	}
	path := a.paths[b.Device.Index]
	aligned := a.aligned
	switch a.mode {
	case ByRecord:
		return a.pool.do(ctx, func(ctx context.Context, s *session) error {
			for _, i := range e.order {
				e.values = appendRow(e.values[:0], b, i)
				req := &rpc.TSInsertRecordReq{SessionId: s.id, PrefixPath: path, Measurements: a.names, Values: e.values, Timestamp: b.Timestamps[i], IsAligned: &aligned}
				st, err := s.rpc.InsertRecord(ctx, req)
				if err != nil {
					return err
				}
				if err := checkStatus(st); err != nil {
					return fmt.Errorf("insert record of %s: %w", b.Device.Name, err)
				}
			}
			return nil
		})
	case ByRecords:
		e.rows, e.times, e.paths, e.meas = e.rows[:0], e.times[:0], e.paths[:0], e.meas[:0]
		e.values = e.values[:0]
		for _, i := range e.order {
			e.values = appendRow(e.values, b, i)
			e.times = append(e.times, b.Timestamps[i])
			e.paths = append(e.paths, path)
			e.meas = append(e.meas, a.names)
		}
		// Slice the rows only now: appending may have moved e.values.
		off := 0
		for k := range e.order {
			n := rowSize(b, e.order[k])
			e.rows = append(e.rows, e.values[off:off+n:off+n])
			off += n
		}
		return a.pool.do(ctx, func(ctx context.Context, s *session) error {
			req := &rpc.TSInsertRecordsReq{SessionId: s.id, PrefixPaths: e.paths, MeasurementsList: e.meas, ValuesList: e.rows, Timestamps: e.times, IsAligned: &aligned}
			st, err := s.rpc.InsertRecords(ctx, req)
			if err != nil {
				return err
			}
			if err := checkStatus(st); err != nil {
				return fmt.Errorf("insert records of %s: %w", b.Device.Name, err)
			}
			return nil
		})
	}
	e.encodeTablet(b)
	return a.pool.do(ctx, func(ctx context.Context, s *session) error {
		req := &rpc.TSInsertTabletReq{SessionId: s.id, PrefixPath: path, Measurements: a.names, Values: e.values, Timestamps: e.ts, Types: a.types, Size: int32(b.Len()), IsAligned: &aligned}
		st, err := s.rpc.InsertTablet(ctx, req)
		if err != nil {
			return err
		}
		if err := checkStatus(st); err != nil {
			return fmt.Errorf("insert tablet of %s: %w", b.Device.Name, err)
		}
		return nil
	})
}

// sortRows orders the batch's rows by timestamp, as IoTDB's own sessions do
// before sending (iot-benchmark relied on that too); in-order batches skip
// the sort.
func (e *encoder) sortRows(b *generator.Batch) {
	n := b.Len()
	e.order = e.order[:0]
	sorted := true
	for i := 0; i < n; i++ {
		e.order = append(e.order, i)
		if i > 0 && b.Timestamps[i] < b.Timestamps[i-1] {
			sorted = false
		}
	}
	if !sorted {
		sort.Slice(e.order, func(x, y int) bool { return b.Timestamps[e.order[x]] < b.Timestamps[e.order[y]] })
	}
}

// encodeTablet writes IoTDB's tablet wire format: timestamps as big-endian
// int64s, then each column as big-endian values (TEXT, STRING, BLOB: int32
// length and bytes; DATE: int32 yyyyMMdd). No bitmaps: a generated batch has no nulls.
func (e *encoder) encodeTablet(b *generator.Batch) {
	e.ts = e.ts[:0]
	for _, i := range e.order {
		e.ts = binary.BigEndian.AppendUint64(e.ts, uint64(b.Timestamps[i]))
	}
	v := e.values[:0]
	for j := range b.Columns {
		c := &b.Columns[j]
		switch c.Sensor.Type {
		case generator.Boolean:
			for _, i := range e.order {
				if c.Bools[i] {
					v = append(v, 1)
				} else {
					v = append(v, 0)
				}
			}
		case generator.Int32:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint32(v, uint32(c.Int32s[i]))
			}
		case generator.Int64, generator.Timestamp:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint64(v, uint64(c.Int64s[i]))
			}
		case generator.Date:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint32(v, uint32(generator.Day(c.Int32s[i]).YMD()))
			}
		case generator.Float:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint32(v, math.Float32bits(c.Float32s[i]))
			}
		case generator.Double:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint64(v, math.Float64bits(c.Float64s[i]))
			}
		case generator.Text, generator.String, generator.Blob:
			for _, i := range e.order {
				v = binary.BigEndian.AppendUint32(v, uint32(len(c.Texts[i])))
				v = append(v, c.Texts[i]...)
			}
		}
	}
	e.values = v
}

// rowSize is the length of row i in the record wire format.
func rowSize(b *generator.Batch, i int) int {
	n := 0
	for j := range b.Columns {
		c := &b.Columns[j]
		n++ // type byte
		switch c.Sensor.Type {
		case generator.Boolean:
			n++
		case generator.Int32, generator.Float, generator.Date:
			n += 4
		case generator.Int64, generator.Double, generator.Timestamp:
			n += 8
		case generator.Text, generator.String, generator.Blob:
			n += 4 + len(c.Texts[i])
		}
	}
	return n
}

// appendRow writes one row in the record wire format: per value a type byte
// and the big-endian value.
func appendRow(v []byte, b *generator.Batch, i int) []byte {
	for j := range b.Columns {
		c := &b.Columns[j]
		v = append(v, byte(tsType[c.Sensor.Type]))
		switch c.Sensor.Type {
		case generator.Boolean:
			if c.Bools[i] {
				v = append(v, 1)
			} else {
				v = append(v, 0)
			}
		case generator.Int32:
			v = binary.BigEndian.AppendUint32(v, uint32(c.Int32s[i]))
		case generator.Int64, generator.Timestamp:
			v = binary.BigEndian.AppendUint64(v, uint64(c.Int64s[i]))
		case generator.Date:
			v = binary.BigEndian.AppendUint32(v, uint32(generator.Day(c.Int32s[i]).YMD()))
		case generator.Float:
			v = binary.BigEndian.AppendUint32(v, math.Float32bits(c.Float32s[i]))
		case generator.Double:
			v = binary.BigEndian.AppendUint64(v, math.Float64bits(c.Float64s[i]))
		case generator.Text, generator.String, generator.Blob:
			v = binary.BigEndian.AppendUint32(v, uint32(len(c.Texts[i])))
			v = append(v, c.Texts[i]...)
		}
	}
	return v
}
