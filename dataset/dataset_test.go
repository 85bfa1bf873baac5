package dataset

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/configtest"
)

// workload is a schema of every type with out-of-order rows, and its
// generator.
func workload(t testing.TB, sets ...string) (*generator.Schema, *generator.Generator) {
	t.Helper()
	c := configtest.Load(t, nil, append([]string{"DEVICE_NUMBER=5", "SENSOR_NUMBER=20", "DATA_CLIENT_NUMBER=1", "BATCH_SIZE_PER_WRITE=37", "LOOP=9",
		"INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1", "IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.3", "REAL_INSERT_RATE=0.8"}, sets...)...)
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	return s, generator.New(s, c, int64(c.Loop)*int64(c.BatchSize))
}

// The files hold the batches bit for bit as the generator makes them, in
// the same batches, for every type and out-of-order rows.
func TestRoundTrip(t *testing.T) {
	s, g := workload(t)
	dir := filepath.Join(t.TempDir(), "data")
	var last int64
	if err := Write(context.Background(), dir, s, g, "made by the test\n", func(p int64) { last = p }); err != nil {
		t.Fatal(err)
	}
	set, err := Open(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	types := map[generator.DataType]bool{}
	for _, sn := range s.Sensors {
		types[sn.Type] = true
	}
	if len(types) != int(generator.LastType)+1 {
		t.Fatalf("the schema has %d types, want all %d", len(types), generator.LastType+1)
	}
	var points int64
	written := 0
	for i := range s.Devices {
		if !s.Devices[i].Written {
			if _, err := os.Stat(filepath.Join(dir, s.Devices[i].Name)); err == nil {
				t.Errorf("%s is not written, but has a folder", s.Devices[i].Name)
			}
			continue
		}
		written++
		want, got := g.NewBatch(), g.NewBatch()
		gen := g.NewStream(i)
		st, err := set.Stream(i)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for gen.Next(want) {
			if !st.Next(got) {
				t.Fatalf("%s: the file ends after %d batches: %v", s.Devices[i].Name, n, st.Err())
			}
			if got.Device != want.Device || !reflect.DeepEqual(got.Timestamps, want.Timestamps) {
				t.Fatalf("%s batch %d: timestamps differ", s.Devices[i].Name, n)
			}
			for j := range want.Columns {
				if !reflect.DeepEqual(columnValues(&got.Columns[j], got.Len()), columnValues(&want.Columns[j], want.Len())) {
					t.Fatalf("%s batch %d sensor %s (%s): values differ", s.Devices[i].Name, n, want.Columns[j].Sensor.Name, want.Columns[j].Sensor.Type)
				}
			}
			points += got.Points()
			n++
		}
		if st.Next(got) || st.Err() != nil {
			t.Fatalf("%s: more in the file than the generator makes, or %v", s.Devices[i].Name, st.Err())
		}
	}
	if written != 4 || points != last || points != int64(written)*9*37*20 {
		t.Fatalf("%d devices, %d points (the writer said %d)", written, points, last)
	}
}

func columnValues(c *generator.Column, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = c.Value(i)
	}
	return out
}

// A data set of another workload, or damaged, is refused with what
// differs; a folder that holds one already is not written over.
func TestRefusals(t *testing.T) {
	s, g := workload(t)
	dir := filepath.Join(t.TempDir(), "data")
	if err := Write(context.Background(), dir, s, g, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), dir, s, g, "", nil); err == nil || !strings.Contains(err.Error(), "holds a data set already") {
		t.Errorf("a second write into one folder: %v", err)
	}
	if _, err := Open(t.TempDir(), s); err == nil || !strings.Contains(err.Error(), "holds no data set (no schema.txt; bench generate writes one)") {
		t.Errorf("an empty folder: %v", err)
	}
	more, _ := workload(t, "DEVICE_NUMBER=8")
	if _, err := Open(dir, more); err == nil || !strings.Contains(err.Error(), "has no device d_4, which the workload writes") {
		t.Errorf("a workload of more devices: %v", err)
	}
	other, _ := workload(t, "INSERT_DATATYPE_PROPORTION=1:0:0:0:0:0:0:0:0:0")
	if _, err := Open(dir, other); err == nil || !strings.Contains(err.Error(), "sensor 3 as s_2 of type") {
		t.Errorf("a workload of other types: %v", err)
	}

	// A value that is not its type's stops the stream at its line.
	file := filepath.Join(dir, s.Devices[0].Name, DataFile)
	data, _ := os.ReadFile(file)
	lines := strings.Split(string(data), "\n")
	f := strings.Split(lines[3], ",")
	for j, sn := range s.Sensors {
		if sn.Type == generator.Int32 {
			f[j+1] = "1.5"
			break
		}
	}
	lines[3] = strings.Join(f, ",")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Open(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := set.Stream(0)
	b := g.NewBatch()
	if st.Next(b) || st.Err() == nil || !strings.Contains(st.Err().Error(), "BigBatch_0.csv line 4: s_") || !strings.Contains(st.Err().Error(), `value "1.5"`) {
		t.Errorf("a damaged value: %v", st.Err())
	}
}

// BenchmarkReplay is the cost of reading a batch back (37 rows × 20
// sensors of every type) against making it.
func BenchmarkReplay(b *testing.B) {
	s, g := workload(b, "LOOP=400")
	dir := b.TempDir()
	if err := Write(context.Background(), filepath.Join(dir, "d"), s, g, "", nil); err != nil {
		b.Fatal(err)
	}
	set, err := Open(filepath.Join(dir, "d"), s)
	if err != nil {
		b.Fatal(err)
	}
	batch := g.NewBatch()
	b.Run("replay", func(b *testing.B) {
		var st *Stream
		var points int64
		for b.Loop() {
			if st == nil || !st.Next(batch) {
				st, _ = set.Stream(0)
				st.Next(batch)
			}
			points += batch.Points()
		}
		b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
	})
	b.Run("generate", func(b *testing.B) {
		var st *generator.Stream
		var points int64
		for b.Loop() {
			if st == nil || !st.Next(batch) {
				st = g.NewStream(0)
				st.Next(batch)
			}
			points += batch.Points()
		}
		b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
	})
}
