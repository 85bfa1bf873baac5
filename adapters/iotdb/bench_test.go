package iotdb

import (
	"testing"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
)

func benchBatch(b *testing.B) (*generator.Batch, *config.Config) {
	return benchBatchOf(b, "0:0:0:1:1:0:0:0:0:0:0")
}

// benchBatchOf is a batch of 100 rows × 100 sensors of the type mix
// (INSERT_DATATYPE_PROPORTION).
func benchBatchOf(b *testing.B, types string) (*generator.Batch, *config.Config) {
	c := adaptertest.Load(b, Driver(), "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=100", "BATCH_SIZE_PER_WRITE=100", "INSERT_DATATYPE_PROPORTION="+types)
	s, _ := generator.NewSchema(c)
	g := generator.New(s, c, 1<<30)
	batch := g.NewBatch()
	g.NewStream(0).Next(batch)
	return batch, c
}

// BenchmarkTabletEncode measures tsbench's tablet encoding: the columnar
// batch straight into IoTDB's plain wire format
// (ENABLE_IOTDB_RPC_COMPRESSION=false).
func BenchmarkTabletEncode(b *testing.B) { benchmarkTabletEncode(b, "0:0:0:1:1:0:0:0:0:0:0", false) }

// BenchmarkTabletEncodeMixed is BenchmarkTabletEncode with the default
// type mix (BOOLEAN … TEXT), as examples/iotdb.properties writes it.
func BenchmarkTabletEncodeMixed(b *testing.B) {
	benchmarkTabletEncode(b, "1:1:1:1:1:1:0:0:0:0:0", false)
}

// BenchmarkTabletEncodeRPC is BenchmarkTabletEncode with the columns
// encoded (ENABLE_IOTDB_RPC_COMPRESSION=true, the default): TS_2DIFF
// times, GORILLA floats.
func BenchmarkTabletEncodeRPC(b *testing.B) { benchmarkTabletEncode(b, "0:0:0:1:1:0:0:0:0:0:0", true) }

// BenchmarkTabletEncodeRPCMixed is BenchmarkTabletEncodeRPC with every
// encoding: RLE booleans, TS_2DIFF integers, PLAIN text.
func BenchmarkTabletEncodeRPCMixed(b *testing.B) {
	benchmarkTabletEncode(b, "1:1:1:1:1:1:0:0:0:0:0", true)
}

func benchmarkTabletEncode(b *testing.B, types string, encoded bool) {
	batch, _ := benchBatchOf(b, types)
	e := &encoder{}
	b.ReportAllocs()
	for b.Loop() {
		e.sortRows(batch)
		e.encodeTablet(encoded)
	}
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
	b.ReportMetric(float64(len(e.ts)+len(e.values))/float64(batch.Points()), "bytes/point")
}

// TestTabletEncodingAllocatesNothing holds the tablet encoders, plain and
// encoded, to no allocation once their buffers have grown: they run for
// every batch a client writes.
func TestTabletEncodingAllocatesNothing(t *testing.T) {
	for _, types := range []string{"0:0:0:1:1:0:0:0:0:0:0", "1:1:1:1:1:1:0:0:0:0:0", "0:0:0:0:0:0:0:0:1:1:0"} {
		c := adaptertest.Load(t, Driver(), "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=30", "BATCH_SIZE_PER_WRITE=300", "INSERT_DATATYPE_PROPORTION="+types)
		s, _ := generator.NewSchema(c)
		g := generator.New(s, c, 1<<30)
		batch := g.NewBatch()
		g.NewStream(0).Next(batch)
		for _, encoded := range []bool{false, true} {
			e := &encoder{}
			e.sortRows(batch)
			e.encodeTablet(encoded)
			if n := testing.AllocsPerRun(50, func() { e.sortRows(batch); e.encodeTablet(encoded) }); n != 0 {
				t.Errorf("types %s, encoded %v: %.1f allocations per tablet", types, encoded, n)
			}
		}
	}
}

// BenchmarkTabletClientLibrary measures the same work through the client
// library's Tablet: SetValueAt(interface{}) per value, then its encoder
// (the path iot-benchmark's Go equivalent would take).
func BenchmarkTabletClientLibrary(b *testing.B) {
	batch, _ := benchBatch(b)
	var schemas []*client.MeasurementSchema
	for _, c := range batch.Columns {
		dt := client.FLOAT
		if c.Sensor.Type == generator.Double {
			dt = client.DOUBLE
		}
		schemas = append(schemas, &client.MeasurementSchema{Measurement: c.Sensor.Name, DataType: dt})
	}
	b.ReportAllocs()
	for b.Loop() {
		t, err := client.NewTablet("root.test.g_0.d_0", schemas, batch.Len())
		if err != nil {
			b.Fatal(err)
		}
		for i, ts := range batch.Timestamps {
			t.SetTimestamp(ts, i)
			for j := range batch.Columns {
				c := &batch.Columns[j]
				var v any
				if c.Sensor.Type == generator.Double {
					v = c.Float64s[i]
				} else {
					v = c.Float32s[i]
				}
				if err := t.SetValueAt(v, j, i); err != nil {
					b.Fatal(err)
				}
			}
			t.RowSize++
		}
		if _, err := t.GetValueAt(0, 0); err != nil {
			b.Fatal(err)
		}
		_ = t.GetTimestampBytes()
	}
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
}

func TestRowSizeMatchesAppendRow(t *testing.T) {
	c := adaptertest.Load(t, Driver(), "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=12", "BATCH_SIZE_PER_WRITE=20", "STRING_LENGTH=5")
	s, _ := generator.NewSchema(c)
	g := generator.New(s, c, 100)
	b := g.NewBatch()
	g.NewStream(0).Next(b)
	for i := 0; i < b.Len(); i++ {
		if got, want := len(appendRow(nil, b, i)), rowSize(b, i); got != want {
			t.Fatalf("row %d: appendRow wrote %d bytes, rowSize says %d", i, got, want)
		}
	}
}
