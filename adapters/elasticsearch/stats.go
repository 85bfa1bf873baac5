package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/tsbench/tsbench/adapters"
)

var _ adapters.MetricsReporter = (*Adapter)(nil)

// shardStats is the part of an index or shard stats section tsbench reads.
type shardStats struct {
	Routing struct {
		Primary bool `json:"primary"`
	} `json:"routing"`
	Indexing struct {
		Time     float64 `json:"index_time_in_millis"`
		Throttle float64 `json:"throttle_time_in_millis"`
	} `json:"indexing"`
	Merges struct {
		Time      float64 `json:"total_time_in_millis"`
		Count     float64 `json:"total"`
		Throttled float64 `json:"total_throttled_time_in_millis"`
	} `json:"merges"`
	Refresh struct {
		Time  float64 `json:"total_time_in_millis"`
		Count float64 `json:"total"`
	} `json:"refresh"`
	Flush struct {
		Time  float64 `json:"total_time_in_millis"`
		Count float64 `json:"total"`
	} `json:"flush"`
	Store struct {
		Size float64 `json:"size_in_bytes"`
	} `json:"store"`
	Translog struct {
		Size float64 `json:"size_in_bytes"`
	} `json:"translog"`
	Segments struct {
		Count float64 `json:"count"`
	} `json:"segments"`
}

// ServerMetrics reads Rally's node-level figures, with Rally's names and
// units: index statistics of the benchmark's indices (cumulative times of
// primary shards in minutes, with min/median/max across primary shards;
// counts; store and translog size in GB; segment count), and from the
// nodes' statistics the young and old GC time (s) and count and the ingest
// pipelines' count, time (s) and failures, summed over nodes.
func (a *Adapter) ServerMetrics(ctx context.Context) ([]adapters.ServerMetric, error) {
	var idx struct {
		All struct {
			Primaries shardStats `json:"primaries"`
			Total     shardStats `json:"total"`
		} `json:"_all"`
		Indices map[string]struct {
			Shards map[string][]shardStats `json:"shards"`
		} `json:"indices"`
	}
	if err := a.do(ctx, http.MethodGet, "/"+a.allIndices()+"/_stats?level=shards&ignore_unavailable=true", nil, &idx); err != nil {
		return nil, fmt.Errorf("index stats: %w", err)
	}
	var primaries []shardStats
	for _, in := range idx.Indices {
		for _, copies := range in.Shards {
			for _, s := range copies {
				if s.Routing.Primary {
					primaries = append(primaries, s)
				}
			}
		}
	}
	var out []adapters.ServerMetric
	add := func(name, unit string, v float64, counter bool) {
		out = append(out, adapters.ServerMetric{Name: name, Unit: unit, Value: v, Counter: counter})
	}
	const minute = 60000.0
	p := idx.All.Primaries
	for _, c := range []struct {
		what  string
		total float64
		count float64
		get   func(s shardStats) float64
		noun  string // "time" or "throttle time"
	}{
		{"indexing", p.Indexing.Time, -1, func(s shardStats) float64 { return s.Indexing.Time }, "time"},
		{"indexing", p.Indexing.Throttle, -1, func(s shardStats) float64 { return s.Indexing.Throttle }, "throttle time"},
		{"merge", p.Merges.Time, p.Merges.Count, func(s shardStats) float64 { return s.Merges.Time }, "time"},
		{"merge", p.Merges.Throttled, -1, func(s shardStats) float64 { return s.Merges.Throttled }, "throttle time"},
		{"refresh", p.Refresh.Time, p.Refresh.Count, func(s shardStats) float64 { return s.Refresh.Time }, "time"},
		{"flush", p.Flush.Time, p.Flush.Count, func(s shardStats) float64 { return s.Flush.Time }, "time"},
	} {
		add(fmt.Sprintf("Cumulative %s %s of primary shards", c.what, c.noun), "min", c.total/minute, false)
		if c.count >= 0 {
			add(fmt.Sprintf("Cumulative %s count of primary shards", c.what), "", c.count, false)
		}
		if len(primaries) > 0 {
			vals := make([]float64, len(primaries))
			for i, s := range primaries {
				vals[i] = c.get(s) / minute
			}
			sort.Float64s(vals)
			med := vals[len(vals)/2]
			if len(vals)%2 == 0 {
				med = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
			}
			add(fmt.Sprintf("Min cumulative %s %s across primary shards", c.what, c.noun), "min", vals[0], false)
			add(fmt.Sprintf("Median cumulative %s %s across primary shards", c.what, c.noun), "min", med, false)
			add(fmt.Sprintf("Max cumulative %s %s across primary shards", c.what, c.noun), "min", vals[len(vals)-1], false)
		}
	}
	add("Store size", "GB", idx.All.Total.Store.Size/(1<<30), false)
	add("Translog size", "GB", idx.All.Total.Translog.Size/(1<<30), false)
	add("Segment count", "", p.Segments.Count, false)

	var nodes struct {
		Nodes map[string]struct {
			JVM struct {
				GC struct {
					Collectors map[string]struct {
						Count float64 `json:"collection_count"`
						Time  float64 `json:"collection_time_in_millis"`
					} `json:"collectors"`
				} `json:"gc"`
			} `json:"jvm"`
			Ingest struct {
				Total struct {
					Count  float64 `json:"count"`
					Time   float64 `json:"time_in_millis"`
					Failed float64 `json:"failed"`
				} `json:"total"`
			} `json:"ingest"`
		} `json:"nodes"`
	}
	if err := a.do(ctx, http.MethodGet, "/_nodes/stats/jvm,ingest", nil, &nodes); err != nil {
		return nil, fmt.Errorf("nodes stats: %w", err)
	}
	var young, old, ingest [3]float64 // time ms, count, failed
	for _, n := range nodes.Nodes {
		for name, c := range n.JVM.GC.Collectors {
			switch name {
			case "young":
				young[0] += c.Time
				young[1] += c.Count
			case "old":
				old[0] += c.Time
				old[1] += c.Count
			}
		}
		ingest[0] += n.Ingest.Total.Time
		ingest[1] += n.Ingest.Total.Count
		ingest[2] += n.Ingest.Total.Failed
	}
	add("Total Young Gen GC time", "s", young[0]/1000, true)
	add("Total Young Gen GC count", "", young[1], true)
	add("Total Old Gen GC time", "s", old[0]/1000, true)
	add("Total Old Gen GC count", "", old[1], true)
	add("Total Ingest Pipeline count", "", ingest[1], true)
	add("Total Ingest Pipeline time", "s", ingest[0]/1000, true)
	add("Total Ingest Pipeline failed", "", ingest[2], true)
	return out, nil
}
