// Package elasticsearch is the adapter for Elasticsearch 6.8–9.x and the
// servers that speak its REST API (OpenSearch 2.x–3.x), over plain net/http:
// the official clients refuse servers that are not Elastic's, and users
// compare Elasticsearch with exactly those.
//
// Layout: one index per group, <db_name>-<group> in lower case; a document
// is one row of one device: {"device": "d_0", "ts": <long>, "s_0": …}, with an
// explicit strict mapping per sensor type (BOOLEAN boolean, INT32 integer,
// INT64 long, FLOAT float, DOUBLE double, TEXT keyword). Writes are _bulk
// requests built straight from the columnar batch; queries are search
// requests (docs/adapters.md shows each family's). The version is detected
// at Open and the differences bridged in one code path: 6.x needs a mapping
// type (_doc) in mappings and bulk metadata.
package elasticsearch

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/corpus"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// Driver is Elasticsearch (DB_SWITCH=Elasticsearch, OpenSearch or ES).
func Driver() adapters.Driver {
	return adapters.Driver{
		Name:        "Elasticsearch",
		Aliases:     []string{"OpenSearch", "ES"},
		Description: "Elasticsearch 6.8–9.x and OpenSearch 2.x–3.x over the REST API (HOST, PORT 9200)",
		Keys:        Keys(),
		Can:         adapters.Capabilities{Flush: true, ClearCache: true, Count: true, Answer: true, Version: true, Reconnect: true, ServerMetrics: true},
		Documents:   true,
		Servers:     []string{"elasticsearch", "opensearch"},
		Address:     func(c *config.Config) []string { return baseURLs(c, options(c)) },
		Check:       check,
		Claim:       claim,
		Requests:    ownRequests,
		Open:        open,
		Track:       writeTrack,
	}
}

// indexName is the index of a group's devices.
func indexName(c *config.Config, group string) string {
	return strings.ToLower(c.DBName + "-" + group)
}

// timeValue is Elasticsearch's time unit syntax, for index settings.
var timeValue = regexp.MustCompile(`^(-1|0|[0-9]+(nanos|micros|ms|s|m|h|d))$`)

func check(c *config.Config) config.Errors {
	var errs config.Errors
	o := options(c)
	if len(c.Ports) == 0 {
		errs = append(errs, &config.Error{Key: "PORT", Value: "", Msg: "is empty; Elasticsearch needs the port of its HTTP API", Valid: "a port such as 9200, one per HOST"})
	}
	if !timeValue.MatchString(o.RefreshInterval) {
		errs = append(errs, &config.Error{Key: "ES_REFRESH_INTERVAL", Value: o.RefreshInterval, Msg: "is not a time value the server reads", Valid: "a whole number and a unit (nanos, micros, ms, s, m, h, d), e.g. 1s or 30s, or -1 (off)"})
	}
	// A BLOB field keeps base64 text no query can compare, and a DATE or
	// TIMESTAMP field is another date beside the time field: iot-benchmark
	// refuses them for every database but IoTDB, and so does tsbench.
	errs = append(errs, adapters.UnsupportedTypes(c, "Elasticsearch", generator.Blob, generator.Timestamp, generator.Date)...)
	errs = append(errs, adapters.TreeModelOnly(c, "Elasticsearch")...)
	if c.TimestampPrecision == "ns" {
		// Aggregations compute in doubles: nanosecond epochs (~1.6e18) lose
		// their last digits, so group-by windows would be wrong.
		errs = append(errs, &config.Error{Key: "TIMESTAMP_PRECISION", Value: "ns", Msg: "is not supported by the Elasticsearch adapter (its aggregations compute timestamps as doubles)", Valid: "ms or us"})
	}
	if o.IndexMode == "time_series" && c.TimestampPrecision != "ms" {
		errs = append(errs, &config.Error{Key: "ES_INDEX_MODE", Value: o.IndexMode, Msg: "needs TIMESTAMP_PRECISION=ms: a time series index keeps @timestamp as a date in milliseconds", Valid: "standard, or TIMESTAMP_PRECISION=ms"})
	}
	if o.PipelineFile != "" && o.Pipeline == "" {
		errs = append(errs, &config.Error{Key: "ES_PIPELINE_FILE", Value: o.PipelineFile, Msg: "is set but ES_PIPELINE, the pipeline's name, is empty", Valid: "ES_PIPELINE=<name> with it, or no file"})
	}
	if o.PipelineFile != "" {
		if _, err := os.ReadFile(o.PipelineFile); err != nil {
			errs = append(errs, &config.Error{Key: "ES_PIPELINE_FILE", Value: o.PipelineFile, Msg: "cannot be read", Valid: "a readable file with the pipeline's JSON body"})
		}
	}
	if o.AliasesPerIndex > 0 && o.ExtraIndices == 0 {
		errs = append(errs, &config.Error{Key: "ES_ALIASES_PER_INDEX", Value: fmt.Sprint(o.AliasesPerIndex), Msg: "gives aliases to extra indices, but ES_EXTRA_INDICES is 0", Valid: "0, or ES_EXTRA_INDICES ≥ 1"})
	}
	if o.UseSSL {
		if _, err := tlsConfig(o); err != nil {
			errs = append(errs, &config.Error{Key: "ES_CA_FILE", Value: o.CAFile, Msg: err.Error(), Valid: "a PEM file of CA certificates, or empty for the system's CAs"})
		}
	}
	errs = append(errs, adapters.UnsupportedFamilies(c, "Elasticsearch", func(f queries.Family) bool { return f != queries.SetOperation })...)
	return errs
}

