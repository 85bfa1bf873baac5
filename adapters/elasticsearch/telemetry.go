package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/telemetry"
)

var _ adapters.Telemetry = (*Adapter)(nil)

// figure is one sampled figure of a node: its series and where it is read.
type figure struct {
	telemetry.Series
	get   func(n *nodeStats) *float64
	scale float64
}

func gc(kind string, time bool) func(n *nodeStats) *float64 {
	return func(n *nodeStats) *float64 {
		c, ok := n.JVM.GC.Collectors[kind]
		if !ok {
			return nil
		}
		if time {
			return c.Time
		}
		return c.Count
	}
}

// nodeFigures are what a node's source samples, as Rally's node-stats
// telemetry device does: the JVM, the process, the node's indices and its
// file systems' traffic. A figure the version does not report is left out.
var nodeFigures = []figure{
	{telemetry.Series{Name: "process CPU", Unit: "s", Counter: true}, func(n *nodeStats) *float64 { return n.Process.CPU.Total }, 1000},
	{telemetry.Series{Name: "JVM heap used", Unit: "bytes", Chart: true}, func(n *nodeStats) *float64 { return n.JVM.Mem.HeapUsed }, 1},
	{telemetry.Series{Name: "young GC", Unit: "collections", Counter: true}, gc("young", false), 1},
	{telemetry.Series{Name: "young GC time", Unit: "s", Counter: true, Chart: true}, gc("young", true), 1000},
	{telemetry.Series{Name: "old GC", Unit: "collections", Counter: true}, gc("old", false), 1},
	{telemetry.Series{Name: "old GC time", Unit: "s", Counter: true}, gc("old", true), 1000},
	{telemetry.Series{Name: "documents indexed", Unit: "documents", Counter: true, Chart: true, Written: true}, func(n *nodeStats) *float64 { return n.Indices.Indexing.Total }, 1},
	{telemetry.Series{Name: "indexing time", Unit: "s", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Indexing.Time }, 1000},
	{telemetry.Series{Name: "searches", Unit: "queries", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Search.Total }, 1},
	{telemetry.Series{Name: "search time", Unit: "s", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Search.Time }, 1000},
	{telemetry.Series{Name: "merges", Unit: "merges", Counter: true, Chart: true}, func(n *nodeStats) *float64 { return n.Indices.Merges.Count }, 1},
	{telemetry.Series{Name: "merge time", Unit: "s", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Merges.Time }, 1000},
	{telemetry.Series{Name: "merged bytes", Unit: "bytes", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Merges.Bytes }, 1},
	{telemetry.Series{Name: "refreshes", Unit: "refreshes", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Refresh.Count }, 1},
	{telemetry.Series{Name: "flushes", Unit: "flushes", Counter: true}, func(n *nodeStats) *float64 { return n.Indices.Flush.Count }, 1},
	{telemetry.Series{Name: "segments", Unit: "segments", Chart: true}, func(n *nodeStats) *float64 { return n.Indices.Segments.Count }, 1},
	{telemetry.Series{Name: "store size", Unit: "bytes", Chart: true}, func(n *nodeStats) *float64 { return n.Indices.Store.Size }, 1},
	{telemetry.Series{Name: "translog size", Unit: "bytes"}, func(n *nodeStats) *float64 { return n.Indices.Translog.Size }, 1},
	{telemetry.Series{Name: "disk read", Unit: "bytes", Counter: true}, func(n *nodeStats) *float64 { return n.FS.IO.Total.Read }, 1.0 / 1024},
	{telemetry.Series{Name: "disk written", Unit: "bytes", Counter: true, Chart: true}, func(n *nodeStats) *float64 { return n.FS.IO.Total.Write }, 1.0 / 1024},
}

// nodesPath is the one request a sample of every node takes.
const nodesPath = "/_nodes/stats/jvm,process,indices,fs?filter_path=nodes.*.name,nodes.*.jvm.mem.heap_used_in_bytes,nodes.*.jvm.gc,nodes.*.process.cpu,nodes.*.indices.indexing,nodes.*.indices.search,nodes.*.indices.merges,nodes.*.indices.refresh,nodes.*.indices.flush,nodes.*.indices.segments.count,nodes.*.indices.store,nodes.*.indices.translog,nodes.*.fs.io_stats.total"

func (a *Adapter) readNodes(ctx context.Context) (map[string]*nodeStats, error) {
	var r struct {
		Nodes map[string]*nodeStats `json:"nodes"`
	}
	if err := a.do(ctx, http.MethodGet, nodesPath, nil, &r); err != nil {
		return nil, fmt.Errorf("nodes stats: %w", err)
	}
	return r.Nodes, nil
}

// TelemetrySources are a source per node, from _nodes/stats: every node's
// figures in one request a sample, shared by the nodes' sources. Rally's
// rows (ServerMetrics) stay as they are, read at the run's start and end.
func (a *Adapter) TelemetrySources(ctx context.Context) ([]telemetry.Reader, []string) {
	nodes, err := a.readNodes(ctx)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s's node statistics are not sampled: %v", a.distributionName(), err)}
	}
	shared := &nodesSample{a: a}
	var ids []string
	for id := range nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var rs []telemetry.Reader
	for _, id := range ids {
		n := nodes[id]
		r := &nodeReader{shared: shared, id: id, name: fmt.Sprintf("%s node %s", a.distributionName(), n.Name)}
		for _, f := range nodeFigures {
			if f.get(n) != nil {
				r.figures = append(r.figures, f)
			}
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func (a *Adapter) distributionName() string {
	if a.distribution == "opensearch" {
		return "OpenSearch"
	}
	return "Elasticsearch"
}

// nodesSample reads _nodes/stats once for every node's source: the
// sampler reads its sources one after another, so the first node's read
// asks and the others reuse the answer until their turn comes again.
type nodesSample struct {
	a     *Adapter
	nodes map[string]*nodeStats
	err   error
	used  map[string]bool
}

func (s *nodesSample) get(ctx context.Context, id string) (*nodeStats, error) {
	if s.nodes == nil && s.err == nil || s.used[id] {
		s.nodes, s.err = s.a.readNodes(ctx)
		s.used = map[string]bool{}
	}
	s.used[id] = true
	if s.err != nil {
		return nil, s.err
	}
	n, ok := s.nodes[id]
	if !ok {
		return nil, fmt.Errorf("node %s no longer reports", id)
	}
	return n, nil
}

type nodeReader struct {
	shared  *nodesSample
	id      string
	name    string
	figures []figure
}

func (r *nodeReader) Name() string { return r.name }

func (r *nodeReader) Figures() []telemetry.Series {
	out := make([]telemetry.Series, len(r.figures))
	for i, f := range r.figures {
		out[i] = f.Series
	}
	return out
}

func (r *nodeReader) Read(ctx context.Context) ([]float64, error) {
	n, err := r.shared.get(ctx, r.id)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(r.figures))
	for i, f := range r.figures {
		v := f.get(n)
		if v == nil {
			return nil, fmt.Errorf("node %s no longer reports %s", n.Name, f.Name)
		}
		out[i] = *v / f.scale
	}
	return out, nil
}
