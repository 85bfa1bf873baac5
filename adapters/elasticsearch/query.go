package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// pageSize is the most hits one search returns by default
// (index.max_result_window); longer results are read with search_after.
const pageSize = 10000

var aggregateDSL = map[string]string{"count": "value_count", "sum": "sum", "avg": "avg", "max_value": "max", "min_value": "min"}

// Query runs q and counts the value cells of its result, as every adapter
// counts them (see package queries).
func (a *Adapter) Query(ctx context.Context, q *queries.Query) (int64, error) {
	if q.Request != "" {
		return a.ownRequest(ctx, q)
	}
	n := int64(0)
	err := a.run(ctx, q, func(string, string, int64, any) { n++ })
	return n, err
}

// Answer runs q and returns its result as values.
func (a *Adapter) Answer(ctx context.Context, q *queries.Query) (queries.Answer, error) {
	var out queries.Answer
	err := a.run(ctx, q, func(dev, sensor string, t int64, v any) {
		out = append(out, queries.Cell{Device: dev, Sensor: sensor, Time: t, Value: v})
	})
	return out, err
}

// index is the one index a query reads: the devices of a query belong to
// one group.
func (a *Adapter) index(q *queries.Query) string {
	if len(q.Devices) == 0 {
		return a.indices[0]
	}
	return a.indices[q.Devices[0].Group]
}

// filter is the bool filter of q: its devices, its time condition and its
// value filter (every selected sensor above the bound).
func filter(q *queries.Query, withTime bool) []any {
	names := make([]string, len(q.Devices))
	for i, d := range q.Devices {
		names[i] = d.Name
	}
	f := []any{map[string]any{"terms": map[string]any{"device": names}}}
	switch {
	case !withTime:
	case q.Family == queries.PrecisePoint:
		f = append(f, map[string]any{"term": map[string]any{"ts": q.Start}})
	case q.Family.IsGroupBy():
		f = append(f, map[string]any{"range": map[string]any{"ts": map[string]any{"gte": q.Start, "lt": q.End}}})
	case q.Family.HasTimeRange():
		f = append(f, map[string]any{"range": map[string]any{"ts": map[string]any{"gte": q.Start, "lte": q.End}}})
	}
	if q.Family.HasValueFilter() {
		for _, s := range q.Sensors {
			f = append(f, map[string]any{"range": map[string]any{s.Name: map[string]any{"gt": q.ValueBound}}})
		}
	}
	return f
}

// Request returns the search body of q (the first page of a raw query), for
// docs/adapters.md and the tests.
func (a *Adapter) Request(q *queries.Query) []byte {
	return a.searchBody(nil, q, nil, pageSize)
}

// searchBody appends the body of one search of q to buf: a page of raw
// rows written directly (rawSearch), an aggregation marshalled from
// aggregationBody.
func (a *Adapter) searchBody(buf []byte, q *queries.Query, after []json.RawMessage, size int) []byte {
	if !q.Family.IsAggregate() && q.Family != queries.LatestPoint {
		return rawSearch(buf, q, after, size)
	}
	data, _ := json.Marshal(aggregationBody(q))
	return append(buf, data...)
}

// rawSearch appends the body of one page of raw rows of q. It is written
// directly: marshalling it from nested maps was a third of the adapter's
// own time in a point query, which the latency of every query includes.
// TestRawSearchBody checks it against json.Marshal of that map.
func rawSearch(b []byte, q *queries.Query, after []json.RawMessage, size int) []byte {
	b = append(b, `{"_source":["device","ts"`...)
	for _, s := range q.Sensors {
		b = appendJSONString(append(b, ','), s.Name)
	}
	b = append(b, `],"query":{"bool":{"filter":[{"terms":{"device":[`...)
	for i, d := range q.Devices {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, d.Name)
	}
	b = append(b, "]}}"...)
	switch f := q.Family; {
	case f == queries.PrecisePoint:
		b = strconv.AppendInt(append(b, `,{"term":{"ts":`...), q.Start, 10)
		b = append(b, "}}"...)
	case f.IsGroupBy():
		b = strconv.AppendInt(append(b, `,{"range":{"ts":{"gte":`...), q.Start, 10)
		b = strconv.AppendInt(append(b, `,"lt":`...), q.End, 10)
		b = append(b, "}}}"...)
	case f.HasTimeRange():
		b = strconv.AppendInt(append(b, `,{"range":{"ts":{"gte":`...), q.Start, 10)
		b = strconv.AppendInt(append(b, `,"lte":`...), q.End, 10)
		b = append(b, "}}}"...)
	}
	if q.Family.HasValueFilter() {
		bound, _ := json.Marshal(q.ValueBound)
		for _, s := range q.Sensors {
			b = appendJSONString(append(b, `,{"range":{`...), s.Name)
			b = append(append(append(b, `:{"gt":`...), bound...), "}}}"...)
		}
	}
	b = append(b, "]}}"...)
	if after != nil {
		// Only pages after the 10,000th hit: json.Marshal compacts the
		// values as the map did.
		data, _ := json.Marshal(after)
		b = append(append(b, `,"search_after":`...), data...)
	}
	b = strconv.AppendInt(append(b, `,"size":`...), int64(size), 10)
	if q.Family.Desc() {
		return append(b, `,"sort":[{"ts":"desc"},{"device":"asc"}]}`...)
	}
	return append(b, `,"sort":[{"ts":"asc"},{"device":"asc"}]}`...)
}

