package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// ownRequests reads a suite's own requests as Elasticsearch's and
// OpenSearch's search bodies ("elasticsearch"): devices and sensors as
// JSON strings in lists ({devices}, {sensors}), bare in {device} and
// {sensor}, the group's index in {index}. A request is a body, sent to
// the index's _search, or "METHOD /path body" (or "/path body") for
// another endpoint.
var ownRequests = &adapters.Requests{
	Language: func(*config.Config) string { return "elasticsearch" },
	Values: func(c *config.Config, s *generator.Schema, q *queries.Query) map[string]string {
		v := adapters.CommonValues(q, aggregateDSL[q.Aggregate])
		devs := make([]string, len(q.Devices))
		for i, d := range q.Devices {
			devs[i] = `"` + d.Name + `"`
		}
		names := make([]string, len(q.Sensors))
		for i, sn := range q.Sensors {
			names[i] = `"` + sn.Name + `"`
		}
		adapters.SetNames(v, devs, names)
		// Bare where a body quotes them itself: "field": "{sensor}".
		if len(q.Devices) > 0 {
			v["device"] = q.Devices[0].Name
			v["index"] = indexName(c, s.Groups[q.Devices[0].Group].Name)
		}
		if len(q.Sensors) > 0 {
			v["sensor"] = q.Sensors[0].Name
		}
		return v
	},
}

// splitRequest is a request's method, path and body: "[METHOD] /path
// body", or a bare body for the query's index's _search (POST).
func (a *Adapter) splitRequest(q *queries.Query) (method, path, body string) {
	method, rest := http.MethodPost, q.Request
	if m, r, ok := strings.Cut(rest, " "); ok && (m == "GET" || m == "POST" || m == "PUT") {
		method, rest = m, strings.TrimSpace(r)
	}
	if strings.HasPrefix(rest, "/") {
		p, b, _ := strings.Cut(rest, " ")
		return method, p, strings.TrimSpace(b)
	}
	return method, "/" + a.index(q) + "/_search", rest
}

// ownRequest sends a suite's own request and counts the values of its
// answer: every field of every hit (device and ts left out) and every
// aggregation's value, through the buckets.
func (a *Adapter) ownRequest(ctx context.Context, q *queries.Query) (int64, error) {
	method, path, body := a.splitRequest(q)
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	raw, err := a.send(ctx, method, path, "application/json", b, nil)
	if err != nil {
		return 0, fmt.Errorf("%s's request: %w", q.Variant, err)
	}
	var res struct {
		Hits struct {
			Hits []struct {
				Source map[string]json.RawMessage `json:"_source"`
				Fields map[string]json.RawMessage `json:"fields"`
			} `json:"hits"`
		} `json:"hits"`
		Aggregations map[string]any `json:"aggregations"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return 0, fmt.Errorf("%s's request: unreadable answer: %w", q.Variant, err)
	}
	var n int64
	for _, h := range res.Hits.Hits {
		for _, m := range []map[string]json.RawMessage{h.Source, h.Fields} {
			for k, v := range m {
				if !adapters.KeyColumn(k, "device", "ts") && string(v) != "null" {
					n++
				}
			}
		}
	}
	return n + aggValues(res.Aggregations), nil
}

// aggValues counts the values of an aggregations object: a metric's
// non-null "value", each of a multi-value metric's "values", and those of
// every bucket and sub-aggregation below.
func aggValues(x any) int64 {
	var n int64
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			switch {
			case k == "value":
				if v != nil {
					n++
				}
			case k == "values":
				if m, ok := v.(map[string]any); ok {
					for _, e := range m {
						if e != nil {
							n++
						}
					}
				} else {
					n += aggValues(v)
				}
			default:
				n += aggValues(v)
			}
		}
	case []any:
		for _, e := range t {
			n += aggValues(e)
		}
	}
	return n
}