func baseURLs(c *config.Config, o *Options) []string {
	scheme := "http"
	if o.UseSSL {
		scheme = "https"
	}
	var out []string
	for i, h := range c.Hosts {
		if i < len(c.Ports) {
			out = append(out, scheme+"://"+net.JoinHostPort(h, strconv.Itoa(c.Ports[i])))
		}
	}
	return out
}

func tlsConfig(o *Options) (*tls.Config, error) {
	return adapters.ClientTLS(o.CAFile, "the CA file")
}

// Adapter is an HTTP client to one Elasticsearch cluster; requests go to
// the HOST/PORT nodes in turn.
type Adapter struct {
	cfg    *config.Config
	opts   *Options
	schema *generator.Schema
	client *http.Client
	bases  []string
	next   atomic.Uint64
	auth   string

	// What Open found: the distribution, its version and what it needs.
	distribution string // "elasticsearch" or "opensearch"
	build        string // build_hash: the commit the server was built from
	version      string
	major        int
	typed        bool // 6.x: a mapping type in mappings and bulk metadata
	tsds         bool // ES_INDEX_MODE=time_series

	indices []string // index name by group index, or a track's indices
	actions [][]byte // the bulk action line by group index
	// track is TRACK_PATH's documents (documents.go); docActions their
	// bulk action line by index.
	track      *corpus.Track
	docActions map[string][]byte
	bulkPath   string // /_bulk, with ES_PIPELINE
	bufs       sync.Pool
}

var (
	_ adapters.Adapter      = (*Adapter)(nil)
	_ adapters.Flusher      = (*Adapter)(nil)
	_ adapters.Sizer        = (*Adapter)(nil)
	_ adapters.CacheClearer = (*Adapter)(nil)
	_ adapters.Counter      = (*Adapter)(nil)
	_ adapters.Answerer     = (*Adapter)(nil)
	_ adapters.Versioner    = (*Adapter)(nil)
	_ adapters.Builder      = (*Adapter)(nil)
	_ adapters.Reconnecter  = (*Adapter)(nil)
)

func open(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
	a, err := newAdapter(p.Config)
	if err != nil {
		return nil, err
	}
	a.schema = p.Schema
	c, o := a.cfg, a.opts
	for _, g := range p.Schema.Groups {
		a.indices = append(a.indices, indexName(c, g.Name))
	}
	if err := a.detect(ctx); err != nil {
		a.client.CloseIdleConnections()
		return nil, err
	}
	if o.IndexMode == "time_series" {
		minor := 0
		if _, rest, ok := strings.Cut(a.version, "."); ok {
			m, _, _ := strings.Cut(rest, ".")
			minor, _ = strconv.Atoi(m)
		}
		if a.distribution != "elasticsearch" || a.major < 8 || a.major == 8 && minor < 7 {
			a.client.CloseIdleConnections()
			return nil, fmt.Errorf("ES_INDEX_MODE=time_series needs Elasticsearch 8.7 or newer; %s %s has no time series indices (use ES_INDEX_MODE=standard)", a.name(), a.version)
		}
		a.tsds = true
	}
	// The server answers a bulk with an item per document; asking only for
	// the failed ones keeps a 100-row bulk's answer at a few bytes instead
	// of kilobytes to read and parse.
	a.bulkPath = "/_bulk?filter_path=errors,items.*.error"
	if a.track = p.Track; a.track != nil {
		a.useTrack()
	}
	if pl := a.pipeline(); pl != "" {
		a.bulkPath += "&pipeline=" + url.QueryEscape(pl)
	}
	for _, idx := range a.indices {
		line := `{"index":{"_index":"` + idx + `"}}` + "\n"
		if a.typed {
			line = `{"index":{"_index":"` + idx + `","_type":"_doc"}}` + "\n"
		}
		a.actions = append(a.actions, []byte(line))
	}
	return a, nil
}