// aggregationBody is the search of an aggregate, group-by or latest-point
// query: no hits, buckets per device.
func aggregationBody(q *queries.Query) map[string]any {
	f := q.Family
	sensors := make([]string, len(q.Sensors))
	for i, s := range q.Sensors {
		sensors[i] = s.Name
	}
	switch {
	case f == queries.LatestPoint:
		return map[string]any{"size": 0, "query": map[string]any{"bool": map[string]any{"filter": filter(q, false)}},
			"aggs": map[string]any{"d": map[string]any{"terms": map[string]any{"field": "device", "size": len(q.Devices)},
				"aggs": map[string]any{"last": map[string]any{"top_hits": map[string]any{"size": 1, "sort": []any{map[string]any{"ts": "desc"}}, "_source": append([]string{"ts"}, sensors...)}}}}}}
	case f.IsAggregate():
		metrics := map[string]any{}
		for i, s := range sensors {
			metrics["s"+strconv.Itoa(i)] = map[string]any{aggregateDSL[q.Aggregate]: map[string]any{"field": s}}
		}
		var perDevice any = metrics
		if f.IsGroupBy() {
			order := "asc"
			if f.Desc() {
				order = "desc"
			}
			offset := ((q.Start % q.GroupBy) + q.GroupBy) % q.GroupBy
			perDevice = map[string]any{"w": map[string]any{"histogram": map[string]any{"field": "ts", "interval": q.GroupBy, "offset": offset, "min_doc_count": 1, "order": map[string]any{"_key": order}},
				"aggs": metrics}}
		}
		return map[string]any{"size": 0, "query": map[string]any{"bool": map[string]any{"filter": filter(q, true)}},
			"aggs": map[string]any{"d": map[string]any{"terms": map[string]any{"field": "device", "size": len(q.Devices)}, "aggs": perDevice}}}
	}
	return nil
}

// searchPath asks the server for the parts of an answer the adapter reads:
// a hit's _index, _id, _score and the shard counts are bytes to send and
// parse inside every query's latency.
const searchPath = "/_search?filter_path=hits.hits._source,hits.hits.sort,aggregations"

type emitFunc func(device, sensor string, t int64, v any)

// run sends q's searches and emits every cell.
func (a *Adapter) run(ctx context.Context, q *queries.Query, emit emitFunc) error {
	if q.Family.IsAggregate() || q.Family == queries.LatestPoint {
		var res searchResult
		if err := a.search(ctx, q, a.searchBody(nil, q, nil, 0), &res); err != nil {
			return err
		}
		return a.emitAggregations(q, &res, emit)
	}
	// Raw rows, page by page in (ts, device) order, up to the limit.
	left := int64(-1)
	if q.Limit >= 0 {
		left = q.Limit
	}
	var after []json.RawMessage
	var buf []byte
	for left != 0 {
		size := pageSize
		if left > 0 && left < pageSize {
			size = int(left)
		}
		var res searchResult
		buf = a.searchBody(buf[:0], q, after, size)
		if err := a.search(ctx, q, buf, &res); err != nil {
			return err
		}
		for _, h := range res.Hits.Hits {
			if err := a.emitSource(q, h.Source, -1, emit); err != nil {
				return err
			}
		}
		n := len(res.Hits.Hits)
		if left > 0 {
			left -= int64(n)
		}
		if n < size || n == 0 {
			break
		}
		after = res.Hits.Hits[n-1].Sort
	}
	return nil
}

type hit struct {
	Source map[string]json.RawMessage `json:"_source"`
	// Sort is sent back as is for the next page (search_after): raw, so
	// that a 64-bit timestamp is not read as a float64.
	Sort []json.RawMessage `json:"sort"`
}

