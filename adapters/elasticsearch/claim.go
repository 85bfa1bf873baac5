package elasticsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
)

// claim holds the run's indices (<db_name>-*) through a marker document,
// <db_name>-tsbench-lock/_doc/holder: its own index, named like the run's
// so that a user allowed the benchmark's indices may write it, and never
// among the indices the run queries, counts or deletes.
func claim(ctx context.Context, c *config.Config) (func(), string, error) {
	a, err := newAdapter(c)
	if err != nil {
		return nil, "", err
	}
	m := &marker{a: a, index: strings.ToLower(c.DBName + "-tsbench-lock")}
	return adapters.Hold(ctx, m, c, fmt.Sprintf("the indices %s-*", strings.ToLower(c.DBName)))
}

type marker struct {
	a     *Adapter
	index string
}

func (m *marker) doc() string { return "/" + m.index + "/_doc/holder" }

// Create makes the marker's index (one shard, no replica: it holds one
// document) and the document with op_type=create, which the server
// refuses with 409 when the document exists.
func (m *marker) Create(ctx context.Context, content []byte) (bool, error) {
	settings := []byte(`{"settings":{"index":{"number_of_shards":1,"number_of_replicas":0}}}`)
	if err := m.a.do(ctx, http.MethodPut, "/"+m.index, settings, nil); err != nil && !alreadyExists(err) {
		return false, err
	}
	err := m.a.do(ctx, http.MethodPut, m.doc()+"?op_type=create&refresh=true", content, nil)
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusConflict {
		return false, nil
	}
	return err == nil, err
}

func alreadyExists(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == http.StatusBadRequest && strings.Contains(he.reason, "already_exists")
}

func (m *marker) Read(ctx context.Context) ([]byte, error) {
	var got struct {
		Found  bool            `json:"found"`
		Source json.RawMessage `json:"_source"`
	}
	err := m.a.do(ctx, http.MethodGet, m.doc(), nil, &got)
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil || !got.Found {
		return nil, err
	}
	return got.Source, nil
}

func (m *marker) Renew(ctx context.Context, content []byte) error {
	return m.a.do(ctx, http.MethodPut, m.doc()+"?refresh=true", content, nil)
}

// Remove deletes the document; the empty index stays, so that a run
// starting at this moment cannot lose the marker it just wrote.
func (m *marker) Remove(ctx context.Context) error {
	err := m.a.do(ctx, http.MethodDelete, m.doc()+"?refresh=true", nil, nil)
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusNotFound {
		return nil
	}
	return err
}

func (m *marker) Where() string { return "document " + m.doc() }

func (m *marker) Close() { m.a.client.CloseIdleConnections() }