// newAdapter is a client of the configured nodes, with the configured TLS
// and credentials, that has not yet asked the server anything.
func newAdapter(c *config.Config) (*Adapter, error) {
	o := options(c)
	tr := &http.Transport{
		Proxy:               nil, // a benchmark talks to the server, never through a proxy of the environment
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4 * (c.DataClients + 4),
		MaxIdleConnsPerHost: c.DataClients + 4,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	if o.UseSSL {
		t, err := tlsConfig(o)
		if err != nil {
			return nil, fmt.Errorf("USE_SSL: ES_CA_FILE=%s %w", o.CAFile, err)
		}
		tr.TLSClientConfig = t
	}
	a := &Adapter{cfg: c, opts: o, client: &http.Client{Transport: tr}, bases: baseURLs(c, o)}
	switch {
	case o.APIKey != "":
		a.auth = "ApiKey " + o.APIKey
	case c.Username != "":
		a.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Username+":"+c.Password))
	}
	return a, nil
}

// detect asks the server what it is. GET / names the distribution, but the
// small 8.x/9.x distributions answer it with 405; _nodes/_local gives the
// version everywhere.
func (a *Adapter) detect(ctx context.Context) error {
	var root struct {
		Version struct {
			Number       string `json:"number"`
			Distribution string `json:"distribution"`
			BuildHash    string `json:"build_hash"`
		} `json:"version"`
	}
	err := a.do(ctx, http.MethodGet, "/", nil, &root)
	var he *httpError
	switch {
	case err == nil:
		a.version, a.distribution, a.build = root.Version.Number, root.Version.Distribution, root.Version.BuildHash
	case errors.As(err, &he) && he.status != http.StatusUnauthorized && he.status != http.StatusForbidden:
		var nodes struct {
			Nodes map[string]struct {
				Version   string `json:"version"`
				BuildHash string `json:"build_hash"`
			} `json:"nodes"`
		}
		if err := a.do(ctx, http.MethodGet, "/_nodes/_local", nil, &nodes); err != nil {
			return err
		}
		for _, n := range nodes.Nodes {
			a.version, a.build = n.Version, n.BuildHash
		}
	default:
		return err
	}
	if a.distribution == "" {
		a.distribution = "elasticsearch"
	}
	major, _, _ := strings.Cut(a.version, ".")
	a.major, _ = strconv.Atoi(major)
	if a.major == 0 {
		return fmt.Errorf("%s at %s reported version %q, which tsbench cannot read", a.distribution, a.bases[0], a.version)
	}
	a.typed = a.distribution == "elasticsearch" && a.major < 7
	return nil
}

// httpError is a non-2xx answer: its status and the server's reason.
type httpError struct {
	status int
	method string
	path   string
	reason string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.method, e.path, e.status, e.reason)
}

