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
// Every figure is a pointer: a version that does not report it (the
// segments' heap figures went in 8.0, the dataset size came in 7.13)
// leaves it nil, and the metric is "not reported", never 0.
type shardStats struct {
	Routing struct {
		Primary bool `json:"primary"`
	} `json:"routing"`
	Indexing struct {
		Total    *float64 `json:"index_total"`
		Time     *float64 `json:"index_time_in_millis"`
		Throttle *float64 `json:"throttle_time_in_millis"`
	} `json:"indexing"`
	Search struct {
		Total *float64 `json:"query_total"`
		Time  *float64 `json:"query_time_in_millis"`
	} `json:"search"`
	Merges struct {
		Time      *float64 `json:"total_time_in_millis"`
		Count     *float64 `json:"total"`
		Throttled *float64 `json:"total_throttled_time_in_millis"`
		Bytes     *float64 `json:"total_size_in_bytes"`
	} `json:"merges"`
	Refresh struct {
		Time  *float64 `json:"total_time_in_millis"`
		Count *float64 `json:"total"`
	} `json:"refresh"`
	Flush struct {
		Time  *float64 `json:"total_time_in_millis"`
		Count *float64 `json:"total"`
	} `json:"flush"`
	Store struct {
		Size    *float64 `json:"size_in_bytes"`
		Dataset *float64 `json:"total_data_set_size_in_bytes"`
	} `json:"store"`
	Translog struct {
		Size *float64 `json:"size_in_bytes"`
	} `json:"translog"`
	Segments struct {
		Count      *float64 `json:"count"`
		Memory     *float64 `json:"memory_in_bytes"`
		DocValues  *float64 `json:"doc_values_memory_in_bytes"`
		Terms      *float64 `json:"terms_memory_in_bytes"`
		Norms      *float64 `json:"norms_memory_in_bytes"`
		Points     *float64 `json:"points_memory_in_bytes"`
		StoredFlds *float64 `json:"stored_fields_memory_in_bytes"`
	} `json:"segments"`
}

// nodeStats is the part of a node's statistics tsbench reads: Rally's rows
// (stats.go) its GC and ingest figures, the node's telemetry source
// (telemetry.go) the rest. The node's indices section has the layout of
// an index's.
type nodeStats struct {
	Name string `json:"name"`
	JVM  struct {
		Mem struct {
			HeapUsed *float64 `json:"heap_used_in_bytes"`
		} `json:"mem"`
		GC struct {
			Collectors map[string]struct {
				Count *float64 `json:"collection_count"`
				Time  *float64 `json:"collection_time_in_millis"`
			} `json:"collectors"`
		} `json:"gc"`
	} `json:"jvm"`
	Ingest struct {
		Total struct {
			Count  *float64 `json:"count"`
			Time   *float64 `json:"time_in_millis"`
			Failed *float64 `json:"failed"`
		} `json:"total"`
	} `json:"ingest"`
	Process struct {
		CPU struct {
			Total *float64 `json:"total_in_millis"`
		} `json:"cpu"`
	} `json:"process"`
	Indices shardStats `json:"indices"`
	FS      struct {
		IO struct {
			Total struct {
				Read  *float64 `json:"read_kilobytes"`
				Write *float64 `json:"write_kilobytes"`
			} `json:"total"`
		} `json:"io_stats"`
	} `json:"fs"`
}

// indexStats is one index's section of _stats?level=shards.
type indexStats struct {
	Shards map[string][]shardStats `json:"shards"`
}

// statsResponses are the two answers ServerMetrics reads.
type statsResponses struct {
	Index struct {
		All struct {
			Primaries shardStats `json:"primaries"`
			Total     shardStats `json:"total"`
		} `json:"_all"`
		Indices map[string]indexStats `json:"indices"`
	}
	Nodes struct {
		Nodes map[string]nodeStats `json:"nodes"`
	}
	// noSegmentHeap says the version answers the segments' heap fields
	// with a constant 0.
	noSegmentHeap bool
}

// ServerMetrics reads Rally's node-level figures, with Rally's names and
// units: index statistics of the benchmark's indices (cumulative times of
// primary shards in minutes, with min/median/max across primary shards;
// counts; store, dataset and translog size in GB; segment count; the heap
// the segments hold, in MB), and from the nodes' statistics the young and
// old GC time (s) and count and the ingest pipelines' count, time (s) and
// failures, summed over nodes.
func (a *Adapter) ServerMetrics(ctx context.Context) ([]adapters.ServerMetric, error) {
	var r statsResponses
	if err := a.do(ctx, http.MethodGet, "/"+a.allIndices()+"/_stats?level=shards&ignore_unavailable=true", nil, &r.Index); err != nil {
		return nil, fmt.Errorf("index stats: %w", err)
	}
	if err := a.do(ctx, http.MethodGet, "/_nodes/stats/jvm,ingest", nil, &r.Nodes); err != nil {
		return nil, fmt.Errorf("nodes stats: %w", err)
	}
	// Elasticsearch 8 keeps the segments' heap off its books and answers
	// those fields with 0: that is no figure.
	r.noSegmentHeap = a.distribution == "elasticsearch" && a.major >= 8
	return r.metrics(), nil
}

// metricList gathers metrics; a nil figure is listed as not reported.
type metricList []adapters.ServerMetric

