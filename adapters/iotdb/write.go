package iotdb

import (
	"context"
	"encoding/binary"
	"math"
	"sort"
	"strings"

	"github.com/apache/iotdb-client-go/v2/common"
	"github.com/apache/iotdb-client-go/v2/rpc"

	"github.com/tsbench/tsbench/generator"
)

// encoder holds the buffers of one write; pooled, so steady-state writes
// allocate only what thrift itself allocates.
type encoder struct {
	values []byte
	ts     []byte
	bs     []*generator.Batch
	orders [][]int // per batch, its rows sorted by timestamp
	rows   [][]byte
	times  []int64
	paths  []string
	meas   [][]string
	// One column's values in row order, for the column encodings.
	i32s  []int32
	u32s  []uint32
	u64s  []uint64
	bools []bool
	rle   []byte
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
	switch {
	case a.tm != nil:
		return a.writeTable(ctx, e)
	case a.mode == ByRecords:
		return a.writeRecords(ctx, e)
	case a.mode == ByRecord:
		return a.writeRecordByRecord(ctx, e)
	}
	path := a.paths[b.Device.Index]
	aligned := a.aligned
	encoded := a.encodes(b.Len())
	e.encodeTablet(encoded)
	return a.send(ctx, path, a.pool, func() string { return "insert tablet of " + b.Device.Name }, func(ctx context.Context, s *session) (*common.TSStatus, error) {
		req := &rpc.TSInsertTabletReq{SessionId: s.id, PrefixPath: path, Measurements: a.names, Values: e.values, Timestamps: e.ts, Types: a.types, Size: int32(b.Len()), IsAligned: &aligned}
		if encoded {
			req.IsCompressed, req.CompressType, req.EncodingTypes = &yes, &uncompressed, a.encodings
		}
		return s.rpc.InsertTablet(ctx, req)
	})
}

// minEncodedRows is the Java session's tabletCompressionMinRowSize: smaller
// tablets go plain even with RPC compression on.
const minEncodedRows = 10

// encodes says whether a tablet of rows rows goes with its columns encoded
// (ENABLE_IOTDB_RPC_COMPRESSION), as the Java session decides it.
func (a *Adapter) encodes(rows int) bool {
	return a.opts.RPCCompr && rows >= minEncodedRows
}

// Addressable constants of the encoded tablet request: IoTDB's sessions
// encode the columns and leave the compressor at UNCOMPRESSED (code 0).
var (
	yes          = true
	uncompressed = int8(0)
)

// encodingOf is the encoding the Java session's default columnEncodersMap
// gives each type: TS_2DIFF for times and integers, GORILLA for floats,
// RLE for booleans, PLAIN for text.
func encodingOf(t generator.DataType) int8 {
	switch t {
	case generator.Boolean:
		return encRLE
	case generator.Int32, generator.Int64, generator.Timestamp, generator.Date:
		return encTS2Diff
	case generator.Float, generator.Double:
		return encGorilla
	}
	return encPlain
}

// WriteDevices sends the batches of several devices in one request
// (DEVICE_NUM_PER_WRITE): one insertRecords in the tree model, whose rows
// name their devices, or one table tablet (the devices share a table).
func (a *Adapter) WriteDevices(ctx context.Context, bs []*generator.Batch) error {
	e := a.encoder()
	defer a.enc.Put(e)
	e.sortRows(bs...)
	if a.tm != nil {
		return a.writeTable(ctx, e)
	}
	return a.writeRecords(ctx, e)
}

