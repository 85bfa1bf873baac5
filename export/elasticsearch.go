package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultIndex is where runs go in Elasticsearch unless the URL names an
// index.
const DefaultIndex = "tsbench-results"

// Document is what a run's values of one operation in one phase become in
// Elasticsearch: the run (its start as @timestamp) and a field per metric
// (Field: mean_latency, latency_p99, throughput...), numbers as double,
// names as keyword. Its id is RUN/PHASE/OPERATION: exporting a run again
// replaces its documents.
func Document(r *Run, g group) map[string]any {
	d := map[string]any{
		"@timestamp": r.StartedAt.UTC().Format(time.RFC3339Nano),
		"run_id":     r.ID, "label": r.Label, "db": r.DB, "version": r.Version, "server": r.Server,
		"fingerprint": r.Fingerprint, "status": r.Status,
		"phase": g.Phase, "round": g.Round, "operation": g.Op,
	}
	for f, v := range g.Fields {
		d[f] = v
	}
	return d
}

// mapping makes every string a keyword and every number a double, so
// that a value that happens to be whole does not make a field an integer.
var mapping = map[string]any{
	"dynamic_templates": []any{
		map[string]any{"names": map[string]any{"match_mapping_type": "string", "mapping": map[string]any{"type": "keyword"}}},
		map[string]any{"wholes": map[string]any{"match_mapping_type": "long", "mapping": map[string]any{"type": "double"}}},
		map[string]any{"numbers": map[string]any{"match_mapping_type": "double", "mapping": map[string]any{"type": "double"}}},
	},
	"properties": map[string]any{"@timestamp": map[string]any{"type": "date"}, "round": map[string]any{"type": "integer"}},
}

// es is an Elasticsearch or OpenSearch server to write to.
type es struct {
	base   string
	user   string
	pass   string
	hasPw  bool
	client *http.Client
	typed  bool // Elasticsearch 6: a type in mappings and bulk lines
}

func (e *es) do(ctx context.Context, method, path string, body []byte, ctype string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	if e.user != "" || e.hasPw {
		req.SetBasicAuth(e.user, e.pass)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{status: resp.StatusCode, what: method + " " + path, body: string(bytes.TrimSpace(data[:min(len(data), 500)]))}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

type statusError struct {
	status int
	what   string
	body   string
}

func (e *statusError) Error() string { return fmt.Sprintf("%s: HTTP %d: %s", e.what, e.status, e.body) }

// ToElasticsearch writes the runs into the Elasticsearch or OpenSearch
// server of u (http[s]://[USER:PASSWORD@]HOST:PORT/INDEX; DefaultIndex
// unless given): a document a run for each of its phases' operations
// (Document), with the index created first with its mapping when it does
// not exist, and refreshed after, so that a search sees them at once; in
// bulks of a few MB. It returns the documents written.
func ToElasticsearch(ctx context.Context, u *url.URL, runs []Run) (int, error) {
	index := strings.Trim(u.Path, "/")
	if index == "" {
		index = DefaultIndex
	}
	if strings.ContainsAny(index, `/\*?"<>| ,#`) || index != strings.ToLower(index) || strings.HasPrefix(index, "_") {
		return 0, fmt.Errorf("the index %q is not a valid index name (valid: lower case, no / \\ * ? \" < > | space , #, not starting with _)", index)
	}
	e := &es{base: u.Scheme + "://" + u.Host, client: &http.Client{Timeout: 60 * time.Second}}
	if u.User != nil {
		e.user = u.User.Username()
		e.pass, e.hasPw = u.User.Password()
	}
	var root struct {
		Version struct {
			Number       string `json:"number"`
			Distribution string `json:"distribution"`
		} `json:"version"`
	}
	// The small 8.x and 9.x distributions answer GET / with 405:
	// _nodes/_local gives the version everywhere.
	var se *statusError
	if err := e.do(ctx, http.MethodGet, "/", nil, "", &root); errors.As(err, &se) && se.status != http.StatusUnauthorized && se.status != http.StatusForbidden {
		var nodes struct {
			Nodes map[string]struct {
				Version string `json:"version"`
			} `json:"nodes"`
		}
		if err := e.do(ctx, http.MethodGet, "/_nodes/_local", nil, "", &nodes); err != nil {
			return 0, fmt.Errorf("ask %s for its version: %w", e.base, err)
		}
		for _, n := range nodes.Nodes {
			root.Version.Number = n.Version
		}
	} else if err != nil {
		return 0, fmt.Errorf("ask %s for its version: %w", e.base, err)
	}
	major, _, _ := strings.Cut(root.Version.Number, ".")
	if n, _ := strconv.Atoi(major); n < 7 && root.Version.Distribution != "opensearch" {
		e.typed = true
	}
	m := any(mapping)
	if e.typed {
		m = map[string]any{"_doc": mapping}
	}
	body, _ := json.Marshal(map[string]any{"mappings": m})
	if err := e.do(ctx, http.MethodPut, "/"+index, body, "application/json", nil); err != nil {
		if !(errors.As(err, &se) && se.status == http.StatusBadRequest && strings.Contains(se.body, "resource_already_exists_exception")) {
			return 0, fmt.Errorf("create index %s: %w", index, err)
		}
	}
	var bulk bytes.Buffer
	docs, sent := 0, 0
	send := func() error {
		if bulk.Len() == 0 {
			return nil
		}
		var res struct {
			Errors bool `json:"errors"`
			Items  []map[string]struct {
				Status int             `json:"status"`
				Error  json.RawMessage `json:"error"`
			} `json:"items"`
		}
		if err := e.do(ctx, http.MethodPost, "/_bulk", bulk.Bytes(), "application/x-ndjson", &res); err != nil {
			return fmt.Errorf("write runs into index %s: %w", index, err)
		}
		bulk.Reset()
		for _, it := range res.Items {
			for _, r := range it {
				if r.Status/100 != 2 {
					return fmt.Errorf("write runs into index %s: a document was refused: %s", index, r.Error)
				}
				sent++
			}
		}
		return nil
	}
	for i := range runs {
		r := &runs[i]
		for _, g := range groups(r) {
			meta := map[string]any{"_index": index, "_id": r.ID + "/" + g.Phase + "/" + g.Op}
			if e.typed {
				meta["_type"] = "_doc"
			}
			line, _ := json.Marshal(map[string]any{"index": meta})
			doc, err := json.Marshal(Document(r, g))
			if err != nil {
				return sent, err
			}
			bulk.Write(line)
			bulk.WriteByte('\n')
			bulk.Write(doc)
			bulk.WriteByte('\n')
			docs++
			if bulk.Len() > 4<<20 { // bulks of a few MB, as Rally sends them
				if err := send(); err != nil {
					return sent, err
				}
			}
		}
	}
	if err := send(); err != nil {
		return sent, err
	}
	if err := e.do(ctx, http.MethodPost, "/"+index+"/_refresh", nil, "", nil); err != nil {
		return sent, fmt.Errorf("refresh index %s: %w", index, err)
	}
	if sent != docs {
		return sent, fmt.Errorf("write runs into index %s: %d documents sent, %d acknowledged", index, docs, sent)
	}
	return sent, nil
}
