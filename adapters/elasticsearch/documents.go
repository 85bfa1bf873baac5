package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tsbench/tsbench/adapters"
)

var _ adapters.DocumentWriter = (*Adapter)(nil)

// useTrack points the adapter at a track's indices (TRACK_PATH): their
// bulk action lines, and the bulk task's pipeline where ES_PIPELINE names
// none.
func (a *Adapter) useTrack() {
	a.indices = a.track.IndexNames()
	a.docActions = map[string][]byte{}
	for _, idx := range a.indices {
		line := `{"index":{"_index":` + strconv.Quote(idx) + `}}` + "\n"
		if a.typed {
			line = `{"index":{"_index":` + strconv.Quote(idx) + `,"_type":"_doc"}}` + "\n"
		}
		a.docActions[idx] = []byte(line)
	}
}

// pipeline is the ingest pipeline of every bulk: ES_PIPELINE, or a track's
// bulk task's.
func (a *Adapter) pipeline() string {
	if a.opts.Pipeline == "" && a.track != nil {
		return a.track.Bulk.Pipeline
	}
	return a.opts.Pipeline
}

// createTrackIndices creates a track's indices with their bodies as the
// track gives them, and puts its pipelines.
func (a *Adapter) createTrackIndices(ctx context.Context) error {
	for _, ix := range a.track.Indices {
		name := ix.Name
		if a.typed && typeless(ix.Body) {
			// Rally's tracks are typeless since 7.x; 6.8 takes such a body
			// only when told (and gives the type _doc, as the bulks say).
			name += "?include_type_name=false"
		}
		if err := a.createIndex(ctx, name, ix.Body); err != nil {
			return fmt.Errorf("the track's index: %w", err)
		}
	}
	for _, p := range a.track.Pipeline {
		if err := a.do(ctx, http.MethodPut, "/_ingest/pipeline/"+p.ID, p.Body, nil); err != nil {
			return fmt.Errorf("put the track's pipeline %s: %w", p.ID, err)
		}
	}
	return nil
}

// typeless reports whether an index body's mappings are of 7.x and later,
// without a mapping type: their fields' properties, or a mapping setting,
// right under mappings.
func typeless(body []byte) bool {
	var b struct {
		Mappings map[string]json.RawMessage `json:"mappings"`
	}
	if json.Unmarshal(body, &b) != nil {
		return false
	}
	for _, k := range []string{"properties", "dynamic", "_source", "dynamic_templates", "_routing", "_meta"} {
		if _, ok := b.Mappings[k]; ok {
			return true
		}
	}
	return false
}

// WriteDocuments sends docs to index as one _bulk request, each behind its
// index action, as they are.
func (a *Adapter) WriteDocuments(ctx context.Context, index string, docs [][]byte) error {
	action, ok := a.docActions[index]
	if !ok {
		return fmt.Errorf("index %s is not one of the track's", index)
	}
	buf := a.getBuf()
	defer a.bufs.Put(buf)
	b := (*buf)[:0]
	for _, d := range docs {
		b = append(b, action...)
		b = append(b, d...)
		b = append(b, '\n')
	}
	*buf = b
	adapters.Sent(ctx, len(b))
	data, err := a.send(ctx, http.MethodPost, a.bulkPath, "application/x-ndjson", b, nil)
	if err != nil {
		return fmt.Errorf("bulk of %d documents to %s: %w", len(docs), index, err)
	}
	if bytes.Contains(data[:min(len(data), 64)], []byte(`"errors":false`)) {
		return nil
	}
	failed, first, err := failedItems(data)
	if err != nil {
		return fmt.Errorf("bulk of %d documents to %s: unreadable answer: %w", len(docs), index, err)
	}
	if failed == 0 {
		return nil
	}
	return &adapters.PartialWriteError{Failed: int64(failed),
		Err: fmt.Errorf("bulk to %s: %d of %d documents failed, the first with %s", index, failed, len(docs), first)}
}

// CountDocuments counts index's documents after a refresh, so that writes
// not yet searchable count.
func (a *Adapter) CountDocuments(ctx context.Context, index string) (int64, error) {
	if err := a.do(ctx, http.MethodPost, "/"+index+"/_refresh", nil, nil); err != nil {
		if notFound(err) {
			return 0, nil
		}
		return 0, err
	}
	var res struct {
		Count int64 `json:"count"`
	}
	if err := a.do(ctx, http.MethodGet, "/"+index+"/_count", nil, &res); err != nil {
		return 0, err
	}
	return res.Count, nil
}

// failedItems reads a bulk answer's failed items: how many, and the first
// one's status and reason.
func failedItems(data []byte) (int, string, error) {
	var res struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			Status int `json:"status"`
			Error  struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return 0, "", err
	}
	if !res.Errors {
		return 0, "", nil
	}
	// With filter_path the items of documents that were stored may be
	// left out: only the failed ones are counted.
	failed, first := 0, ""
	for _, it := range res.Items {
		for _, r := range it {
			if r.Error.Type != "" || r.Status/100 > 2 {
				failed++
				if first == "" {
					first = r.Error.Type + ": " + r.Error.Reason
					if r.Status != 0 {
						first = fmt.Sprintf("HTTP %d %s", r.Status, first)
					}
				}
			}
		}
	}
	return failed, first, nil
}