// writeRecordByRecord sends the batch's rows one insertRecord each.
func (a *Adapter) writeRecordByRecord(ctx context.Context, e *encoder) error {
	b := e.bs[0]
	path := a.paths[b.Device.Index]
	aligned := a.aligned
	for _, i := range e.orders[0] {
		e.values = appendRow(e.values[:0], b, i)
		err := a.send(ctx, path, a.pool, func() string { return "insert record of " + b.Device.Name }, func(ctx context.Context, s *session) (*common.TSStatus, error) {
			req := &rpc.TSInsertRecordReq{SessionId: s.id, PrefixPath: path, Measurements: a.names, Values: e.values, Timestamp: b.Timestamps[i], IsAligned: &aligned}
			return s.rpc.InsertRecord(ctx, req)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeRecords sends the rows of every batch in one insertRecords.
func (a *Adapter) writeRecords(ctx context.Context, e *encoder) error {
	e.values, e.rows, e.times, e.paths, e.meas = e.values[:0], e.rows[:0], e.times[:0], e.paths[:0], e.meas[:0]
	for k, b := range e.bs {
		path := a.paths[b.Device.Index]
		for _, i := range e.orders[k] {
			e.values = appendRow(e.values, b, i)
			e.times = append(e.times, b.Timestamps[i])
			e.paths = append(e.paths, path)
			e.meas = append(e.meas, a.names)
		}
	}
	// Slice the rows only now: appending may have moved e.values.
	off := 0
	for k, b := range e.bs {
		for _, i := range e.orders[k] {
			n := rowSize(b, i)
			e.rows = append(e.rows, e.values[off:off+n:off+n])
			off += n
		}
	}
	aligned := a.aligned
	return a.send(ctx, e.key(a.paths[e.bs[0].Device.Index]), a.pool, func() string { return "insert records of " + e.devices() }, func(ctx context.Context, s *session) (*common.TSStatus, error) {
		req := &rpc.TSInsertRecordsReq{SessionId: s.id, PrefixPaths: e.paths, MeasurementsList: e.meas, ValuesList: e.rows, Timestamps: e.times, IsAligned: &aligned}
		return s.rpc.InsertRecords(ctx, req)
	})
}

// key is the routing key of the write: the device's, for a write of one
// device; none for several, whose leaders may differ.
func (e *encoder) key(k string) string {
	if len(e.bs) != 1 {
		return ""
	}
	return k
}

// devices names the devices of the write, for errors.
func (e *encoder) devices() string {
	names := make([]string, len(e.bs))
	for k, b := range e.bs {
		names[k] = b.Device.Name
	}
	return strings.Join(names, ", ")
}

// rowCount is the rows of the write, all batches together.
func (e *encoder) rowCount() int {
	n := 0
	for _, o := range e.orders {
		n += len(o)
	}
	return n
}

// sortRows orders each batch's rows by timestamp, as IoTDB's own sessions
// do before sending (iot-benchmark relied on that too); in-order batches
// skip the sort.
func (e *encoder) sortRows(bs ...*generator.Batch) {
	e.bs = append(e.bs[:0], bs...)
	for len(e.orders) < len(bs) {
		e.orders = append(e.orders, nil)
	}
	e.orders = e.orders[:len(bs)]
	for k, b := range bs {
		n := b.Len()
		order := e.orders[k][:0]
		sorted := true
		for i := 0; i < n; i++ {
			order = append(order, i)
			if i > 0 && b.Timestamps[i] < b.Timestamps[i-1] {
				sorted = false
			}
		}
		if !sorted {
			sort.Slice(order, func(x, y int) bool { return b.Timestamps[order[x]] < b.Timestamps[order[y]] })
		}
		e.orders[k] = order
	}
}

// encodeTablet writes IoTDB's tablet wire format: timestamps as big-endian
// int64s, then each column as big-endian values (TEXT, STRING, BLOB: int32
// length and bytes; DATE: int32 yyyyMMdd), each column holding the rows of
// every batch of the write in turn. No bitmaps: a generated batch has no
// nulls. Encoded, the timestamps and each column are in encodingOf's
// encoding instead, as IoTDB's TabletDecoder reads them.
func (e *encoder) encodeTablet(encoded bool) {
	e.ts, e.times = e.ts[:0], e.times[:0]
	for k, b := range e.bs {
		for _, i := range e.orders[k] {
			if encoded {
				e.times = append(e.times, b.Timestamps[i])
			} else {
				e.ts = binary.BigEndian.AppendUint64(e.ts, uint64(b.Timestamps[i]))
			}
		}
	}
	if encoded {
		e.ts = appendDelta(e.ts, e.times)
	}
	v := e.values[:0]
	for j := range e.bs[0].Columns {
		if encoded {
			v = e.appendEncoded(v, j)
			continue
		}
		for k, b := range e.bs {
			v = appendColumn(v, &b.Columns[j], e.orders[k])
		}
	}
	e.values = v
}

// appendEncoded appends column j of every batch, in row order, in its
// type's encoding.
func (e *encoder) appendEncoded(v []byte, j int) []byte {
	switch typ := e.bs[0].Columns[j].Sensor.Type; typ {
	case generator.Boolean:
		e.bools = e.bools[:0]
		for k, b := range e.bs {
			for _, i := range e.orders[k] {
				e.bools = append(e.bools, b.Columns[j].Bools[i])
			}
		}
		v, e.rle = appendRLEBools(v, e.bools, e.rle)
	case generator.Int32, generator.Date:
		e.i32s = e.i32s[:0]
		for k, b := range e.bs {
			for _, i := range e.orders[k] {
				x := b.Columns[j].Int32s[i]
				if typ == generator.Date {
					x = int32(generator.Day(x).YMD())
				}
				e.i32s = append(e.i32s, x)
			}
		}
		v = appendDelta(v, e.i32s)
	case generator.Int64, generator.Timestamp:
		e.times = e.times[:0]
		for k, b := range e.bs {
			for _, i := range e.orders[k] {
				e.times = append(e.times, b.Columns[j].Int64s[i])
			}
		}
		v = appendDelta(v, e.times)
	case generator.Float:
		e.u32s = e.u32s[:0]
		for k, b := range e.bs {
			for _, i := range e.orders[k] {
				e.u32s = append(e.u32s, math.Float32bits(b.Columns[j].Float32s[i]))
			}
		}
		v = appendGorilla32(v, e.u32s)
	case generator.Double:
		e.u64s = e.u64s[:0]
		for k, b := range e.bs {
			for _, i := range e.orders[k] {
				e.u64s = append(e.u64s, math.Float64bits(b.Columns[j].Float64s[i]))
			}
		}
		v = appendGorilla64(v, e.u64s)
	default: // text types: PLAIN is the plain wire format
		for k, b := range e.bs {
			v = appendColumn(v, &b.Columns[j], e.orders[k])
		}
	}
	return v
}

// appendColumn appends the rows of one column, in order.
func appendColumn(v []byte, c *generator.Column, order []int) []byte {
	switch c.Sensor.Type {
	case generator.Boolean:
		for _, i := range order {
			if c.Bools[i] {
				v = append(v, 1)
			} else {
				v = append(v, 0)
			}
		}
	case generator.Int32:
		for _, i := range order {
			v = binary.BigEndian.AppendUint32(v, uint32(c.Int32s[i]))
		}
	case generator.Int64, generator.Timestamp:
		for _, i := range order {
			v = binary.BigEndian.AppendUint64(v, uint64(c.Int64s[i]))
		}
	case generator.Date:
		for _, i := range order {
			v = binary.BigEndian.AppendUint32(v, uint32(generator.Day(c.Int32s[i]).YMD()))
		}
	case generator.Float:
		for _, i := range order {
			v = binary.BigEndian.AppendUint32(v, math.Float32bits(c.Float32s[i]))
		}
	case generator.Double:
		for _, i := range order {
			v = binary.BigEndian.AppendUint64(v, math.Float64bits(c.Float64s[i]))
		}
	case generator.Text, generator.String, generator.Blob:
		for _, i := range order {
			v = binary.BigEndian.AppendUint32(v, uint32(len(c.Texts[i])))
			v = append(v, c.Texts[i]...)
		}
	}
	return v
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
