package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/internal/loopback"
	"github.com/tsbench/tsbench/queries"
)

// loopbackQuery opens the adapter against a calibration target that answers
// at once, and returns it with a point query like the calibration's.
func loopbackQuery(b testing.TB) (*Adapter, *queries.Query, *loopback.Server) {
	srv, err := loopback.Start(loopback.Delay{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	c := adaptertest.Load(b, Driver(), "HOST=127.0.0.1", "PORT="+strconv.Itoa(srv.Port), "DEVICE_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=10", "GROUP_NUMBER=1")
	s, err := generator.NewSchema(c)
	if err != nil {
		b.Fatal(err)
	}
	ad, err := Driver().Open(context.Background(), adapters.Params{Config: c, Schema: s})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ad.Close() })
	q := &queries.Query{Family: queries.PrecisePoint, Devices: []*generator.Device{&s.Devices[0]},
		Sensors: []*generator.Sensor{&s.Sensors[0]}, Start: 1640966400000, End: 1640966400000, Limit: -1}
	return ad.(*Adapter), q, srv
}

// BenchmarkQueryLoopback is a whole point query through the adapter (body,
// HTTP exchange, decoding) against a server that answers at once; beside
// BenchmarkBarePost it shows what the adapter adds to a query's latency.
func BenchmarkQueryLoopback(b *testing.B) {
	a, q, _ := loopbackQuery(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Query(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBarePost posts the same search body to the same server with
// net/http and reads the answer, nothing else: the floor of
// BenchmarkQueryLoopback.
func BenchmarkBarePost(b *testing.B) {
	a, q, srv := loopbackQuery(b)
	body := a.Request(q)
	url := "http://127.0.0.1:" + strconv.Itoa(srv.Port) + "/" + a.index(q) + searchPath
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

// rawSearchMap is the raw-row search as the adapter built it before
// rawSearch wrote it directly: nested maps for json.Marshal. It is the
// reference TestRawSearchBody holds rawSearch to.
func rawSearchMap(q *queries.Query, after []json.RawMessage, size int) map[string]any {
	order := "asc"
	if q.Family.Desc() {
		order = "desc"
	}
	source := []string{"device", "ts"}
	for _, s := range q.Sensors {
		source = append(source, s.Name)
	}
	b := map[string]any{"size": size, "query": map[string]any{"bool": map[string]any{"filter": filter(q, true)}},
		"sort":    []any{map[string]any{"ts": order}, map[string]any{"device": "asc"}},
		"_source": source}
	if after != nil {
		b["search_after"] = after
	}
	return b
}

// TestRawSearchBody checks the directly written body of every raw family
// against json.Marshal of the same search as a map: the same bytes for
// plain names, the same JSON for names json escapes, with and without a
// search_after, ascending and descending.
func TestRawSearchBody(t *testing.T) {
	c := adaptertest.Load(t, Driver(), "DEVICE_NUMBER=4", "GROUP_NUMBER=1", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=4")
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	odd := &generator.Device{Name: `d"<&>\é` + "\u2028\n"}
	oddSensor := &generator.Sensor{Name: "s<1>", Type: generator.Double}
	raw := 0
	for _, f := range queries.Families {
		if f.IsAggregate() || f == queries.LatestPoint {
			continue
		}
		raw++
		for _, c := range []struct {
			devs    []*generator.Device
			sensors []*generator.Sensor
			after   []json.RawMessage
			bound   float64
			plain   bool
		}{
			{[]*generator.Device{&s.Devices[0]}, []*generator.Sensor{&s.Sensors[0]}, nil, -5, true},
			{[]*generator.Device{&s.Devices[0], &s.Devices[3]}, []*generator.Sensor{&s.Sensors[1], &s.Sensors[2]}, []json.RawMessage{json.RawMessage(`1640966400000`), json.RawMessage(`"d_3"`)}, 1.5e-7, true},
			{nil, nil, nil, 1e21, true},
			{[]*generator.Device{odd}, []*generator.Sensor{oddSensor}, nil, 0.25, false},
		} {
			q := &queries.Query{Family: f, Devices: c.devs, Sensors: c.sensors, Start: 1640966400000, End: 1640966460000, ValueBound: c.bound, GroupBy: 2000, Limit: -1}
			got := rawSearch(nil, q, c.after, 123)
			want, err := json.Marshal(rawSearchMap(q, c.after, 123))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %s is not JSON: %v", f.ID(), got, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) || c.plain && !bytes.Equal(got, want) {
				t.Errorf("%s:\n got %s\nwant %s", f.ID(), got, want)
			}
		}
	}
	if raw < 5 {
		t.Fatalf("only %d raw families checked", raw)
	}
}

// TestAnswerNoted: a query and a bulk write note when their answer is in
// (adapters.Received), before they decode it, so that the runner's clock
// stops there.
func TestAnswerNoted(t *testing.T) {
	a, q, _ := loopbackQuery(t)
	ctx, clock := adapters.WithResponseClock(context.Background())
	before := time.Now()
	if _, err := a.Query(ctx, q); err != nil {
		t.Fatal(err)
	}
	if at := clock.At(); at.Before(before) || at.After(time.Now()) {
		t.Fatalf("the query's answer noted at %v, not during the query (from %v)", at, before)
	}
	g := generator.New(a.schema, a.cfg, 100)
	b := g.NewBatch()
	g.NewStream(0).Next(b)
	clock.Reset()
	before = time.Now()
	if err := a.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if at := clock.At(); at.Before(before) || at.After(time.Now()) {
		t.Fatalf("the bulk's answer noted at %v, not during the write (from %v)", at, before)
	}
}