func (l *metricList) add(name, unit string, v *float64, scale float64, counter bool) {
	m := adapters.ServerMetric{Name: name, Unit: unit, Counter: counter}
	if v == nil {
		m.NotReported = true
	} else {
		m.Value = *v / scale
	}
	*l = append(*l, m)
}

// sum adds up the figures that are there; nil when none is.
func sum(vs ...*float64) *float64 {
	var total *float64
	for _, v := range vs {
		if v != nil {
			if total == nil {
				total = new(float64)
			}
			*total += *v
		}
	}
	return total
}

// metrics turns the answers into Rally's rows.
func (r *statsResponses) metrics() []adapters.ServerMetric {
	var primaries []shardStats
	for _, in := range r.Index.Indices {
		for _, copies := range in.Shards {
			for _, s := range copies {
				if s.Routing.Primary {
					primaries = append(primaries, s)
				}
			}
		}
	}
	var out metricList
	const minute, gb, mb = 60000.0, 1 << 30, 1 << 20
	p, total := r.Index.All.Primaries, r.Index.All.Total
	for _, c := range []struct {
		what, noun   string // "indexing", "time" or "throttle time"
		total, count *float64
		get          func(s shardStats) *float64
		counted      bool
	}{
		{"indexing", "time", p.Indexing.Time, nil, func(s shardStats) *float64 { return s.Indexing.Time }, false},
		{"indexing", "throttle time", p.Indexing.Throttle, nil, func(s shardStats) *float64 { return s.Indexing.Throttle }, false},
		{"merge", "time", p.Merges.Time, p.Merges.Count, func(s shardStats) *float64 { return s.Merges.Time }, true},
		{"merge", "throttle time", p.Merges.Throttled, nil, func(s shardStats) *float64 { return s.Merges.Throttled }, false},
		{"refresh", "time", p.Refresh.Time, p.Refresh.Count, func(s shardStats) *float64 { return s.Refresh.Time }, true},
		{"flush", "time", p.Flush.Time, p.Flush.Count, func(s shardStats) *float64 { return s.Flush.Time }, true},
	} {
		out.add(fmt.Sprintf("Cumulative %s %s of primary shards", c.what, c.noun), "min", c.total, minute, false)
		if c.counted {
			out.add(fmt.Sprintf("Cumulative %s count of primary shards", c.what), "", c.count, 1, false)
		}
		if len(primaries) == 0 {
			continue
		}
		var vals []float64
		for _, s := range primaries {
			if v := c.get(s); v != nil {
				vals = append(vals, *v)
			}
		}
		var lo, med, hi *float64
		if len(vals) > 0 {
			sort.Float64s(vals)
			m := vals[len(vals)/2]
			if len(vals)%2 == 0 {
				m = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
			}
			lo, med, hi = &vals[0], &m, &vals[len(vals)-1]
		}
		out.add(fmt.Sprintf("Min cumulative %s %s across primary shards", c.what, c.noun), "min", lo, minute, false)
		out.add(fmt.Sprintf("Median cumulative %s %s across primary shards", c.what, c.noun), "min", med, minute, false)
		out.add(fmt.Sprintf("Max cumulative %s %s across primary shards", c.what, c.noun), "min", hi, minute, false)
	}
	out.add("Store size", "GB", total.Store.Size, gb, false)
	out.add("Dataset size", "GB", total.Store.Dataset, gb, false)
	out.add("Translog size", "GB", total.Translog.Size, gb, false)
	out.add("Segment count", "", p.Segments.Count, 1, false)
	seg := total.Segments
	if r.noSegmentHeap {
		seg.Memory, seg.DocValues, seg.Terms, seg.Norms, seg.Points, seg.StoredFlds = nil, nil, nil, nil, nil, nil
	}
	out.add("Heap used for segments", "MB", seg.Memory, mb, false)
	out.add("Heap used for doc values", "MB", seg.DocValues, mb, false)
	out.add("Heap used for terms", "MB", seg.Terms, mb, false)
	out.add("Heap used for norms", "MB", seg.Norms, mb, false)
	out.add("Heap used for points", "MB", seg.Points, mb, false)
	out.add("Heap used for stored fields", "MB", seg.StoredFlds, mb, false)

	var youngT, youngN, oldT, oldN, ingN, ingT, ingF []*float64
	for _, n := range r.Nodes.Nodes {
		for name, c := range n.JVM.GC.Collectors {
			switch name {
			case "young":
				youngT, youngN = append(youngT, c.Time), append(youngN, c.Count)
			case "old":
				oldT, oldN = append(oldT, c.Time), append(oldN, c.Count)
			}
		}
		t := n.Ingest.Total
		ingN, ingT, ingF = append(ingN, t.Count), append(ingT, t.Time), append(ingF, t.Failed)
	}
	out.add("Total Young Gen GC time", "s", sum(youngT...), 1000, true)
	out.add("Total Young Gen GC count", "", sum(youngN...), 1, true)
	out.add("Total Old Gen GC time", "s", sum(oldT...), 1000, true)
	out.add("Total Old Gen GC count", "", sum(oldN...), 1, true)
	out.add("Total Ingest Pipeline count", "", sum(ingN...), 1, true)
	out.add("Total Ingest Pipeline time", "s", sum(ingT...), 1000, true)
	out.add("Total Ingest Pipeline failed", "", sum(ingF...), 1, true)
	return out
}