// reasonOf pulls the server's error type and reason out of an error body,
// on one line.
func reasonOf(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var detail struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(e.Error, &detail) == nil && detail.Reason != "" {
			return detail.Type + ": " + detail.Reason
		}
		return strings.Trim(string(e.Error), `"`)
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// do sends one request to the next node and decodes a 2xx answer into out
// (when not nil). ctx bounds the whole exchange.
func (a *Adapter) do(ctx context.Context, method, path string, body []byte, out any) error {
	_, err := a.send(ctx, method, path, "application/json", body, out)
	return err
}

func (a *Adapter) send(ctx context.Context, method, path, ctype string, body []byte, out any) ([]byte, error) {
	base := a.bases[int(a.next.Add(1)-1)%len(a.bases)]
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	if a.auth != "" {
		req.Header.Set("Authorization", a.auth)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ctx.Err() == nil {
			// "Get "http://…": dial tcp …: connection refused" says it twice.
			return nil, fmt.Errorf("cannot reach %s at %s: %w", a.name(), base, ue.Unwrap())
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	adapters.Received(ctx) // what follows is decoding, tsbench's own time
	if resp.StatusCode/100 != 2 {
		e := &httpError{status: resp.StatusCode, method: method, path: path, reason: reasonOf(data)}
		if resp.StatusCode == http.StatusUnauthorized {
			who := "without credentials"
			if a.cfg.Username != "" {
				who = fmt.Sprintf("as user %q", a.cfg.Username)
			} else if a.opts.APIKey != "" {
				who = "with the API key"
			}
			return data, fmt.Errorf("%s at %s refused the login %s (HTTP 401): %w", a.name(), base, who, e)
		}
		return data, e
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return data, fmt.Errorf("%s %s: unreadable answer: %w", method, path, err)
		}
	}
	return data, nil
}

func (a *Adapter) name() string {
	if a.distribution == "opensearch" {
		return "OpenSearch"
	}
	return "Elasticsearch"
}

// ServerVersion reports the distribution and version found at Open.
func (a *Adapter) ServerVersion(ctx context.Context) (string, error) {
	return a.name() + " " + a.version, ctx.Err()
}

// ServerBuild is the build_hash the server reported at Open.
func (a *Adapter) ServerBuild() string { return a.build }

// Reconnect drops idle connections and checks that a node answers.
func (a *Adapter) Reconnect(ctx context.Context) error {
	a.client.CloseIdleConnections()
	return a.do(ctx, http.MethodGet, "/_cluster/health", nil, nil)
}

// Close releases idle connections.
func (a *Adapter) Close() error {
	a.client.CloseIdleConnections()
	return nil
}

func (a *Adapter) allIndices() string { return strings.Join(a.indices, ",") }

// Cleanup deletes the benchmark's indices. Names are listed, not matched
// by a wildcard, which 8.x refuses by default (action.destructive_requires_name).
func (a *Adapter) Cleanup(ctx context.Context) error {
	if err := a.do(ctx, http.MethodDelete, "/"+a.allIndices()+"?ignore_unavailable=true", nil, nil); err != nil {
		return fmt.Errorf("delete indices %s: %w", a.allIndices(), err)
	}
	return a.deleteExtras(ctx)
}

var esType = map[generator.DataType]string{
	generator.Boolean: "boolean", generator.Int32: "integer", generator.Int64: "long",
	generator.Float: "float", generator.Double: "double", generator.Text: "keyword", generator.String: "keyword",
}

// CreateSchema creates every group's index with its explicit mapping. A
// failed creation must stop the run: 8.x would otherwise auto-create the
// index with a dynamic mapping on the first bulk.
func (a *Adapter) CreateSchema(ctx context.Context) error {
	if a.track != nil {
		if err := a.createTrackIndices(ctx); err != nil {
			return err
		}
		if err := a.createPipeline(ctx); err != nil {
			return err
		}
		return a.createExtraIndices(ctx)
	}
	body, err := a.indexBody()
	if err != nil {
		return err
	}
	for _, idx := range a.indices {
		if err := a.createIndex(ctx, idx, body); err != nil {
			return err
		}
	}
	if err := a.createPipeline(ctx); err != nil {
		return err
	}
	return a.createExtraIndices(ctx)
}

// createIndex creates an index with its body; one that exists already is
// kept (CREATE_SCHEMA over data kept with IS_DELETE_DATA=false).
func (a *Adapter) createIndex(ctx context.Context, idx string, body []byte) error {
	var ack struct {
		Acknowledged bool `json:"acknowledged"`
	}
	err := a.do(ctx, http.MethodPut, "/"+idx, body, &ack)
	var he *httpError
	if errors.As(err, &he) && strings.Contains(he.reason, "already_exists") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create index %s: %w", idx, err)
	}
	if !ack.Acknowledged {
		return fmt.Errorf("create index %s: the cluster did not acknowledge it", idx)
	}
	return nil
}

// indexBody is the settings and explicit mapping of a group's index.
func (a *Adapter) indexBody() ([]byte, error) {
	props := map[string]any{"device": map[string]any{"type": "keyword"}, "ts": map[string]any{"type": "long"}}
	for _, s := range a.schema.Sensors {
		props[s.Name] = map[string]any{"type": esType[s.Type]}
	}
	settings := map[string]any{"number_of_shards": a.opts.Shards, "number_of_replicas": a.opts.Replicas, "refresh_interval": a.opts.RefreshInterval}
	if a.tsds {
		// A time series index routes by its dimension and accepts only
		// documents inside its time bounds: from START_TIME to past the last
		// row LOOP batches can write (an hour's margin on both sides).
		props["device"] = map[string]any{"type": "keyword", "time_series_dimension": true}
		props["@timestamp"] = map[string]any{"type": "date"}
		c := a.cfg
		first := c.StartUnits()
		last := first + (c.Loop*int64(c.BatchSize)+1)*c.PointStep
		const hour = int64(3600 * 1000)
		settings["mode"] = "time_series"
		settings["routing_path"] = []string{"device"}
		settings["time_series"] = map[string]any{"start_time": time.UnixMilli(first - hour).UTC().Format(time.RFC3339), "end_time": time.UnixMilli(last + hour).UTC().Format(time.RFC3339)}
	}
	mapping := map[string]any{"dynamic": "strict", "properties": props}
	var mappings any = mapping
	if a.typed {
		mappings = map[string]any{"_doc": mapping}
	}
	return json.Marshal(map[string]any{
		"settings": map[string]any{"index": settings},
		"mappings": mappings,
	})
}

// Flush makes every write searchable (_refresh) and durable (_flush).
func (a *Adapter) Flush(ctx context.Context) error {
	for _, op := range []string{"_refresh", "_flush"} {
		if err := a.do(ctx, http.MethodPost, "/"+a.allIndices()+"/"+op, nil, nil); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	return nil
}

// DataSize is the size of the segments of the benchmark's indices'
// primary shards (replicas left out: a copy is not the footprint of the
// data). Not _stats' store size: the server caches that for
// index.store.stats_refresh_interval (10 s), and right after an ingest
// OpenSearch answered 416 bytes for an index of 6 MB.
func (a *Adapter) DataSize(ctx context.Context) (int64, string, error) {
	var st struct {
		Indices map[string]struct {
			Shards map[string][]struct {
				Routing struct {
					Primary bool `json:"primary"`
				} `json:"routing"`
				Segments map[string]struct {
					Size int64 `json:"size_in_bytes"`
				} `json:"segments"`
			} `json:"shards"`
		} `json:"indices"`
	}
	if err := a.do(ctx, http.MethodGet, "/"+a.allIndices()+"/_segments", nil, &st); err != nil {
		return 0, "", fmt.Errorf("the indices' segments: %w", err)
	}
	if len(st.Indices) == 0 {
		return 0, "", fmt.Errorf("the indices' segments: _segments lists no index of %s", a.allIndices())
	}
	var n int64
	for _, idx := range st.Indices {
		for _, copies := range idx.Shards {
			for _, c := range copies {
				if !c.Routing.Primary {
					continue
				}
				for _, seg := range c.Segments {
					n += seg.Size
				}
			}
		}
	}
	return n, "the segments of the primary shards of " + a.allIndices(), nil
}

// ClearCache drops the indices' query, request and field-data caches.
func (a *Adapter) ClearCache(ctx context.Context) error {
	return a.do(ctx, http.MethodPost, "/"+a.allIndices()+"/_cache/clear", nil, nil)
}

// CountPoints counts the device's documents (after a refresh, so that
// writes not yet searchable count) times its sensors: every document holds
// every sensor of its row.
func (a *Adapter) CountPoints(ctx context.Context, d *generator.Device) (int64, error) {
	idx := a.indices[d.Group]
	if err := a.do(ctx, http.MethodPost, "/"+idx+"/_refresh", nil, nil); err != nil {
		if notFound(err) {
			return 0, nil
		}
		return 0, err
	}
	body := []byte(`{"query":{"term":{"device":` + strconv.Quote(d.Name) + `}}}`)
	var res struct {
		Count int64 `json:"count"`
	}
	if err := a.do(ctx, http.MethodPost, "/"+idx+"/_count", body, &res); err != nil {
		if notFound(err) {
			return 0, nil
		}
		return 0, err
	}
	return res.Count * int64(len(a.schema.Sensors)), nil
}

func notFound(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == http.StatusNotFound
}