type searchResult struct {
	Hits struct {
		Hits []hit `json:"hits"`
	} `json:"hits"`
	Aggregations struct {
		D struct {
			Buckets []map[string]json.RawMessage `json:"buckets"`
		} `json:"d"`
	} `json:"aggregations"`
}

func (a *Adapter) search(ctx context.Context, q *queries.Query, body []byte, out *searchResult) error {
	raw, err := a.send(ctx, http.MethodPost, "/"+a.index(q)+searchPath, "application/json", body, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", q.Family.ID(), err)
	}
	// Every number of the answer lands in a json.RawMessage, so plain
	// Unmarshal reads it exactly (no Decoder, no UseNumber).
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: unreadable answer: %w", q.Family.ID(), err)
	}
	return nil
}

// emitSource emits the selected sensors of one document; t < 0 takes the
// document's own timestamp.
func (a *Adapter) emitSource(q *queries.Query, src map[string]json.RawMessage, t int64, emit emitFunc) error {
	var dev string
	if err := json.Unmarshal(src["device"], &dev); err != nil && t < 0 {
		return fmt.Errorf("%s: a hit without its device: %w", q.Family.ID(), err)
	}
	if t < 0 {
		n, err := strconv.ParseInt(string(src["ts"]), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: a hit without its timestamp: %w", q.Family.ID(), err)
		}
		t = n
	}
	for _, s := range q.Sensors {
		raw, ok := src[s.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		v, err := value(s, raw)
		if err != nil {
			return fmt.Errorf("%s: %s of %s: %w", q.Family.ID(), s.Name, dev, err)
		}
		emit(dev, s.Name, t, v)
	}
	return nil
}

// value reads a stored value in the form of queries.Cell: numbers and
// booleans as float64 (a FLOAT at 32 bits, as it was written), text as is.
func value(s *generator.Sensor, raw json.RawMessage) (any, error) {
	switch s.Type {
	case generator.Boolean:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		if b {
			return 1.0, nil
		}
		return 0.0, nil
	case generator.Text, generator.String:
		var t string
		err := json.Unmarshal(raw, &t)
		return t, err
	case generator.Float:
		return strconv.ParseFloat(string(raw), 32)
	}
	return strconv.ParseFloat(string(raw), 64)
}

// emitAggregations reads the per-device buckets of an aggregate, group-by
// or latest-point search.
func (a *Adapter) emitAggregations(q *queries.Query, res *searchResult, emit emitFunc) error {
	for _, b := range res.Aggregations.D.Buckets {
		var dev string
		if err := json.Unmarshal(b["key"], &dev); err != nil {
			return fmt.Errorf("%s: a bucket without its device: %w", q.Family.ID(), err)
		}
		switch {
		case q.Family == queries.LatestPoint:
			var last struct {
				Hits struct {
					Hits []hit `json:"hits"`
				} `json:"hits"`
			}
			if err := unmarshalNumbers(b["last"], &last); err != nil {
				return err
			}
			for _, h := range last.Hits.Hits {
				h.Source["device"], _ = json.Marshal(dev)
				if err := a.emitSource(q, h.Source, -1, emit); err != nil {
					return err
				}
			}
		case q.Family.IsGroupBy():
			var w struct {
				Buckets []map[string]json.RawMessage `json:"buckets"`
			}
			if err := unmarshalNumbers(b["w"], &w); err != nil {
				return err
			}
			for _, wb := range w.Buckets {
				key, err := strconv.ParseFloat(string(wb["key"]), 64)
				if err != nil {
					return fmt.Errorf("%s: window key %s: %w", q.Family.ID(), wb["key"], err)
				}
				if err := emitMetrics(q, dev, int64(math.Round(key)), wb, emit); err != nil {
					return err
				}
			}
		default:
			if err := emitMetrics(q, dev, 0, b, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

func emitMetrics(q *queries.Query, dev string, t int64, b map[string]json.RawMessage, emit emitFunc) error {
	for i, s := range q.Sensors {
		var m struct {
			Value *json.Number `json:"value"`
		}
		if err := unmarshalNumbers(b["s"+strconv.Itoa(i)], &m); err != nil {
			return err
		}
		if m.Value == nil {
			continue // no value to aggregate (an empty bucket)
		}
		v, err := m.Value.Float64()
		if err != nil {
			return fmt.Errorf("%s: %s of %s: %w", q.Family.ID(), s.Name, dev, err)
		}
		emit(dev, s.Name, t, v)
	}
	return nil
}

func unmarshalNumbers(raw json.RawMessage, out any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	return dec.Decode(out)
}
