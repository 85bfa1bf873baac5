package elasticsearch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/queries"
)

// encoderFixture is an adapter that only encodes (no server) and one batch
// of 100 rows of 20 sensors of every type.
func encoderFixture(t testing.TB, typed bool) (*Adapter, *generator.Batch) {
	c := adaptertest.Load(t, Driver(), "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=20", "BATCH_SIZE_PER_WRITE=100", "STRING_LENGTH=8")
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	a := &Adapter{cfg: c, opts: options(c), schema: s, typed: typed}
	line := `{"index":{"_index":"test-g_0"}}` + "\n"
	if typed {
		line = `{"index":{"_index":"test-g_0","_type":"_doc"}}` + "\n"
	}
	a.actions = [][]byte{[]byte(line)}
	g := generator.New(s, c, 1<<30)
	b := g.NewBatch()
	g.NewStream(0).Next(b)
	return a, b
}

// BenchmarkEncodeBulk measures the NDJSON encoder: the columnar batch
// straight into a reused buffer, 0 allocations per document.
func BenchmarkEncodeBulk(b *testing.B) {
	a, batch := encoderFixture(b, false)
	buf := make([]byte, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		buf = a.encodeBulk(buf[:0], batch)
	}
	b.ReportMetric(float64(b.N)*float64(batch.Len())/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(b.N)*float64(batch.Points())/b.Elapsed().Seconds(), "points/s")
}

// TestEncodeBulk checks that every line is JSON holding the batch's values,
// with 6.x's mapping type only where the server needs it.
func TestEncodeBulk(t *testing.T) {
	for _, typed := range []bool{false, true} {
		a, batch := encoderFixture(t, typed)
		out := a.encodeBulk(nil, batch)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != 2*batch.Len() {
			t.Fatalf("%d lines for %d rows", len(lines), batch.Len())
		}
		for i := 0; i < batch.Len(); i++ {
			var action map[string]map[string]string
			if err := json.Unmarshal([]byte(lines[2*i]), &action); err != nil || action["index"]["_index"] != "test-g_0" || (action["index"]["_type"] == "_doc") != typed {
				t.Fatalf("action line %q (%v)", lines[2*i], err)
			}
			dec := json.NewDecoder(strings.NewReader(lines[2*i+1]))
			dec.UseNumber()
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("document %q: %v", lines[2*i+1], err)
			}
			if doc["device"] != "d_0" || doc["ts"].(json.Number).String() != jsonInt(batch.Timestamps[i]) || len(doc) != 2+len(batch.Columns) {
				t.Fatalf("document %v", doc)
			}
			for _, c := range batch.Columns {
				raw, _ := json.Marshal(doc[c.Sensor.Name])
				v, err := value(c.Sensor, raw)
				want := columnValue(&c, i)
				if err != nil || v != want {
					t.Fatalf("%s row %d: encoded %s reads back as %v (%v), want %v", c.Sensor.Name, i, raw, v, err, want)
				}
			}
		}
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(bytes.TrimSpace(b)) }

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"plain", `quote " and \ backslash`, "tab\tnew\nline\x01", "ünïcode ✓", "bad \xff byte"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q encodes as %s, not JSON: %v", s, got, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want {
			t.Fatalf("%q reads back as %q", s, back)
		}
	}
}

// columnValue is row i of a column in the form of queries.Cell.
func columnValue(c *generator.Column, i int) any {
	switch c.Sensor.Type {
	case generator.Boolean:
		if c.Bools[i] {
			return 1.0
		}
		return 0.0
	case generator.Int32:
		return float64(c.Int32s[i])
	case generator.Int64:
		return float64(c.Int64s[i])
	case generator.Float:
		return float64(c.Float32s[i])
	case generator.Double:
		return c.Float64s[i]
	}
	return c.Texts[i]
}

// BenchmarkSearchRequest measures the client's side of a point query that
// falls inside its measured latency: building and marshalling the search
// body, and decoding a one-hit answer.
func BenchmarkSearchRequest(b *testing.B) {
	a, batch := encoderFixture(b, false)
	q := &queries.Query{Family: queries.PrecisePoint, Devices: []*generator.Device{batch.Device},
		Sensors: []*generator.Sensor{batch.Columns[0].Sensor}, Start: batch.Timestamps[0], End: batch.Timestamps[0], Limit: -1}
	answer := []byte(`{"took":1,"timed_out":false,"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_source":{"device":"d_0","ts":1640966400000,"s_0":true},"sort":[1640966400000,"d_0"]}]}}`)
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = a.searchBody(buf[:0], q, nil, pageSize)
		var res searchResult
		if err := json.Unmarshal(answer, &res); err != nil {
			b.Fatal(err)
		}
	}
}
