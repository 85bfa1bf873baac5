package null

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// tracer writes NULL_TRACE: a line per operation the Null database
// receives, so that what a configuration sends can be read (and compared
// between two configurations) without a database.
type tracer struct {
	mu sync.Mutex
	f  *os.File
}

// line writes one line; a nil tracer writes nothing.
func (t *tracer) line(format string, a ...any) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.f, format+"\n", a...)
}

// schema writes the groups, tables, devices with their tags, and sensors.
func (t *tracer) schema(s *generator.Schema) {
	w := bufio.NewWriter(t.f)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, g := range s.Groups {
		fmt.Fprintf(w, "schema group %s\n", g.Name)
	}
	for _, tb := range s.Tables {
		fmt.Fprintf(w, "schema table %+v\n", tb)
	}
	for _, d := range s.Devices {
		fmt.Fprintf(w, "schema device %s id %d group %d table %d written %v tags %s=%s\n", d.Name, d.ID, d.Group, d.Table, d.Written,
			strings.Join(s.TagKeys, ","), strings.Join(d.Tags, ","))
	}
	for _, se := range s.Sensors {
		fmt.Fprintf(w, "schema sensor %s %s %+v\n", se.Name, se.Type, se.Func)
	}
	w.Flush()
}

// write writes a batch: its device, rows, time range and a digest of the
// timestamps and values.
func (t *tracer) write(what string, b *generator.Batch) {
	h := fnv.New64a()
	var buf [8]byte
	put := func(u uint64) {
		for i := range buf {
			buf[i] = byte(u >> (8 * i))
		}
		h.Write(buf[:])
	}
	for _, ts := range b.Timestamps {
		put(uint64(ts))
	}
	for j := range b.Columns {
		c := &b.Columns[j]
		for i := range b.Timestamps {
			switch c.Sensor.Type {
			case generator.Boolean:
				if c.Bools[i] {
					put(1)
				} else {
					put(0)
				}
			case generator.Int32, generator.Date:
				put(uint64(c.Int32s[i]))
			case generator.Int64, generator.Timestamp:
				put(uint64(c.Int64s[i]))
			case generator.Float:
				put(uint64(math.Float32bits(c.Float32s[i])))
			case generator.Double:
				put(math.Float64bits(c.Float64s[i]))
			default:
				h.Write([]byte(c.Texts[i]))
			}
		}
	}
	first, last := int64(0), int64(0)
	if n := len(b.Timestamps); n > 0 {
		first, last = b.Timestamps[0], b.Timestamps[n-1]
	}
	t.line("%s: %s, %d rows, %d..%d, digest %016x", what, b.Device.Name, b.Len(), first, last, h.Sum64())
}

// query writes a query's parameters.
func (t *tracer) query(q *queries.Query) {
	var devs, sensors []string
	for _, d := range q.Devices {
		devs = append(devs, d.Name)
	}
	for _, s := range q.Sensors {
		sensors = append(sensors, s.Name)
	}
	t.line("query %s (%s): devices %s, sensors %s, time %d..%d, value > %g, %s, group by %d, limit %d",
		q.Variant, q.Family, strings.Join(devs, ","), strings.Join(sensors, ","), q.Start, q.End, q.ValueBound, q.Aggregate, q.GroupBy, q.Limit)
}
