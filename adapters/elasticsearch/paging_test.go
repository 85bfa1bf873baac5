package elasticsearch

import (
	"context"
	"testing"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// TestResultsBeyondOnePage: a raw query whose result holds more than the
// 10,000 hits one search returns must be read completely (search_after),
// and a limit above a page must stop exactly at the limit.
func TestResultsBeyondOnePage(t *testing.T) {
	const rows = 6500 // two devices: 13,000 hits
	p := esPlan(t, "DB_NAME=tsbench_paging", "DEVICE_NUMBER=2", "GROUP_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=1",
		"INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "BATCH_SIZE_PER_WRITE=500", "POINT_STEP=1000")
	ctx := context.Background()
	a := openClean(t, p, true)
	g := generator.New(p.Schema, p.Config, rows)
	b := g.NewBatch()
	for d := range p.Schema.Devices {
		st := g.NewStream(d)
		for st.Next(b) {
			if err := a.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	devs := []*generator.Device{&p.Schema.Devices[0], &p.Schema.Devices[1]}
	start := p.Config.StartUnits()
	for _, c := range []struct {
		family queries.Family
		limit  int64
		want   int
	}{
		{queries.TimeRange, -1, 2 * rows},
		{queries.RangeDesc, -1, 2 * rows},
		{queries.TimeRange, 12345, 12345},
	} {
		q := &queries.Query{Family: c.family, Devices: devs, Sensors: []*generator.Sensor{&p.Schema.Sensors[0]}, Start: start, End: start + rows*1000, Limit: c.limit}
		got, err := a.Answer(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got.Sort()
		want := queries.Expected(g, q)
		if len(got) != c.want || len(want) != c.want {
			t.Fatalf("%s limit %d: %d cells, the model %d, want %d", c.family, c.limit, len(got), len(want), c.want)
		}
		if d := queries.Diff(got, want); d != "" {
			t.Fatalf("%s limit %d: %s", c.family, c.limit, d)
		}
	}
}
